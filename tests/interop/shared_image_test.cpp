// Shared images (interop.h): what a device can share, described and queried (each refusal
// naming format, tiling, usage and handle type), DRM format modifier choice from
// descriptions, and the whole path on a device: a renderer (its own VkInstance and VkDevice)
// draws into an image, shares it by fd with a session on a second VkDevice, which reads it
// as the model's input and writes the output into an image the renderer imported; the
// renderer reads that back and it is compared with Session::run on the same pixels.
// Four ways: optimal tiling shared directly, linear tiling shared directly (drawn into, or
// filled by an upload where linear images are no color attachment, as on NVIDIA), and the
// renderer's optimal image copied into a shared linear one (recordCopyToLinear). Ownership
// moves through VK_QUEUE_FAMILY_EXTERNAL; both devices run the validation layer with
// synchronization validation under VKINFER_VALIDATE=1 and every message fails the test.
// The session runs either on a wrapped second VkDevice (recordInference into that host's
// command buffer) or on a context of its own (Context::create: submitInference, which records
// and submits on the session's queue).
#include <unistd.h>

#include <gtest/gtest.h>
#include <vkinfer/interop.h>

#include <cmath>
#include <cstring>
#include <optional>

#include "interop/support/host_vulkan.h"
#include "interop/support/shared_util.h"
#include "support/gpu_context.h"
#include "support/small_models.h"

