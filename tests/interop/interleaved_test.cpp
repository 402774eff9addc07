// Interleaved execution: vkinfer records into the host's own command buffer (interop.h
// recordInference). The test plays the host: its own instance (validation with
// synchronization validation when VKINFER_VALIDATE=1) and device, a render pass drawing a
// pattern, vkinfer's espcn_x2 upscaling in the same command buffer, a fragment pass reading
// the result. Every result is checked against Session::run on a separate vkinfer Context,
// and any validation message on the host's instance fails the test (TearDown).
#include <gtest/gtest.h>
#include <vkinfer/interop.h>
#include <vkinfer/vkinfer.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>

#include "interop/support/host_vulkan.h"
#include "support/onnx_builder.h"
#include "support/gpu_context.h"

namespace vkinfer {
namespace {

using hostvk::Buffer;
using testing::floatTensor;
using testing::OnnxBuilder;
using hostvk::FullscreenPass;
using hostvk::HostOptions;
using hostvk::HostVulkan;
using hostvk::Image;

static const uint32_t kFullscreenVert[] =
#include "fullscreen.vert.inc"
    ;
static const uint32_t kPatternFrag[] =
#include "pattern.frag.inc"
    ;
static const uint32_t kSampleFrag[] =
#include "sample.frag.inc"
    ;
static const uint32_t kFillFrag[] =
#include "fill.frag.inc"
    ;

constexpr const char* kModelPath = VKINFER_DATA_DIR "/espcn_x2/model.onnx";
constexpr VkFormat kRgba8 = VK_FORMAT_R8G8B8A8_UNORM;
constexpr VkFormat kBgra8 = VK_FORMAT_B8G8R8A8_UNORM;
constexpr VkFormat kRgba16f = VK_FORMAT_R16G16B16A16_SFLOAT;

// States the host declares at the boundaries.
constexpr ImageState kAttachment{VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                                 VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT};
constexpr ImageState kFragmentRead{VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                                   VK_ACCESS_SHADER_READ_BIT};
// The same image once the fragment reads are done (for a later barrier's source scope).
constexpr ImageState kAfterFragmentRead{VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0};
constexpr ImageState kTransferSrc{VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT, 0};

const Model& espcn() {
    static const Model model = [] {
        auto m = Model::load(kModelPath);
        if (!m) throw std::runtime_error(m.status().toString());
        return std::move(m).value();
    }();
    return model;
}

// The separate-context reference: Session::run on the tests' own validated Context.
Tensor referenceRun(const Tensor& input) {
    static std::unique_ptr<Session> session;
    if (!session) {
        auto s = Session::create(testing::gpuContext(), espcn());
        if (!s) throw std::runtime_error(s.status().toString());
        session = std::make_unique<Session>(std::move(s).value());
    }
    auto out = session->run({{"input", input}});
    if (!out) throw std::runtime_error("reference run: " + out.status().toString());
    return std::move(out->at(0).tensor);
}

// Pixels as floats in RGBA order, whatever the format's memory order.
std::vector<float> pixelsRgba(const std::vector<uint8_t>& bytes, VkFormat format, uint32_t w, uint32_t h) {
    std::vector<float> px(size_t(w) * h * 4);
    for (size_t i = 0; i < size_t(w) * h; ++i) {
        for (int c = 0; c < 4; ++c) {
            if (format == kRgba16f) {
                uint16_t v;
                std::memcpy(&v, &bytes[i * 8 + c * 2], 2);
                px[i * 4 + c] = hostvk::halfToFloat(v);
            } else {
                int at = format == kBgra8 && c < 3 ? 2 - c : c;  // memory order B, G, R, A
                px[i * 4 + c] = bytes[i * 4 + at] / 255.0f;
            }
        }
    }
    return px;
}

// What the pre-processing computes: [1, 3, H, W], tensor[c] = (pixel[c] - mean[c]) * scale[c].
Tensor imageTensor(const std::vector<float>& rgba, uint32_t w, uint32_t h, std::array<float, 4> mean = {0, 0, 0, 0},
                   std::array<float, 4> scale = {1, 1, 1, 1}) {
    Tensor t(DataType::Float32, {1, 3, int64_t(h), int64_t(w)});
    float* d = t.as<float>();
    size_t plane = size_t(w) * h;
    for (size_t i = 0; i < plane; ++i)
        for (int c = 0; c < 3; ++c) d[c * plane + i] = (rgba[i * 4 + c] - mean[c]) * scale[c];
    return t;
}

// What the post-processing computes from the model output [1, C, H, W], in RGBA order:
// pixel[c] = tensor[c] * scale[c] + bias[c] for the channels the output has (one channel is
// replicated to RGB), 0 for the others and alpha 1, clamped to [0, 1] for UNORM.
std::vector<float> expectedPixels(const Tensor& out, bool unorm, std::array<float, 4> scale = {1, 1, 1, 1},
                                  std::array<float, 4> bias = {0, 0, 0, 0}) {
    const auto& s = out.shape();
    size_t plane = size_t(s[2]) * s[3];
    std::vector<float> px(plane * 4);
    const float* t = out.as<float>();
    for (size_t i = 0; i < plane; ++i) {
        for (int c = 0; c < 4; ++c) {
            int from = s[1] == 1 && c < 3 ? 0 : c;  // a single channel fills R, G and B
            float v = from < s[1] ? t[from * plane + i] * scale[c] + bias[c] : (c == 3 ? 1.0f : 0.0f);
            if (unorm) v = std::clamp(v, 0.0f, 1.0f);
            px[i * 4 + c] = v;
        }
    }
    return px;
}

// Compares an RGBA8/BGRA8 image with expected values (RGBA order) within `lsb` steps of
// 1/255, or an RGBA16F image within a half-float tolerance; failures list the first pixels.
::testing::AssertionResult imageMatches(const std::vector<uint8_t>& bytes, VkFormat format, uint32_t w, uint32_t h,
                                        const std::vector<float>& expected, int lsb = 1) {
    std::vector<float> got = pixelsRgba(bytes, format, w, h);
    if (got.size() != expected.size())
        return ::testing::AssertionFailure() << "size " << got.size() << " vs expected " << expected.size();
    size_t bad = 0;
    std::string first;
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        double diff = std::fabs(double(got[i]) - expected[i]);
        bool ok;
        if (format == kRgba16f) {
            ok = diff <= 1e-3 + 1e-3 * std::fabs(expected[i]);
            worst = std::max(worst, diff);
        } else {
            double steps = std::fabs(double(got[i]) * 255.0 - std::round(double(expected[i]) * 255.0));
            ok = steps <= lsb + 1e-3;
            worst = std::max(worst, steps);
        }
        if (!ok && bad++ < 5) {
            size_t p = i / 4;
            first += "\n  pixel (" + std::to_string(p % w) + ", " + std::to_string(p / w) + ") channel " +
                     std::to_string(i % 4) + ": got " + std::to_string(got[i]) + ", expected " + std::to_string(expected[i]);
        }
    }
    if (bad) return ::testing::AssertionFailure() << bad << " of " << got.size() << " values differ" << first;
    return ::testing::AssertionSuccess() << "worst difference " << worst;
}

// How much each RGB channel varies over the image (max - min), to be sure a pattern is there.
float channelRange(const std::vector<float>& rgba, int c) {
    float lo = 1e30f, hi = -1e30f;
    for (size_t i = c; i < rgba.size(); i += 4) lo = std::min(lo, rgba[i]), hi = std::max(hi, rgba[i]);
    return hi - lo;
}

class Interleaved : public ::testing::Test {
protected:
    void SetUp() override {
        VKINFER_REQUIRE_GPU();
        log_ = std::make_shared<hostvk::MessageLog>();
        HostOptions o = hostOptions_;
        o.log = log_;
        host_ = std::make_unique<HostVulkan>(o);
        ASSERT_EQ(host_->validation, validationRequestedByEnvironment());
    }

    // Everything vkinfer made on the host's device is gone by now (test-body locals); the
    // device and instance are destroyed here, so leaks are reported too.
    void TearDown() override {
        passes_.clear();
        host_.reset();
        if (log_) {
            EXPECT_TRUE(log_->peek().empty()) << "validation messages on the host's instance:\n" << log_->text();
        }
    }

    HostVulkan& vk() { return *host_; }

    Context wrap(bool withQueue = true) {
        auto c = wrapHostDevice(vk().hostDevice(withQueue));
        if (!c) throw std::runtime_error("wrapHostDevice: " + c.status().toString());
        return std::move(c).value();
    }
    Session session(const Context& ctx, SessionOptions options = {}) {
        auto s = Session::create(ctx, espcn(), options);
        if (!s) throw std::runtime_error("Session::create: " + s.status().toString());
        return std::move(s).value();
    }

    FullscreenPass& pattern(VkFormat format) { return pass(format, FullscreenPass::Binding::None); }
    FullscreenPass& sampler(VkFormat format) { return pass(format, FullscreenPass::Binding::Sampler); }
    FullscreenPass& filler(VkFormat format) { return pass(format, FullscreenPass::Binding::StorageBuffer); }

    // Renders the pattern (phase) into `target`; it ends in COLOR_ATTACHMENT_OPTIMAL.
    void drawPattern(VkCommandBuffer cmd, const Image& target, float phase) {
        float push[4] = {float(target.width), float(target.height), phase, 0};
        pattern(target.format).record(cmd, target, push);
    }
    // Draws `source` (SHADER_READ_ONLY_OPTIMAL) into `target` through a fragment shader.
    void drawSampled(VkCommandBuffer cmd, const Image& target, const Image& source) {
        float push[4] = {0, 0, 0, 0};
        sampler(target.format).record(cmd, target, push, {source.view});
    }

    // The frame, in one command buffer and one submission: the host draws the pattern
    // (phase) into `scene`, vkinfer upscales it (`in` -> `out`, whose image is `upscaled`),
    // the host samples `upscaled` into `final`; then the three images' bytes. A recording
    // error returns before anything is submitted.
    struct FrameBytes {
        std::vector<uint8_t> scene, upscaled, final;
    };
    Status renderUpscaleSample(Session& s, const Image& scene, const Image& upscaled, const Image& final, float phase,
                               const ImageInput& in, const ImageOutput& out, FrameBytes* bytes) {
        VkCommandBuffer cmd = vk().begin();
        drawPattern(cmd, scene, phase);
        RecordIO io;
        io.imageInputs = {{"input", in}};
        io.imageOutputs = {{"output", out}};
        Status st = recordInference(s, cmd, io);
        if (!st.ok()) return st;
        drawSampled(cmd, final, upscaled);
        const Buffer& sceneBytes = vk().recordReadback(cmd, scene, kAttachment);
        const Buffer& upscaledBytes = vk().recordReadback(cmd, upscaled, kAfterFragmentRead);
        const Buffer& finalBytes = vk().recordReadback(cmd, final, kAttachment);
        vk().submitAndWait(cmd);
        *bytes = {HostVulkan::bytes(sceneBytes), HostVulkan::bytes(upscaledBytes), HostVulkan::bytes(finalBytes)};
        return st;
    }

    HostOptions hostOptions_;

private:
    FullscreenPass& pass(VkFormat format, FullscreenPass::Binding binding) {
        auto& p = passes_[{format, binding}];
        if (!p) {
            using B = FullscreenPass::Binding;
            const uint32_t* frag = binding == B::Sampler ? kSampleFrag : binding == B::None ? kPatternFrag : kFillFrag;
            size_t fragBytes = binding == B::Sampler ? sizeof(kSampleFrag)
                               : binding == B::None  ? sizeof(kPatternFrag)
                                                     : sizeof(kFillFrag);
            p = std::make_unique<FullscreenPass>(vk(), format, kFullscreenVert, sizeof(kFullscreenVert), frag, fragBytes,
                                                 binding);
        }
        return *p;
    }