namespace vkinfer::testing {
namespace {

using hostvk::HostVulkan;

static const uint32_t kFullscreenVert[] =
#include "fullscreen.vert.inc"
    ;
static const uint32_t kPatternFrag[] =
#include "pattern.frag.inc"
    ;

bool mentions(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// --- described ------------------------------------------------------------------------------

SharedImageDesc descOf(VkFormat format, VkImageTiling tiling, VkImageUsageFlags usage, uint32_t w = 0, uint32_t h = 0) {
    SharedImageDesc d;
    d.format = format;
    d.tiling = tiling;
    d.usage = usage;
    d.width = w;
    d.height = h;
    return d;
}

TEST(ImageSharing, RefusalNamesFormatTilingUsageAndHandleType) {
    auto d = descOf(VK_FORMAT_B8G8R8A8_SRGB, VK_IMAGE_TILING_LINEAR, VK_IMAGE_USAGE_STORAGE_BIT);
    auto s = describeImageSharing(d, VK_ERROR_FORMAT_NOT_SUPPORTED, 0, {});
    EXPECT_FALSE(s.exportable);
    EXPECT_FALSE(s.importable);
    EXPECT_TRUE(mentions(s.refusal, "VK_FORMAT_B8G8R8A8_SRGB")) << s.refusal;
    EXPECT_TRUE(mentions(s.refusal, "Linear")) << s.refusal;
    EXPECT_TRUE(mentions(s.refusal, "Storage")) << s.refusal;
    EXPECT_TRUE(mentions(s.refusal, "opaque fd")) << s.refusal;
    EXPECT_TRUE(mentions(s.refusal, "FORMAT_NOT_SUPPORTED")) << s.refusal;

    d.handleType = MemoryHandleType::DmaBuf;
    auto neither = describeImageSharing(d, VK_SUCCESS, 0, {4096, 4096, 1});
    EXPECT_TRUE(mentions(neither.refusal, "neither export nor import")) << neither.refusal;
    EXPECT_TRUE(mentions(neither.refusal, "dma-buf")) << neither.refusal;
}

TEST(ImageSharing, FeaturesAndLimitsFromTheDescription) {
    auto d = descOf(VK_FORMAT_R16G16B16A16_SFLOAT, VK_IMAGE_TILING_OPTIMAL, VK_IMAGE_USAGE_SAMPLED_BIT, 1920, 1080);
    auto s = describeImageSharing(d,
                                  VK_SUCCESS,
                                  VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT | VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT |
                                      VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT,
                                  {16384, 16384, 1});
    EXPECT_TRUE(s.exportable);
    EXPECT_TRUE(s.importable);
    EXPECT_TRUE(s.dedicatedOnly);
    EXPECT_TRUE(s.refusal.empty()) << s.refusal;
    auto importOnly = describeImageSharing(d, VK_SUCCESS, VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT, {16384, 16384, 1});
    EXPECT_FALSE(importOnly.exportable);
    EXPECT_TRUE(importOnly.importable);
    EXPECT_FALSE(importOnly.dedicatedOnly);
    auto small = describeImageSharing(d, VK_SUCCESS, VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT, {1024, 1024, 1});
    EXPECT_FALSE(small.exportable) << "1920x1080 does not fit 1024x1024";
    EXPECT_TRUE(mentions(small.refusal, "1024x1024")) << small.refusal;
}

// A usage whose format feature the tiling lacks is refused even where the format query
// accepted it (NVIDIA: a linear R8G8B8A8 color attachment), naming what is missing.
TEST(ImageSharing, UsageNeedsItsFormatFeature) {
    auto d = descOf(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TILING_LINEAR,
                    VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
    const VkExternalMemoryFeatureFlags both =
        VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT | VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT;
    const VkFormatFeatureFlags linearOnNvidia = VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT |
                                                VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
    auto s = describeImageSharing(d, VK_SUCCESS, both, {16384, 16384, 1}, linearOnNvidia);
    EXPECT_FALSE(s.exportable);
    EXPECT_FALSE(s.importable);
    EXPECT_TRUE(mentions(s.refusal, "ColorAttachment")) << s.refusal;
    EXPECT_TRUE(mentions(s.refusal, "Linear")) << s.refusal;
    EXPECT_FALSE(mentions(s.refusal, "TransferSrc }")) << "names only what is missing: " << s.refusal;
    auto withFeature = describeImageSharing(d, VK_SUCCESS, both, {16384, 16384, 1},
                                            linearOnNvidia | VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT);
    EXPECT_TRUE(withFeature.exportable && withFeature.importable) << withFeature.refusal;
    EXPECT_TRUE(withFeature.refusal.empty()) << withFeature.refusal;
}

TEST(DrmModifiers, TiledCommonModifierFirstLinearLast) {
    constexpr uint64_t kLinear = 0, kTiledA = 0x0300000000606010ull, kTiledB = 0x0300000000606015ull;
    constexpr VkFormatFeatureFlags kSampled = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
    constexpr VkFormatFeatureFlags kBoth = kSampled | VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT;
    std::vector<DrmModifierDescription> exporter = {{kLinear, 1, kBoth}, {kTiledA, 1, kSampled}, {kTiledB, 1, kBoth}};
    EXPECT_EQ(chooseDrmFormatModifier(exporter, {}, kSampled), kTiledA) << "the exporter's first tiled one";
    EXPECT_EQ(chooseDrmFormatModifier(exporter, {}, kBoth), kTiledB) << "one with every needed feature";
    EXPECT_EQ(chooseDrmFormatModifier(exporter, {{kLinear, 1, kBoth}, {kTiledB, 1, kSampled}}, kBoth), kLinear)
        << "the importer lacks storage on B: linear is what both can do";
    EXPECT_EQ(chooseDrmFormatModifier({{kTiledA, 2, kBoth}}, {}, kSampled), std::nullopt) << "two planes: not shared";
    EXPECT_EQ(chooseDrmFormatModifier(exporter, {{kTiledA + 1, 1, kBoth}}, kSampled), std::nullopt);
    EXPECT_EQ(chooseDrmFormatModifier({}, {}, 0), std::nullopt);
}

// --- on a device ----------------------------------------------------------------------------

TEST(ImageSharing, CapabilityTableCoversEveryFormatAndExplainsRefusals) {
    VKINFER_REQUIRE_GPU();
    InteropCapabilities caps = queryInteropCapabilities(gpuContext());
    if (!caps.exportMemoryOpaqueFd) GTEST_SKIP() << "no opaque-fd memory on this device";
    // Formats x 2 tilings x 2 usages per handle type.
    EXPECT_GE(caps.images.size(), sharedImageFormats().size() * 4);
    int shareable = 0;
    for (const auto& s : caps.images) {
        EXPECT_EQ(s.refusal.empty(), s.exportable || s.importable) << s.refusal;
        if (!s.refusal.empty()) {
            EXPECT_TRUE(mentions(s.refusal, "VK_FORMAT_")) << s.refusal;
            EXPECT_TRUE(mentions(s.refusal, "tiling")) << s.refusal;
            EXPECT_TRUE(mentions(s.refusal, "usage")) << s.refusal;
            EXPECT_TRUE(mentions(s.refusal, "fd")) << s.refusal;
            std::printf("refused: %s\n", s.refusal.c_str());
        }
        shareable += s.exportable ? 1 : 0;
    }
    EXPECT_GT(shareable, 0) << "a device with opaque-fd memory shares some image";
    auto drm = queryDrmFormatModifiers(gpuContext(), VK_FORMAT_R8G8B8A8_UNORM);
    if (!drm.ok()) {
        EXPECT_EQ(drm.status().code(), ErrorCode::Unsupported);
        EXPECT_TRUE(mentions(drm.status().message(), "VK_EXT_image_drm_format_modifier")) << drm.status().toString();
    }
}

TEST(ImageSharing, CreateRefusesWhatTheTableRefuses) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    InteropCapabilities caps = queryInteropCapabilities(ctx);
    auto bad = createSharedImage(ctx, descOf(VK_FORMAT_R8G8_UNORM, VK_IMAGE_TILING_OPTIMAL, VK_IMAGE_USAGE_SAMPLED_BIT, 4, 4));
    EXPECT_EQ(bad.status().code(), ErrorCode::Unsupported) << bad.status().toString();
    for (const auto& s : caps.images) {
        if (s.exportable) continue;
        SharedImageDesc d = s.desc;
        d.width = d.height = 4;
        auto r = createSharedImage(ctx, d);
        EXPECT_EQ(r.status().code(), ErrorCode::Unsupported) << r.status().toString();
        EXPECT_TRUE(mentions(r.status().message(), "VK_FORMAT_")) << r.status().toString();
        break;
    }
    // An fd the import refuses stays the caller's.
    int fd = dup(0);
    ASSERT_GE(fd, 0);
    ImportedMemory m{fd, MemoryHandleType::DmaBuf, 4096, 0, true, -1};
    auto refused = importSharedImage(ctx, descOf(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TILING_OPTIMAL,
                                                 VK_IMAGE_USAGE_SAMPLED_BIT, 4, 4), m);
    EXPECT_FALSE(refused.ok());
    EXPECT_TRUE(shared::fdIsOpen(fd));
    close(fd);
}

// LinearShared draws into the linear image, which NVIDIA does not allow (no color attachment
// in its linear format features, though the image format query accepts the usage: the
// capability table refuses it and the case skips there). LinearUploaded fills the linear
// image by a copy from a staging buffer, as a video decoder's upload would; the session reads
// it as is.
enum class Route { OptimalShared, LinearShared, LinearUploaded, OptimalCopiedToLinear };

const char* routeName(Route r) {
    switch (r) {
        case Route::OptimalShared: return "OptimalShared";
        case Route::LinearShared: return "LinearShared";
        case Route::LinearUploaded: return "LinearUploaded";
        default: return "CopiedToLinear";
    }
}

// Where the session runs: on a device the test wraps and records into (recordInference), or
// on a context of its own that it cannot record into (submitInference).
enum class SessionOn { WrappedDevice, OwnContext };

struct Case {
    Route route;
    VkFormat inputFormat;
    VkFormat outputFormat = VK_FORMAT_R16G16B16A16_SFLOAT;
    SessionOn session = SessionOn::WrappedDevice;
};

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
    auto name = [](VkFormat f) {
        switch (f) {
            case VK_FORMAT_B8G8R8A8_SRGB: return "Bgra8Srgb";
            case VK_FORMAT_R32_SFLOAT: return "R32f";
            case VK_FORMAT_R16_SFLOAT: return "R16f";
            case VK_FORMAT_R16G16B16A16_SFLOAT: return "Rgba16f";
            default: return "Rgba8";
        }
    };
    return std::string(routeName(info.param.route)) + "_" + name(info.param.inputFormat) + "_to_" +
           name(info.param.outputFormat) + (info.param.session == SessionOn::OwnContext ? "_OwnContext" : "");
}

// A texel as the model sees it, in RGBA order: UNORM and sRGB bytes / 255 (sRGB: the stored
// values, not linear light), a single-channel float as (r, 0, 0, 1).
float texel(const std::vector<uint8_t>& bytes, VkFormat format, size_t i, int c) {
    if (format == VK_FORMAT_R32_SFLOAT) {
        float r;
        std::memcpy(&r, &bytes[i * 4], 4);
        return c == 0 ? r : c == 3 ? 1.0f : 0.0f;
    }
    const bool bgra = format == VK_FORMAT_B8G8R8A8_SRGB || format == VK_FORMAT_B8G8R8A8_UNORM;
    return bytes[i * 4 + (bgra && c < 3 ? 2 - c : c)] / 255.0f;
}

// Records a copy of a non-flat pattern (finite floats for R32F, bytes otherwise) into
// `target`, left in TRANSFER_DST_OPTIMAL on the host's queue family. Returns the pattern.
std::vector<uint8_t> recordPatternUpload(HostVulkan& host, VkCommandBuffer cmd, const hostvk::Image& target) {
    const size_t texels = size_t(target.width) * target.height, bytes = texels * hostvk::texelBytes(target.format);
    std::vector<uint8_t> pattern(bytes);
    for (size_t i = 0; i < texels; ++i) {
        if (target.format == VK_FORMAT_R32_SFLOAT) {
            const float v = float((i * 37) % 101) / 100.0f;
            std::memcpy(&pattern[i * 4], &v, 4);
        } else {
            for (size_t b = 0; b < hostvk::texelBytes(target.format); ++b)
                pattern[i * hostvk::texelBytes(target.format) + b] = uint8_t(i * 37 + b * 59);
        }
    }
    hostvk::Buffer staging = host.createBuffer(bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
    std::memcpy(staging.mapped, pattern.data(), bytes);
    hostvk::imageBarrier(cmd, target.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, host.family,
                         host.family, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_ACCESS_TRANSFER_WRITE_BIT);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {target.width, target.height, 1};
    vkCmdCopyBufferToImage(cmd, staging.buffer, target.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    return pattern;
}

class SharedImagePath : public ::testing::TestWithParam<Case> {};

Context wrap(const HostVulkan& host) {
    auto c = wrapHostDevice(host.hostDevice());
    if (!c.ok()) throw std::runtime_error(c.status().toString());
    return std::move(c).value();
}

TEST_P(SharedImagePath, RendererImageInSessionImageOut) {
    VKINFER_REQUIRE_GPU();
    const Case param = GetParam();
    constexpr uint32_t W = 8, H = 8;
    const bool own = param.session == SessionOn::OwnContext;
    hostvk::HostOptions ho;  // validation as VKINFER_VALIDATE says
    HostVulkan renderer(ho);
    std::optional<HostVulkan> engine;  // the session's device where the test records into it
    if (!own) engine.emplace(ho);
    Context rendererCtx = wrap(renderer);  // only to make and import shared images on its device
    Context engineCtx = own ? gpuContext() : wrap(*engine);
    if (rendererCtx.device().deviceUuid != engineCtx.device().deviceUuid) GTEST_SKIP() << "two physical devices";

    const bool linear = param.route != Route::OptimalShared;
    const bool uploadIntoLinear = param.route == Route::LinearUploaded;
    const VkImageTiling tiling = linear ? VK_IMAGE_TILING_LINEAR : VK_IMAGE_TILING_OPTIMAL;
    // The input image as both sides create it: rendered into, or copied into.
    SharedImageDesc inDesc = descOf(param.inputFormat, tiling,
                                    VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                        (param.route == Route::OptimalCopiedToLinear || uploadIntoLinear
                                             ? VkImageUsageFlags(VK_IMAGE_USAGE_TRANSFER_DST_BIT)
                                             : VkImageUsageFlags(VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT)),
                                    W, H);
    SharedImageDesc outDesc = descOf(param.outputFormat, tiling,
                                     VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, W, H);
    for (const SharedImageDesc& d : {inDesc, outDesc}) {
        auto s = queryImageSharing(rendererCtx, d);
        if (!s.exportable || !s.importable) GTEST_SKIP() << s.refusal;
    }
    const VkFormatFeatureFlags attachment = VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT;
    if (!uploadIntoLinear && !renderer.formatSupports(param.inputFormat, attachment))
        GTEST_SKIP() << "no color attachment of this format";

    // Input: made (exportable) by the renderer, imported by the session's device. Output: the
    // other way round.
    auto inR = createSharedImage(rendererCtx, inDesc);
    ASSERT_TRUE(inR.ok()) << inR.status().toString();
    auto inFd = exportImageMemory(*inR);
    ASSERT_TRUE(inFd.ok()) << inFd.status().toString();
    auto inE = importSharedImage(engineCtx, inDesc,
                                 {inFd->fd, inFd->type, inFd->allocationSize, 0, true, int32_t(inFd->memoryTypeIndex)});
    ASSERT_TRUE(inE.ok()) << inE.status().toString();
    auto outE = createSharedImage(engineCtx, outDesc);
    ASSERT_TRUE(outE.ok()) << outE.status().toString();
    auto outFd = exportImageMemory(*outE);
    ASSERT_TRUE(outFd.ok()) << outFd.status().toString();
    auto outR = importSharedImage(rendererCtx, outDesc,
                                  {outFd->fd, outFd->type, outFd->allocationSize, 0, true, int32_t(outFd->memoryTypeIndex)});
    ASSERT_TRUE(outR.ok()) << outR.status().toString();
    if (linear) {
        EXPECT_GE(inR->linearLayout().rowPitch, W * hostvk::texelBytes(param.inputFormat));
    }

    // The renderer draws and releases the input to the session (VK_QUEUE_FAMILY_EXTERNAL),
    // changing its layout to the one the session reads in (SHADER_READ_ONLY_OPTIMAL).
    hostvk::FullscreenPass pass(renderer, param.inputFormat, kFullscreenVert, sizeof(kFullscreenVert), kPatternFrag,
                                sizeof(kPatternFrag), hostvk::FullscreenPass::Binding::None);
    const float push[4] = {float(W), float(H), 0.25f, 0};
    hostvk::Image drawn = param.route == Route::OptimalCopiedToLinear
                              ? renderer.createImage(param.inputFormat, W, H)
                              : hostvk::imageOf(*inR);
    std::vector<uint8_t> uploaded;  // LinearUploaded: what the renderer put into the image
    VkImageLayout sessionBefore;  // the layout the release leaves from, as the session's "before" names it
    {
        VkCommandBuffer cmd = renderer.begin();
        if (uploadIntoLinear) uploaded = recordPatternUpload(renderer, cmd, drawn);
        else pass.record(cmd, drawn, push);
        const ImageState sessionRead{VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0,
                                     VK_QUEUE_FAMILY_EXTERNAL};
        if (param.route == Route::OptimalCopiedToLinear) {
            LinearCopy copy;
            copy.source = drawn.host();
            copy.sourceBefore = hostvk::FullscreenPass::attachmentState();
            copy.sourceAfter = {VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT, 0};
            copy.linear = inR->image();
            copy.linearAfter = sessionRead;
            Status s = recordCopyToLinear(cmd, renderer.family, copy);
            ASSERT_TRUE(s.ok()) << s.toString();
            sessionBefore = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        } else if (uploadIntoLinear) {
            hostvk::imageBarrier(cmd, drawn.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                 VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, renderer.family, VK_QUEUE_FAMILY_EXTERNAL,
                                 VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                                 VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0);
            sessionBefore = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        } else {
            hostvk::imageBarrier(cmd, drawn.image,
                                 VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                 renderer.family, VK_QUEUE_FAMILY_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                                 VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0);
            sessionBefore = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
        }
        renderer.submitAndWait(cmd);  // the host wait: lavapipe shares no semaphore
    }
    // What the renderer drew, read on its side (the optimal original where there is one).
    const ImageState drawnNow = param.route == Route::OptimalCopiedToLinear
                                    ? ImageState{VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT, 0}
                                    : ImageState{VK_IMAGE_LAYOUT_UNDEFINED};
    std::vector<uint8_t> drawnBytes;
    if (param.route == Route::OptimalCopiedToLinear) drawnBytes = renderer.readImage(drawn, drawnNow);

    // The session: acquire the input, infer, write the output image and release it.
    SessionOptions so;
    auto session = Session::create(engineCtx, affineModel(), so);
    ASSERT_TRUE(session.ok()) << session.status().toString();
    RecordIO io;
    ImageInput in;
    in.image = inE->image();
    in.access = ImageAccess::Sampled;
    in.before = {sessionBefore, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_QUEUE_FAMILY_EXTERNAL};
    in.after = {VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, VK_QUEUE_FAMILY_EXTERNAL};
    io.imageInputs.push_back({"x", in});
    ImageOutput out;
    out.image = outE->image();
    out.before = {VK_IMAGE_LAYOUT_UNDEFINED};
    out.after = {VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, VK_QUEUE_FAMILY_EXTERNAL};
    io.imageOutputs.push_back({"y", out});
    if (own) {
        // The session's own queue: no command buffer of the host's. Session::wait is the
        // host wait (lavapipe shares no semaphore); it returns no tensor, every output went
        // to an image, and the GPU time of the submission where timestamps exist.
        auto ticket = submitInference(*session, io);
        ASSERT_TRUE(ticket.ok()) << ticket.status().toString();
        RunStats stats;
        auto rest = session->wait(*ticket, &stats);
        ASSERT_TRUE(rest.ok()) << rest.status().toString();
        EXPECT_TRUE(rest->empty());
        EXPECT_GE(stats.gpuMs, 0.0);
    } else {
        VkCommandBuffer cmd = engine->begin();
        Status s = recordInference(*session, cmd, io);
        ASSERT_TRUE(s.ok()) << s.toString();
        engine->submitAndWait(cmd);
    }
    // The renderer acquires both: the input back (for its next frame's drawing), and the output.
    {
        VkCommandBuffer cmd = renderer.begin();
        hostvk::imageBarrier(cmd, inR->image().image, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                             VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_QUEUE_FAMILY_EXTERNAL, renderer.family,
                             VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        hostvk::imageBarrier(cmd, outR->image().image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                             VK_QUEUE_FAMILY_EXTERNAL, renderer.family, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                             VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        renderer.submitAndWait(cmd);
    }
    const ImageState readable{VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT, 0};
    std::vector<uint8_t> inputBytes = renderer.readImage(hostvk::imageOf(*inR), readable);
    if (param.route != Route::OptimalCopiedToLinear) drawnBytes = inputBytes;
    if (uploadIntoLinear) {
        EXPECT_EQ(inputBytes, uploaded) << "the linear image holds what the renderer uploaded";
    }
    EXPECT_EQ(inputBytes, drawnBytes) << "the copy into the linear image is exact";
    std::vector<uint8_t> outputBytes = renderer.readImage(
        hostvk::imageOf(*outR), {VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT, 0});

    // The reference: Session::run on the pixels the renderer drew, as the model sees them
    // (stored values / 255 in RGBA order; an sRGB image's stored values, not linear light).
    Tensor x(DataType::Float32, {1, 4, H, W});
    const size_t plane = size_t(W) * H;
    for (size_t i = 0; i < plane; ++i)
        for (int c = 0; c < 4; ++c) x.as<float>()[c * plane + i] = texel(drawnBytes, param.inputFormat, i, c);
    auto ref = session->run({{"x", x}});
    ASSERT_TRUE(ref.ok()) << ref.status().toString();
    const float* y = (*ref)[0].tensor.as<float>();
    // Float16 output (3 significant decimal digits on values up to 3); an sRGB round trip
    // through the sampler's decode and the re-encode adds at most ~1/3 of a step of 1/255.
    const float tol = 3.0f / 1024.0f + (param.inputFormat == VK_FORMAT_B8G8R8A8_SRGB ? 2.0f * 0.4f / 255.0f : 0.0f);
    // A single-channel output image keeps the first channel.
    const int channels = param.outputFormat == VK_FORMAT_R16_SFLOAT ? 1 : 4;
    float worst = 0;
    for (size_t i = 0; i < plane; ++i)
        for (int c = 0; c < channels; ++c) {
            uint16_t h;
            std::memcpy(&h, &outputBytes[(i * channels + c) * 2], 2);
            worst = std::max(worst, std::fabs(hostvk::halfToFloat(h) - y[c * plane + i]));
        }
    EXPECT_LE(worst, tol) << "image path against Session::run";
    // The check can fail: the drawn pattern is not flat, so a wrong read shows.
    EXPECT_NE(std::memcmp(&drawnBytes[0], &drawnBytes[(plane - 1) * hostvk::texelBytes(param.inputFormat)],
                          hostvk::texelBytes(param.inputFormat)),
              0);

    inE = Result<SharedImage>(SharedImage());
    outE = Result<SharedImage>(SharedImage());
    session = Result<Session>(Session());
    auto messages = renderer.log().take();
    auto more = own ? engineCtx.takeValidationMessages() : engine->log().take();
    messages.insert(messages.end(), more.begin(), more.end());
    EXPECT_TRUE(messages.empty()) << ::testing::PrintToString(messages);
}

INSTANTIATE_TEST_SUITE_P(Routes, SharedImagePath,
                         ::testing::Values(Case{Route::OptimalShared, VK_FORMAT_R8G8B8A8_UNORM},
                                           Case{Route::LinearShared, VK_FORMAT_R8G8B8A8_UNORM},
                                           Case{Route::OptimalCopiedToLinear, VK_FORMAT_R8G8B8A8_UNORM},
                                           Case{Route::OptimalShared, VK_FORMAT_B8G8R8A8_SRGB},
                                           Case{Route::LinearShared, VK_FORMAT_R32_SFLOAT, VK_FORMAT_R16_SFLOAT},
                                           Case{Route::LinearUploaded, VK_FORMAT_R8G8B8A8_UNORM},
                                           Case{Route::LinearUploaded, VK_FORMAT_R32_SFLOAT, VK_FORMAT_R16_SFLOAT},
                                           Case{Route::OptimalShared, VK_FORMAT_R8G8B8A8_UNORM,
                                                VK_FORMAT_R16G16B16A16_SFLOAT, SessionOn::OwnContext},
                                           Case{Route::OptimalCopiedToLinear, VK_FORMAT_B8G8R8A8_SRGB,
                                                VK_FORMAT_R16G16B16A16_SFLOAT, SessionOn::OwnContext},
                                           Case{Route::LinearShared, VK_FORMAT_R32_SFLOAT, VK_FORMAT_R16_SFLOAT,
                                                SessionOn::OwnContext},
                                           Case{Route::LinearUploaded, VK_FORMAT_R32_SFLOAT, VK_FORMAT_R16_SFLOAT,
                                                SessionOn::OwnContext}),
                         caseName);

}  // namespace
}  // namespace vkinfer::testing