    std::shared_ptr<hostvk::MessageLog> log_;
    std::unique_ptr<HostVulkan> host_;
    std::map<std::pair<VkFormat, FullscreenPass::Binding>, std::unique_ptr<FullscreenPass>> passes_;
};

ImageInput sampledInput(const Image& img) {
    ImageInput in;
    in.image = img.host();
    in.access = ImageAccess::Sampled;
    in.before = kAttachment;
    in.after = kAttachment;  // the host renders into it again next frame
    return in;
}

ImageOutput storageOutput(const Image& img) {
    ImageOutput out;
    out.image = img.host();
    out.before = {};  // UNDEFINED: overwritten entirely
    out.after = kFragmentRead;
    return out;
}

// ---------------------------------------------------------------------------------------

// The scenario: render, upscale, sample the result, all in one command buffer and
// one submission.
TEST_F(Interleaved, UpscalesRenderedImageInOneCommandBuffer) {
    const uint32_t W = 64, H = 48;
    // Without a queue: vkinfer can only reach the GPU through this command buffer (weights
    // included).
    Context ctx = wrap(/*withQueue=*/false);
    Session s = session(ctx);
    Image scene = vk().createImage(kRgba8, W, H);
    Image upscaled = vk().createImage(kRgba8, 2 * W, 2 * H);
    Image final = vk().createImage(kRgba8, 2 * W, 2 * H);
    ASSERT_TRUE(upscaled.usage & VK_IMAGE_USAGE_STORAGE_BIT);

    FrameBytes frame;
    Status st = renderUpscaleSample(s, scene, upscaled, final, 0.1f, sampledInput(scene), storageOutput(upscaled), &frame);
    ASSERT_TRUE(st.ok()) << st.toString();

    auto scenePx = pixelsRgba(frame.scene, kRgba8, W, H);
    for (int c = 0; c < 3; ++c) ASSERT_GT(channelRange(scenePx, c), 0.5f) << "the host's pattern is missing, channel " << c;
    Tensor ref = referenceRun(imageTensor(scenePx, W, H));
    ASSERT_EQ(ref.shape(), (std::vector<int64_t>{1, 3, 2 * H, 2 * W}));
    EXPECT_TRUE(imageMatches(frame.upscaled, kRgba8, 2 * W, 2 * H, expectedPixels(ref, true)));
    EXPECT_EQ(frame.final, frame.upscaled) << "the host's fragment pass did not see vkinfer's output";
}

// A BGRA8 scene (a typical swapchain format) read through a sampled view: channels arrive
// in RGBA order. The output is BGRA8 too where the device can store to it.
TEST_F(Interleaved, SampledBgra8Input) {
    const uint32_t W = 48, H = 32;
    ASSERT_TRUE(vk().formatSupports(kBgra8, VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT));
    bool bgraOut = vk().features.shaderStorageImageWriteWithoutFormat &&
                   vk().formatSupports(kBgra8, VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT);
    VkFormat outFormat = bgraOut ? kBgra8 : kRgba8;
    Context ctx = wrap();
    Session s = session(ctx);
    Image scene = vk().createImage(kBgra8, W, H);
    Image upscaled = vk().createImage(outFormat, 2 * W, 2 * H);

    VkCommandBuffer cmd = vk().begin();
    drawPattern(cmd, scene, 0.3f);
    RecordIO io;
    io.imageInputs = {{"input", sampledInput(scene)}};
    io.imageOutputs = {{"output", storageOutput(upscaled)}};
    Status st = recordInference(s, cmd, io);
    ASSERT_TRUE(st.ok()) << st.toString();
    const Buffer& sceneBytes = vk().recordReadback(cmd, scene, kAttachment);
    const Buffer& upscaledBytes = vk().recordReadback(cmd, upscaled, kFragmentRead);
    vk().submitAndWait(cmd);

    auto scenePx = pixelsRgba(HostVulkan::bytes(sceneBytes), kBgra8, W, H);
    // Red and blue differ enough that a swap would show.
    double rb = 0;
    for (size_t i = 0; i < scenePx.size(); i += 4) rb += std::fabs(scenePx[i] - scenePx[i + 2]);
    ASSERT_GT(rb / (W * H), 0.1);
    Tensor ref = referenceRun(imageTensor(scenePx, W, H));
    EXPECT_TRUE(imageMatches(HostVulkan::bytes(upscaledBytes), outFormat, 2 * W, 2 * H, expectedPixels(ref, true)))
        << "output format " << (bgraOut ? "BGRA8" : "RGBA8");
}

// RGBA16F in and out: the scene read as a storage image (rgba16f), the output stored
// without clamping; the host samples it into another RGBA16F image.
class InterleavedRgba16f : public Interleaved, public ::testing::WithParamInterface<bool> {
protected:
    void SetUp() override {
        hostOptions_.storageImageWriteWithoutFormat = GetParam();
        Interleaved::SetUp();
    }
};

TEST_P(InterleavedRgba16f, StorageInputAndOutput) {
    const uint32_t W = 48, H = 32;
    ASSERT_EQ(bool(vk().features.shaderStorageImageWriteWithoutFormat), GetParam());
    Context ctx = wrap();
    Session s = session(ctx);
    if (!GetParam()) {  // BGRA8 has no format qualifier: writing it needs the feature, named
        Image bgra = vk().createImage(kBgra8, 2 * W, 2 * H);
        Image scene = vk().createImage(kRgba8, W, H);
        VkCommandBuffer cmd = vk().begin();
        drawPattern(cmd, scene, 0.6f);
        RecordIO io;
        io.imageInputs = {{"input", sampledInput(scene)}};
        io.imageOutputs = {{"output", storageOutput(bgra)}};
        Status st = recordInference(s, cmd, io);
        EXPECT_EQ(st.code(), ErrorCode::Unsupported) << st.toString();
        EXPECT_NE(st.message().find("shaderStorageImageWriteWithoutFormat"), std::string::npos) << st.message();
        vk().submitAndWait(cmd);
    }
    Image scene = vk().createImage(kRgba16f, W, H);
    Image upscaled = vk().createImage(kRgba16f, 2 * W, 2 * H);
    Image final = vk().createImage(kRgba16f, 2 * W, 2 * H);
    ASSERT_TRUE(scene.usage & VK_IMAGE_USAGE_STORAGE_BIT);

    ImageInput in = sampledInput(scene);
    in.access = ImageAccess::Storage;
    FrameBytes frame;
    Status st = renderUpscaleSample(s, scene, upscaled, final, 0.6f, in, storageOutput(upscaled), &frame);
    ASSERT_TRUE(st.ok()) << st.toString();

    auto scenePx = pixelsRgba(frame.scene, kRgba16f, W, H);
    Tensor ref = referenceRun(imageTensor(scenePx, W, H));
    auto expected = expectedPixels(ref, /*unorm=*/false);
    // Not clamped: the model's output leaves [0, 1] somewhere, and RGBA16F keeps it.
    bool outside = false;
    for (size_t i = 0; i < expected.size(); ++i) outside |= (i % 4 != 3) && (expected[i] < 0 || expected[i] > 1);
    EXPECT_TRUE(outside) << "this input does not test the absence of clamping";
    EXPECT_TRUE(imageMatches(frame.upscaled, kRgba16f, 2 * W, 2 * H, expected));
    EXPECT_EQ(frame.final, frame.upscaled);
}

INSTANTIATE_TEST_SUITE_P(, InterleavedRgba16f, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "WriteWithoutFormat" : "FormatQualified"; });

// Model input and output in the host's buffers, at offsets, with the host writing them in
// the same command buffer before (upload, fill) and after (overwrite, copy) vkinfer.
TEST_F(Interleaved, BufferInputAndOutput) {
    const int64_t W = 32, H = 24;
    const VkDeviceSize inOffset = 256, outOffset = 512;
    const VkDeviceSize inBytes = 3 * W * H * 4, outBytes = 3 * 4 * W * H * 4;
    Context ctx = wrap();
    Session s = session(ctx);
    constexpr VkBufferUsageFlags usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    Buffer inBuf = vk().createBuffer(inOffset + inBytes + 64, usage, false);
    Buffer outBuf = vk().createBuffer(outOffset + outBytes + 64, usage, false);
    Image target = vk().createImage(kRgba8, W, H, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT);  // for the host's fill pass
    ASSERT_TRUE(vk().features.fragmentStoresAndAtomics);

    Tensor input(DataType::Float32, {1, 3, H, W});
    for (int64_t i = 0; i < input.elementCount(); ++i) input.as<float>()[i] = 0.5f + 0.45f * std::sin(0.37f * float(i));

    VkCommandBuffer cmd = vk().begin();
    vk().recordUpload(cmd, inBuf, inOffset, input.data(), inBytes);
    vkCmdFillBuffer(cmd, outBuf.buffer, 0, VK_WHOLE_SIZE, 0xffffffffu);  // NaN everywhere
    RecordIO io;
    io.shapes = {{"input", {1, 3, H, W}}};
    // After vkinfer has read it, the host's fragment shader overwrites the input: the "after"
    // state is what orders that write after vkinfer's read.
    io.bufferInputs = {{"input", {inBuf.buffer, inOffset, {VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT},
                                  {VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT}}}};
    io.bufferOutputs = {{"output", {outBuf.buffer, outOffset, {VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT},
                                    {VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT}}}};
    Status st = recordInference(s, cmd, io);
    ASSERT_TRUE(st.ok()) << st.toString();
    // The host reuses its input buffer at once: a fragment pass writes 7.0 over the first
    // W x H values.
    float fill[4] = {float(W), 7.0f, 0, 0};
    filler(kRgba8).record(cmd, target, fill, {VK_NULL_HANDLE, inBuf.buffer, inOffset, inBytes});
    const Buffer& outCopy = vk().recordReadback(cmd, outBuf, 0, outBuf.size, {VK_PIPELINE_STAGE_TRANSFER_BIT, 0});
    const Buffer& inCopy = vk().recordReadback(cmd, inBuf, inOffset, inBytes,
                                               {VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT});
    vk().submitAndWait(cmd);
    auto inAfter = HostVulkan::bytes(inCopy);
    const float* reused = reinterpret_cast<const float*>(inAfter.data());
    EXPECT_EQ(reused[0], 7.0f);
    EXPECT_EQ(reused[W * H - 1], 7.0f);
    EXPECT_EQ(reused[W * H], input.as<float>()[W * H]);

    Tensor ref = referenceRun(input);
    auto bytes = HostVulkan::bytes(outCopy);
    const float* got = reinterpret_cast<const float*>(bytes.data() + outOffset);
    size_t bad = 0;
    for (int64_t i = 0; i < ref.elementCount(); ++i)
        if (!(std::fabs(got[i] - ref.as<float>()[i]) <= 1e-5f + 1e-5f * std::fabs(ref.as<float>()[i]))) ++bad;
    EXPECT_EQ(bad, 0u) << "of " << ref.elementCount() << " output values";
    // Nothing outside [offset, offset + bytes) was written.
    for (VkDeviceSize i = 0; i < outOffset; ++i) ASSERT_EQ(bytes[i], 0xff) << "byte " << i;
    for (VkDeviceSize i = outOffset + outBytes; i < bytes.size(); ++i) ASSERT_EQ(bytes[i], 0xff) << "byte " << i;
}

// The engine's own IO: Session::stageInput before recording, no bindings, readOutputs after
// the host's fence. Twice on the same frame slot with different inputs.
// On a host device without a queue the weights travel in the host's command buffers: every
// frame slot's first recording carries them, so whichever frame the host submits first
// computes with the right weights. Here frame 1 is submitted (and finished) before frame 0.
TEST_F(Interleaved, QueuelessWeightsReachWhicheverFrameRunsFirst) {
    const int64_t W = 24, H = 16;
    Context ctx = wrap(/*withQueue=*/false);
    SessionOptions opts;
    opts.framesInFlight = 2;
    Session s = session(ctx, opts);
    Tensor inputs[2] = {Tensor(DataType::Float32, {1, 3, H, W}), Tensor(DataType::Float32, {1, 3, H, W})};
    VkCommandBuffer cmds[2];
    for (uint32_t f = 0; f < 2; ++f) {
        for (int64_t i = 0; i < inputs[f].elementCount(); ++i)
            inputs[f].as<float>()[i] = 0.5f + 0.4f * std::sin(0.07f * float(i) + float(f));
        ASSERT_TRUE(s.stageInput(f, {"input", inputs[f]}).ok());
        cmds[f] = vk().begin();
        RecordIO io;
        io.frame = f;
        io.shapes = {{"input", {1, 3, H, W}}};
        Status st = recordInference(s, cmds[f], io);
        ASSERT_TRUE(st.ok()) << st.toString();
    }
    for (uint32_t f : {1u, 0u}) {
        vk().submitAndWait(cmds[f]);
        auto out = s.readOutputs(f);
        ASSERT_TRUE(out.ok()) << out.status().toString();
        Tensor ref = referenceRun(inputs[f]);
        Comparison c = compareTensors(out->at(0).tensor, ref, Tolerance{1e-5, 1e-5, true});
        EXPECT_TRUE(c.pass) << "frame " << f << ": max error " << c.maxAbsError << " " << c.problem;
    }
}

// readOutputs returns only what the frame's last recording left in the readback staging: an
// output sent to a host image is not read back stale.
TEST_F(Interleaved, ReadOutputsRefusesOutputsSentElsewhere) {
    const uint32_t W = 16, H = 12;
    Context ctx = wrap();
    Session s = session(ctx);
    Image scene = vk().createImage(kRgba8, W, H);
    Image upscaled = vk().createImage(kRgba8, 2 * W, 2 * H);
    VkCommandBuffer cmd = vk().begin();
    drawPattern(cmd, scene, 0.5f);
    RecordIO io;
    io.imageInputs = {{"input", sampledInput(scene)}};
    io.imageOutputs = {{"output", storageOutput(upscaled)}};
    ASSERT_TRUE(recordInference(s, cmd, io).ok());
    vk().submitAndWait(cmd);
    auto out = s.readOutputs(0);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("nothing to read back"), std::string::npos) << out.status().message();
}

TEST_F(Interleaved, EngineOwnedIO) {
    const int64_t W = 32, H = 24;
    Context ctx = wrap(/*withQueue=*/false);
    Session s = session(ctx);
    for (int round = 0; round < 2; ++round) {
        Tensor input(DataType::Float32, {1, 3, H, W});
        for (int64_t i = 0; i < input.elementCount(); ++i)
            input.as<float>()[i] = 0.5f + 0.4f * std::cos(0.11f * float(i) * float(round + 1));
        Status st = s.stageInput(0, {"input", input});
        ASSERT_TRUE(st.ok()) << st.toString();
        VkCommandBuffer cmd = vk().begin();
        RecordIO io;
        io.shapes = {{"input", {1, 3, H, W}}};
        st = recordInference(s, cmd, io);
        ASSERT_TRUE(st.ok()) << st.toString();
        vk().submitAndWait(cmd);
        auto out = s.readOutputs(0);
        ASSERT_TRUE(out.ok()) << out.status().toString();
        ASSERT_EQ(out->size(), 1u);
        Tensor ref = referenceRun(input);
        const Tensor& got = out->at(0).tensor;
        ASSERT_EQ(got.shape(), ref.shape());
        size_t bad = 0;
        for (int64_t i = 0; i < ref.elementCount(); ++i)
            if (!(std::fabs(got.as<float>()[i] - ref.as<float>()[i]) <= 1e-5f + 1e-5f * std::fabs(ref.as<float>()[i])))
                ++bad;
        EXPECT_EQ(bad, 0u) << "round " << round << ": of " << ref.elementCount() << " values";
    }
}

// An input with a default (IR 4+: also an initializer) that nothing feeds takes its default;
// staged, it overrides it for that recording.
TEST_F(Interleaved, InputWithADefaultTakesItUnlessStaged) {
    OnnxBuilder b;
    b.input("x", {1, 4}).input("w", {4});
    b.initializer("w", floatTensor({4}, {1, 2, 3, 4}));
    b.node("Mul", {"x", "w"}, {"y"}, "scale");
    b.output("y");
    auto model = b.build();
    ASSERT_TRUE(model.ok()) << model.status().toString();
    Context ctx = wrap(/*withQueue=*/false);
    auto s = Session::create(ctx, *model);
    ASSERT_TRUE(s.ok()) << s.status().toString();
    auto record = [&](bool stageW) -> std::vector<float> {
        EXPECT_TRUE(s->stageInput(0, {"x", floatTensor({1, 4}, {10, 20, 30, 40})}).ok());
        if (stageW) {
            EXPECT_TRUE(s->stageInput(0, {"w", floatTensor({4}, {-1, 0, 0.5f, 2})}).ok());
        }
        VkCommandBuffer cmd = vk().begin();
        Status st = recordInference(*s, cmd, RecordIO{});
        EXPECT_TRUE(st.ok()) << st.toString();
        vk().submitAndWait(cmd);
        auto out = s->readOutputs(0);
        if (!out.ok()) {
            ADD_FAILURE() << out.status().toString();
            return {};
        }
        const Tensor& y = out->at(0).tensor;
        return {y.as<float>(), y.as<float>() + y.elementCount()};
    };
    EXPECT_EQ(record(false), (std::vector<float>{10, 40, 90, 160}));
    EXPECT_EQ(record(true), (std::vector<float>{-10, 0, 15, 80}));
}

// An index out of range in the host's command buffer: readOutputs and checkFrame fail naming
// the node after the host's fence, and the report is cleared for the frame's next run.
TEST_F(Interleaved, IndexOutOfRangeIsReportedAfterTheHostsFence) {
    OnnxBuilder b;
    b.input("x", {5, 2}).input("i", {3}, DataType::Int64);
    b.node("Gather", {"x", "i"}, {"y"}, "pick_rows");
    b.output("y");
    auto model = b.build();
    ASSERT_TRUE(model.ok()) << model.status().toString();
    Context ctx = wrap();
    auto s = Session::create(ctx, *model);
    ASSERT_TRUE(s.ok()) << s.status().toString();
    Tensor x = floatTensor({5, 2}, {0, 1, 10, 11, 20, 21, 30, 31, 40, 41});
    auto record = [&](std::vector<int64_t> indices) {
        EXPECT_TRUE(s->stageInput(0, {"x", x}).ok());
        EXPECT_TRUE(s->stageInput(0, {"i", testing::int64Tensor({3}, indices)}).ok());
        VkCommandBuffer cmd = vk().begin();
        Status st = recordInference(*s, cmd, RecordIO{});
        ASSERT_TRUE(st.ok()) << st.toString();
        vk().submitAndWait(cmd);
    };
    record({4, 5, 0});
    auto out = s->readOutputs(0);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), ErrorCode::InvalidArgument);
    EXPECT_NE(out.status().message().find("'pick_rows'"), std::string::npos) << out.status().message();
    EXPECT_NE(out.status().message().find("index 5 in 'i'"), std::string::npos) << out.status().message();
    EXPECT_TRUE(s->checkFrame(0).ok()) << "the report was cleared by readOutputs";

    record({-6, 1, 2});
    Status st = s->checkFrame(0);
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument) << st.toString();
    EXPECT_NE(st.message().find("index -6"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("extent 5"), std::string::npos) << st.message();

    record({-1, 1, 2});
    EXPECT_TRUE(s->checkFrame(0).ok());
    out = s->readOutputs(0);
    ASSERT_TRUE(out.ok()) << out.status().toString();
    const Tensor& y = out->at(0).tensor;
    EXPECT_EQ(std::vector<float>(y.as<float>(), y.as<float>() + 6), (std::vector<float>{40, 41, 10, 11, 20, 21}));
    EXPECT_EQ(s->checkFrame(1).code(), ErrorCode::InvalidArgument) << "frame 1 was never recorded";
}

// A recording that fails (here: a staged input of another shape than the recording's) must
// not leave half its work in a command buffer the host then discards: on a device without
// a queue the weights are uploaded by the first recording, and must still be by the next.
TEST_F(Interleaved, FailedRecordingLosesNothing) {
    const int64_t W = 32, H = 24;
    Context ctx = wrap(/*withQueue=*/false);
    Session s = session(ctx);
    RecordIO io;
    io.shapes = {{"input", {1, 3, H, W}}};

    Tensor wrong(DataType::Float32, {1, 3, H / 2, W / 2});
    ASSERT_TRUE(s.stageInput(0, {"input", wrong}).ok());
    VkCommandBuffer discarded = vk().begin();
    Status st = recordInference(s, discarded, io);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(st.message().find("'input'"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("1x3x12x16"), std::string::npos) << st.message();
    vkEndCommandBuffer(discarded);  // never submitted

    Tensor input(DataType::Float32, {1, 3, H, W});
    for (int64_t i = 0; i < input.elementCount(); ++i) input.as<float>()[i] = float(i % 97) / 97.0f;
    ASSERT_TRUE(s.stageInput(0, {"input", input}).ok());
    VkCommandBuffer cmd = vk().begin();
    st = recordInference(s, cmd, io);
    ASSERT_TRUE(st.ok()) << st.toString();
    vk().submitAndWait(cmd);
    auto out = s.readOutputs(0);
    ASSERT_TRUE(out.ok()) << out.status().toString();
    Tensor ref = referenceRun(input);
    size_t bad = 0;
    for (int64_t i = 0; i < ref.elementCount(); ++i)
        if (!(std::fabs(out->at(0).tensor.as<float>()[i] - ref.as<float>()[i]) <= 1e-5f + 1e-5f * std::fabs(ref.as<float>()[i])))
            ++bad;
    EXPECT_EQ(bad, 0u) << "of " << ref.elementCount() << " values (weights never uploaded?)";
}

// Two frames in flight: frame 0 and frame 1 recorded with different scenes and submitted
// before either is waited for; then frame 2 reuses slot 0 and its images.
TEST_F(Interleaved, TwoFramesInFlight) {
    const uint32_t W = 48, H = 32;
    Context ctx = wrap();
    SessionOptions opts;
    opts.framesInFlight = 2;
    Session s = session(ctx, opts);
    struct Slot {
        Image scene, upscaled;
        ImageState upscaledState{};  // UNDEFINED at first
    };
    Slot slots[2] = {{vk().createImage(kRgba8, W, H), vk().createImage(kRgba8, 2 * W, 2 * H)},
                     {vk().createImage(kRgba8, W, H), vk().createImage(kRgba8, 2 * W, 2 * H)}};
    struct Frame {
        VkCommandBuffer cmd;
        const Buffer* scene;
        const Buffer* upscaled;
        VkFence fence;
    };
    auto record = [&](uint32_t k) {
        Slot& slot = slots[k % 2];
        Frame f{};
        f.cmd = vk().begin();
        drawPattern(f.cmd, slot.scene, 0.17f * float(k + 1));
        RecordIO io;
        io.frame = k % 2;
        io.imageInputs = {{"input", sampledInput(slot.scene)}};
        ImageOutput out = storageOutput(slot.upscaled);
        out.before = slot.upscaledState;  // what this host did with it last frame
        io.imageOutputs = {{"output", out}};
        Status st = recordInference(s, f.cmd, io);
        EXPECT_TRUE(st.ok()) << "frame " << k << ": " << st.toString();
        f.scene = &vk().recordReadback(f.cmd, slot.scene, kAttachment);
        f.upscaled = &vk().recordReadback(f.cmd, slot.upscaled, kFragmentRead);
        slot.upscaledState = kTransferSrc;
        return f;
    };
    auto check = [&](uint32_t k, const Frame& f) {
        auto scenePx = pixelsRgba(HostVulkan::bytes(*f.scene), kRgba8, W, H);
        Tensor ref = referenceRun(imageTensor(scenePx, W, H));
        EXPECT_TRUE(imageMatches(HostVulkan::bytes(*f.upscaled), kRgba8, 2 * W, 2 * H, expectedPixels(ref, true)))
            << "frame " << k;
        return scenePx;
    };

    Frame f0 = record(0), f1 = record(1);
    f0.fence = vk().submit({f0.cmd});
    f1.fence = vk().submit({f1.cmd});
    vk().wait(f0.fence);
    vk().wait(f1.fence);
    auto scene0 = check(0, f0);
    auto scene1 = check(1, f1);
    EXPECT_NE(scene0, scene1) << "the two frames should have had different inputs";
    EXPECT_NE(HostVulkan::bytes(*f0.upscaled), HostVulkan::bytes(*f1.upscaled));

    Frame f2 = record(2);  // slot 0 again, its previous work finished (fence above)
    vk().submitAndWait(f2.cmd);
    check(2, f2);
}

// "after" UNDEFINED for an output: the image stays in GENERAL (interop.h), made visible to
// the stages the host names; here the host copies it out of GENERAL.
TEST_F(Interleaved, OutputAfterUndefinedStaysGeneral) {
    const uint32_t W = 32, H = 24;
    Context ctx = wrap();
    Session s = session(ctx);
    Image scene = vk().createImage(kRgba8, W, H);
    Image upscaled = vk().createImage(kRgba8, 2 * W, 2 * H);
    VkCommandBuffer cmd = vk().begin();
    drawPattern(cmd, scene, 0.8f);
    ImageOutput out = storageOutput(upscaled);
    out.after = {VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT};
    RecordIO io;
    io.imageInputs = {{"input", sampledInput(scene)}};
    io.imageOutputs = {{"output", out}};
    Status st = recordInference(s, cmd, io);
    ASSERT_TRUE(st.ok()) << st.toString();
    const Buffer& sceneBytes = vk().recordReadback(cmd, scene, kAttachment);
    // A layout mismatch here is reported by the validation layer at submission. (The access
    // is the one vkinfer made its writes visible to: the layout transition chains on it.)
    const Buffer& upscaledBytes = vk().recordReadback(
        cmd, upscaled, {VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT});
    vk().submitAndWait(cmd);
    Tensor ref = referenceRun(imageTensor(pixelsRgba(HostVulkan::bytes(sceneBytes), kRgba8, W, H), W, H));
    EXPECT_TRUE(imageMatches(HostVulkan::bytes(upscaledBytes), kRgba8, 2 * W, 2 * H, expectedPixels(ref, true)));
}

// Pre-processing mean/scale and post-processing scale/bias, as interop.h documents them.
// The scene is read as an RGBA8 storage image this time.
TEST_F(Interleaved, PreAndPostProcessing) {
    const uint32_t W = 48, H = 32;
    Context ctx = wrap();
    Session s = session(ctx);
    Image scene = vk().createImage(kRgba8, W, H);
    Image upscaled = vk().createImage(kRgba8, 2 * W, 2 * H);
    ASSERT_TRUE(scene.usage & VK_IMAGE_USAGE_STORAGE_BIT);

    ImageInput in = sampledInput(scene);
    in.access = ImageAccess::Storage;
    in.mean = {0.5f, 0.45f, 0.4f, 0.0f};
    in.scale = {1.8f, 2.2f, 1.5f, 1.0f};
    ImageOutput out = storageOutput(upscaled);
    out.scale = {0.5f, 0.8f, 0.3f, 1.0f};
    out.bias = {0.45f, 0.2f, 0.6f, 0.0f};

    VkCommandBuffer cmd = vk().begin();
    drawPattern(cmd, scene, 0.45f);
    RecordIO io;
    io.imageInputs = {{"input", in}};
    io.imageOutputs = {{"output", out}};
    Status st = recordInference(s, cmd, io);
    ASSERT_TRUE(st.ok()) << st.toString();
    const Buffer& sceneBytes = vk().recordReadback(cmd, scene, kAttachment);
    const Buffer& upscaledBytes = vk().recordReadback(cmd, upscaled, kFragmentRead);
    vk().submitAndWait(cmd);

    auto scenePx = pixelsRgba(HostVulkan::bytes(sceneBytes), kRgba8, W, H);
    Tensor ref = referenceRun(imageTensor(scenePx, W, H, in.mean, in.scale));
    auto expected = expectedPixels(ref, true, out.scale, out.bias);
    EXPECT_TRUE(imageMatches(HostVulkan::bytes(upscaledBytes), kRgba8, 2 * W, 2 * H, expected));
    // The comparison means something: most values are not clamped, and the processing changed
    // the result (the identity-processed image would differ).
    size_t inside = 0;
    for (size_t i = 0; i < expected.size(); ++i) inside += (i % 4 != 3) && expected[i] > 0.01f && expected[i] < 0.99f;
    const size_t rgbValues = expected.size() / 4 * 3;
    EXPECT_GT(inside, rgbValues * 3 / 4) << "of " << rgbValues;
    Tensor plain = referenceRun(imageTensor(scenePx, W, H));
    EXPECT_FALSE(imageMatches(HostVulkan::bytes(upscaledBytes), kRgba8, 2 * W, 2 * H, expectedPixels(plain, true), 3));
}

// Outputs with fewer than four channels: one channel is replicated to RGB, two fill R and G;
// channels the model does not produce are 0 (not the bias) and alpha is 1. The model is a
// 1x1 convolution to 1 or 2 channels, so the expected pixels follow from the scene directly.
TEST_F(Interleaved, OutputsWithOneOrTwoChannels) {
    const uint32_t W = 20, H = 12;
    Context ctx = wrap();
    for (int64_t channels : {1, 2}) {
        OnnxBuilder b;
        b.input("x", {1, 3, -1, -1}).output("y");
        std::vector<float> w = {0.5f, 0.25f, 0.125f, -0.25f, 0.5f, 0.75f};
        w.resize(static_cast<size_t>(channels * 3));
        b.initializer("w", floatTensor({channels, 3, 1, 1}, w));
        b.initializer("bias", floatTensor({channels}, std::vector<float>(static_cast<size_t>(channels), 0.1f)));
        b.node("Conv", {"x", "w", "bias"}, {"y"});
        auto model = b.build();
        ASSERT_TRUE(model.ok()) << model.status().toString();
        auto session = Session::create(ctx, *model);
        ASSERT_TRUE(session.ok()) << session.status().toString();

        Image scene = vk().createImage(kRgba8, W, H);
        Image result = vk().createImage(kRgba8, W, H);
        ImageOutput out = storageOutput(result);
        out.scale = {0.5f, 0.5f, 0.5f, 0.5f};
        out.bias = {0.2f, 0.2f, 0.2f, 0.2f};
        VkCommandBuffer cmd = vk().begin();
        drawPattern(cmd, scene, 0.3f);
        RecordIO io;
        io.imageInputs = {{"x", sampledInput(scene)}};
        io.imageOutputs = {{"y", out}};
        Status st = recordInference(*session, cmd, io);
        ASSERT_TRUE(st.ok()) << st.toString();
        const Buffer& sceneBytes = vk().recordReadback(cmd, scene, kAttachment);
        const Buffer& resultBytes = vk().recordReadback(cmd, result, kFragmentRead);
        vk().submitAndWait(cmd);

        auto px = pixelsRgba(HostVulkan::bytes(sceneBytes), kRgba8, W, H);
        Tensor y(DataType::Float32, {1, channels, H, W});
        for (size_t i = 0; i < size_t(W) * H; ++i)
            for (int64_t k = 0; k < channels; ++k)
                y.as<float>()[k * W * H + i] =
                    w[k * 3] * px[i * 4] + w[k * 3 + 1] * px[i * 4 + 1] + w[k * 3 + 2] * px[i * 4 + 2] + 0.1f;
        auto expected = expectedPixels(y, true, out.scale, out.bias);
        EXPECT_TRUE(imageMatches(HostVulkan::bytes(resultBytes), kRgba8, W, H, expected)) << channels << " channel(s)";
        // The layout the test expects: channels not produced are exactly 0, alpha exactly 1.
        auto got = pixelsRgba(HostVulkan::bytes(resultBytes), kRgba8, W, H);
        for (size_t i = 0; i < size_t(W) * H; ++i) {
            ASSERT_EQ(got[i * 4 + 3], 1.0f);
            if (channels == 2) {
                ASSERT_EQ(got[i * 4 + 2], 0.0f) << "pixel " << i;
            }
            if (channels == 1) {
                ASSERT_EQ(got[i * 4], got[i * 4 + 2]) << "pixel " << i;
            }
        }
    }
}

// The host keeps its graphics state across recordInference: it binds its pipeline, descriptor
// set, viewport, scissor and push constants before, and draws after without rebinding. Then
// it draws into the scene again with its other pipeline (the image is back in
// COLOR_ATTACHMENT_OPTIMAL, as "after" asked).
TEST_F(Interleaved, HostDrawsAfterRecordInference) {
    const uint32_t W = 48, H = 32;
    Context ctx = wrap();
    Session s = session(ctx);
    Image scene = vk().createImage(kRgba8, W, H);
    Image upscaled = vk().createImage(kRgba8, 2 * W, 2 * H);
    Image final = vk().createImage(kRgba8, 2 * W, 2 * H);
    Image sceneAgainRef = vk().createImage(kRgba8, W, H);

    // First capture the scene as rendered (reference for the upscale).
    VkCommandBuffer cmd = vk().begin();
    drawPattern(cmd, scene, 0.7f);
    const Buffer& sceneBytes = vk().recordReadback(cmd, scene, kAttachment);
    vk().submitAndWait(cmd);

    cmd = vk().begin();
    drawPattern(cmd, scene, 0.7f);
    float noPush[4] = {0, 0, 0, 0};
    sampler(kRgba8).bindState(cmd, final.width, final.height, noPush, {upscaled.view});  // before vkinfer
    RecordIO io;
    io.imageInputs = {{"input", sampledInput(scene)}};
    io.imageOutputs = {{"output", storageOutput(upscaled)}};
    Status st = recordInference(s, cmd, io);
    ASSERT_TRUE(st.ok()) << st.toString();
    sampler(kRgba8).beginPass(cmd, final);
    sampler(kRgba8).draw(cmd);  // state bound before recordInference
    sampler(kRgba8).endPass(cmd);
    drawPattern(cmd, scene, 0.2f);         // the next frame's scene, over the input image
    drawPattern(cmd, sceneAgainRef, 0.2f);  // the same, into a fresh image
    const Buffer& upscaledBytes = vk().recordReadback(cmd, upscaled, kAfterFragmentRead);
    const Buffer& finalBytes = vk().recordReadback(cmd, final, kAttachment);
    const Buffer& sceneAgain = vk().recordReadback(cmd, scene, kAttachment);
    const Buffer& sceneAgainExpected = vk().recordReadback(cmd, sceneAgainRef, kAttachment);
    vk().submitAndWait(cmd);

    Tensor ref = referenceRun(imageTensor(pixelsRgba(HostVulkan::bytes(sceneBytes), kRgba8, W, H), W, H));
    EXPECT_TRUE(imageMatches(HostVulkan::bytes(upscaledBytes), kRgba8, 2 * W, 2 * H, expectedPixels(ref, true)));
    EXPECT_EQ(HostVulkan::bytes(finalBytes), HostVulkan::bytes(upscaledBytes));
    EXPECT_EQ(HostVulkan::bytes(sceneAgain), HostVulkan::bytes(sceneAgainExpected));
    EXPECT_NE(HostVulkan::bytes(sceneAgain), HostVulkan::bytes(sceneBytes));
}

// ---------------------------------------------------------------------------------------
// Error paths: a failed Status that names the problem, and nothing recorded that breaks the
// command buffer (a correct recording follows in the same one).

TEST_F(Interleaved, WrapRejectsVulkan11) {
    HostDevice h = vk().hostDevice();
    h.apiVersion = VK_API_VERSION_1_1;
    auto c = wrapHostDevice(h);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), ErrorCode::Unsupported);
    EXPECT_NE(c.status().message().find("1.1"), std::string::npos) << c.status().message();
    EXPECT_NE(c.status().message().find("1.2"), std::string::npos) << c.status().message();
}

TEST_F(Interleaved, WrapRejectsMissingQueueFamily) {
    HostDevice h = vk().hostDevice();
    h.queueFamilyIndex = 7;
    auto c = wrapHostDevice(h);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), ErrorCode::InvalidArgument);
    EXPECT_NE(c.status().message().find("queue family 7"), std::string::npos) << c.status().message();
}

TEST_F(Interleaved, RunWithoutQueueNamesHostDeviceQueue) {
    Context ctx = wrap(/*withQueue=*/false);
    Session s = session(ctx);
    auto out = s.run({{"input", Tensor(DataType::Float32, {1, 3, 8, 8})}});
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("HostDevice::queue"), std::string::npos) << out.status().message();
}

TEST_F(Interleaved, RecordRejectsBadBindings) {
    const uint32_t W = 32, H = 24;
    Context ctx = wrap();
    Session s = session(ctx);
    Image scene = vk().createImage(kRgba8, W, H);
    Image upscaled = vk().createImage(kRgba8, 2 * W, 2 * H);
    Image wrongSize = vk().createImage(kRgba8, 100, 50);

    VkCommandBuffer cmd = vk().begin();
    drawPattern(cmd, scene, 0.9f);
    auto expectFailure = [&](const RecordIO& io, ErrorCode code, std::vector<std::string> mentions) {
        Status st = recordInference(s, cmd, io);
        EXPECT_FALSE(st.ok());
        EXPECT_EQ(st.code(), code) << st.toString();
        for (const auto& m : mentions) EXPECT_NE(st.message().find(m), std::string::npos) << "'" << m << "' in " << st.message();
    };
    {  // output image of the wrong size: both sizes named
        RecordIO io;
        io.imageInputs = {{"input", sampledInput(scene)}};
        io.imageOutputs = {{"output", storageOutput(wrongSize)}};
        expectFailure(io, ErrorCode::InvalidArgument, {"'output'", "1x3x48x64", "100x50"});
    }
    {  // the input's "before" layout would discard the scene
        RecordIO io;
        ImageInput in = sampledInput(scene);
        in.before = {};
        io.imageInputs = {{"input", in}};
        io.imageOutputs = {{"output", storageOutput(upscaled)}};
        expectFailure(io, ErrorCode::InvalidArgument, {"'input'", "UNDEFINED"});
    }
    {  // unknown input name: the model's names listed
        RecordIO io;
        io.imageInputs = {{"image", sampledInput(scene)}};
        expectFailure(io, ErrorCode::InvalidArgument, {"'image'", "'input'"});
    }
    {  // frame slot out of range
        RecordIO io;
        io.imageInputs = {{"input", sampledInput(scene)}};
        io.imageOutputs = {{"output", storageOutput(upscaled)}};
        io.frame = 1;
        expectFailure(io, ErrorCode::InvalidArgument, {"frame 1", "framesInFlight = 1"});
    }
    // The command buffer is intact: the correct recording works (the scene is still in
    // COLOR_ATTACHMENT_OPTIMAL, the output image still UNDEFINED).
    RecordIO io;
    io.imageInputs = {{"input", sampledInput(scene)}};
    io.imageOutputs = {{"output", storageOutput(upscaled)}};
    Status st = recordInference(s, cmd, io);
    ASSERT_TRUE(st.ok()) << st.toString();
    const Buffer& sceneBytes = vk().recordReadback(cmd, scene, kAttachment);
    const Buffer& upscaledBytes = vk().recordReadback(cmd, upscaled, kFragmentRead);
    vk().submitAndWait(cmd);
    Tensor ref = referenceRun(imageTensor(pixelsRgba(HostVulkan::bytes(sceneBytes), kRgba8, W, H), W, H));
    EXPECT_TRUE(imageMatches(HostVulkan::bytes(upscaledBytes), kRgba8, 2 * W, 2 * H, expectedPixels(ref, true)));
}

// ---------------------------------------------------------------------------------------
// Asynchronous compute (SessionOptions::queue = SessionQueue::AsyncCompute): the session on
// the compute queue the host named, a frame in three submissions ordered by semaphores. This
// host has one queue (a graphics family), so the session runs on it as the fallback; the
// transfers between two queue families are recorded by the demo's async pattern
// (vkinfer_demo --pattern async --check) where a device has a compute family.

// Ends `cmd` and submits it to the host's queue after `wait`, signaling `signal` and `fence`.
void submitOrdered(HostVulkan& vk, VkCommandBuffer cmd, VkSemaphore wait, VkSemaphore signal, VkFence fence) {
    if (vkEndCommandBuffer(cmd) != VK_SUCCESS) throw std::runtime_error("vkEndCommandBuffer");
    const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.waitSemaphoreCount = wait ? 1 : 0;
    si.pWaitSemaphores = &wait;
    si.pWaitDstStageMask = &stages;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    si.signalSemaphoreCount = signal ? 1 : 0;
    si.pSignalSemaphores = &signal;
    if (vkQueueSubmit(vk.queue, 1, &si, fence) != VK_SUCCESS) throw std::runtime_error("vkQueueSubmit");
}

TEST_F(Interleaved, AsyncComputeSessionRunsOnTheNamedQueueInItsOwnSubmission) {
    const uint32_t W = 40, H = 24;
    HostDevice h = vk().hostDevice();
    h.computeQueueFamilyIndex = vk().family;
    h.computeQueue = vk().queue;
    auto wrapped = wrapHostDevice(h);
    ASSERT_TRUE(wrapped.ok()) << wrapped.status().toString();
    SessionOptions options;
    options.queue = SessionQueue::AsyncCompute;
    Session s = session(*wrapped, options);
    EXPECT_EQ(s.queue().family, vk().family);
    EXPECT_TRUE(s.queue().fellBack) << "a family with graphics is reported as a fallback";
    EXPECT_TRUE(s.queue().hostQueue);
    EXPECT_NE(s.queue().description.find("is the host's own queue"), std::string::npos) << s.queue().description;
    EXPECT_EQ(wrapped->queue(SessionQueue::AsyncCompute).description, s.queue().description);
    EXPECT_FALSE(wrapped->queue(SessionQueue::Context).fellBack);

    Image scene = vk().createImage(kRgba8, W, H);
    Image upscaled = vk().createImage(kRgba8, 2 * W, 2 * H);
    // The other submissions' work is ordered by the semaphores: vkinfer's barriers start at
    // the top and end at the bottom of its pipe.
    ImageInput in = sampledInput(scene);
    in.before = {VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0};
    in.after = {VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0};
    ImageOutput out = storageOutput(upscaled);
    out.after = {VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0};
    RecordIO io;
    io.imageInputs = {{"input", in}};
    io.imageOutputs = {{"output", out}};

    VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    VkSemaphore rendered, inferred;
    ASSERT_EQ(vkCreateSemaphore(vk().device, &sci, nullptr, &rendered), VK_SUCCESS);
    ASSERT_EQ(vkCreateSemaphore(vk().device, &sci, nullptr, &inferred), VK_SUCCESS);
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence done;
    ASSERT_EQ(vkCreateFence(vk().device, &fci, nullptr, &done), VK_SUCCESS);

    VkCommandBuffer render = vk().begin();
    drawPattern(render, scene, 0.4f);
    Status st = recordReleaseToSession(s, render, io);  // nothing to release: one family
    ASSERT_TRUE(st.ok()) << st.toString();
    submitOrdered(vk(), render, VK_NULL_HANDLE, rendered, VK_NULL_HANDLE);
    VkCommandBuffer infer = vk().begin();
    st = recordInference(s, infer, io);
    ASSERT_TRUE(st.ok()) << st.toString();
    submitOrdered(vk(), infer, rendered, inferred, VK_NULL_HANDLE);
    VkCommandBuffer read = vk().begin();
    st = recordAcquireFromSession(s, read, io);
    ASSERT_TRUE(st.ok()) << st.toString();
    const ImageState afterInference{VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0};
    const Buffer& sceneBytes = vk().recordReadback(read, scene, afterInference);
    const Buffer& upscaledBytes = vk().recordReadback(read, upscaled, afterInference);
    submitOrdered(vk(), read, inferred, VK_NULL_HANDLE, done);
    ASSERT_EQ(vkWaitForFences(vk().device, 1, &done, VK_TRUE, UINT64_MAX), VK_SUCCESS);
    vkDestroyFence(vk().device, done, nullptr);
    vkDestroySemaphore(vk().device, rendered, nullptr);
    vkDestroySemaphore(vk().device, inferred, nullptr);

    auto scenePx = pixelsRgba(HostVulkan::bytes(sceneBytes), kRgba8, W, H);
    for (int c = 0; c < 3; ++c) ASSERT_GT(channelRange(scenePx, c), 0.5f) << "the host's pattern is missing, channel " << c;
    Tensor input = imageTensor(scenePx, W, H);
    Tensor ref = referenceRun(input);
    EXPECT_TRUE(imageMatches(HostVulkan::bytes(upscaledBytes), kRgba8, 2 * W, 2 * H, expectedPixels(ref, true)));
    // The session's own submissions (weights at prepare, Session::run) go to the compute queue.
    auto run = s.run({{"input", input}});
    ASSERT_TRUE(run.ok()) << run.status().toString();
    const Tensor& got = run->at(0).tensor;
    ASSERT_EQ(got.shape(), ref.shape());
    float worst = 0;
    for (int64_t i = 0; i < got.elementCount(); ++i)
        worst = std::max(worst, std::fabs(got.as<float>()[i] - ref.as<float>()[i]));
    EXPECT_LE(worst, 1e-5f) << "Session::run on the compute queue against the reference context's";
}

TEST_F(Interleaved, WrapChecksTheComputeQueue) {
    HostDevice h = vk().hostDevice();
    h.computeQueue = vk().queue;  // without its family
    auto noFamily = wrapHostDevice(h);
    ASSERT_FALSE(noFamily.ok());
    EXPECT_EQ(noFamily.status().code(), ErrorCode::InvalidArgument);
    EXPECT_NE(noFamily.status().message().find("computeQueueFamilyIndex"), std::string::npos)
        << noFamily.status().message();
    h.computeQueueFamilyIndex = 9;
    auto missing = wrapHostDevice(h);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.status().code(), ErrorCode::InvalidArgument);
    EXPECT_NE(missing.status().message().find("HostDevice::computeQueueFamilyIndex: queue family 9 does not exist"),
              std::string::npos)
        << missing.status().message();
    // Without one, an asynchronous-compute session falls back to the host's queue, saying so.
    Context ctx = wrap();
    EXPECT_TRUE(ctx.queue(SessionQueue::AsyncCompute).fellBack);
    EXPECT_NE(ctx.queue(SessionQueue::AsyncCompute).description.find("HostDevice::computeQueueFamilyIndex"),
              std::string::npos);
    Status empty = recordReleaseToSession(Session(), VK_NULL_HANDLE, RecordIO{});
    EXPECT_EQ(empty.code(), ErrorCode::InvalidArgument) << empty.toString();
}

}  // namespace
}  // namespace vkinfer
