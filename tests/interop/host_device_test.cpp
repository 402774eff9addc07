// A host's own device: what vkinfer checks when it wraps it (features the host enabled, the
// API version it states), what it tells the host to enable (queryDeviceRequirements), and
// weight uploads that survive recordings the host discards. The host is the interop tests'
// HostVulkan (validation with synchronization validation when VKINFER_VALIDATE=1); any
// message on its instance fails the test.
#include <gtest/gtest.h>
#include <vkinfer/interop.h>
#include <vkinfer/vkinfer.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "interop/support/host_vulkan.h"
#include "interop/support/vk_queries.h"
#include "support/gpu_context.h"
#include "support/onnx_builder.h"

namespace vkinfer {
namespace {

using hostvk::HostOptions;
using hostvk::HostVulkan;
using testing::OnnxBuilder;

constexpr const char* kEspcn = VKINFER_DATA_DIR "/espcn_x2/model.onnx";

bool mentions(const Status& s, const std::string& text) { return s.message().find(text) != std::string::npos; }

// y = x + x for an integer type: the GPU runs the typed binary kernel of that type.
Model integerAddModel(DataType type) {
    OnnxBuilder b;
    b.input("x", {2, 5}, type).output("y", type);
    b.node("Add", {"x", "x"}, {"y"}, "double_it");
    auto m = b.build();
    if (!m) throw std::runtime_error(m.status().toString());
    return std::move(m).value();
}

class HostDeviceTest : public ::testing::Test {
protected:
    void SetUp() override { VKINFER_REQUIRE_GPU(); }
    void TearDown() override {
        host_.reset();
        if (log_) EXPECT_TRUE(log_->peek().empty()) << "validation messages on the host's instance:\n" << log_->text();
    }
    HostVulkan& host(HostOptions o = {}) {
        log_ = std::make_shared<hostvk::MessageLog>();
        o.log = log_;
        host_ = std::make_unique<HostVulkan>(o);
        return *host_;
    }
    static Context wrap(const HostDevice& h) {
        auto c = wrapHostDevice(h);
        if (!c) throw std::runtime_error("wrapHostDevice: " + c.status().toString());
        return std::move(c).value();
    }

private:
    std::shared_ptr<hostvk::MessageLog> log_;
    std::unique_ptr<HostVulkan> host_;
};

// The harness's plain host enables timeline semaphores and two image features, not shaderInt64
// nor 8-bit storage: kernels that need them must fail at prepare, naming feature and node,
// instead of creating pipelines the device was not enabled for (validation reported
// VUID-VkShaderModuleCreateInfo-pCode-01091 before).
TEST_F(HostDeviceTest, KernelsNeedingFeaturesTheHostDidNotEnableFailAtPrepare) {
    HostVulkan& vk = host();
    Context ctx = wrap(vk.hostDevice());
    struct Case {
        DataType type;
        const char* feature;
    };
    for (const Case& c : {Case{DataType::Int64, "shaderInt64"}, Case{DataType::UInt8, "storageBuffer8BitAccess"}}) {
        auto s = Session::create(ctx, integerAddModel(c.type));
        ASSERT_TRUE(s.ok()) << s.status().toString();
        Status st = s->prepare({});
        ASSERT_FALSE(st.ok()) << dataTypeName(c.type);
        EXPECT_EQ(st.code(), ErrorCode::Unsupported) << st.toString();
        EXPECT_TRUE(mentions(st, c.feature)) << st.message();
        EXPECT_TRUE(mentions(st, "node 'double_it' (Add)")) << st.message();
        EXPECT_TRUE(mentions(st, "queryDeviceRequirements")) << st.message();
    }
    SessionOptions fp16;
    fp16.precision = Precision::Float16;
    auto model = Model::load(kEspcn);
    ASSERT_TRUE(model.ok());
    auto s = Session::create(ctx, *model, fp16);
    ASSERT_TRUE(s.ok());
    Status st = s->prepare({{"input", {1, 3, 8, 8}}});
    EXPECT_EQ(st.code(), ErrorCode::Unsupported) << st.toString();
    EXPECT_TRUE(mentions(st, "storageBuffer16BitAccess")) << st.message();
}

// A host that creates its device from queryDeviceRequirements gets everything vkinfer uses that
// the device offers; the same int64 and uint8 kernels then run and match the CPU.
TEST_F(HostDeviceTest, DeviceCreatedFromRequirementsRunsTheKernels) {
    HostOptions o;
    o.useRequirements = true;
    HostVulkan& vk = host(o);
    const auto& items = vk.requirements->items();
    ASSERT_FALSE(items.empty());
    for (const auto& item : items) {
        EXPECT_FALSE(item.name.empty());
        EXPECT_FALSE(item.where.empty()) << item.name;
        EXPECT_FALSE(item.enables.empty()) << item.name;
        EXPECT_TRUE(!item.enable || item.supported) << item.name << " enabled but not supported";
    }
    auto item = [&](const std::string& name) {
        auto it = std::find_if(items.begin(), items.end(), [&](const DeviceRequirement& r) { return r.name == name; });
        return it == items.end() ? nullptr : &*it;
    };
    for (const char* name : {"shaderInt64", "storageBuffer8BitAccess", "storageBuffer16BitAccess", "shaderFloat16",
                             VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME}) {
        ASSERT_NE(item(name), nullptr) << name << " is not listed";
    }
    // What the device offers, as its own query says, is what the chain enables.
    VkPhysicalDeviceFeatures have;
    vkGetPhysicalDeviceFeatures(vk.physical, &have);
    EXPECT_EQ(item("shaderInt64")->supported, bool(have.shaderInt64));
    EXPECT_EQ(bool(vk.requirements->featureChain()->features.shaderInt64), bool(have.shaderInt64));
    const auto& names = vk.requirements->extensionNames();
    EXPECT_EQ(names.size(), vk.requirements->extensions().size());

    Context ctx = wrap(vk.hostDevice());
    for (DataType type : {DataType::Int64, DataType::UInt8}) {
        if (type == DataType::Int64 && !have.shaderInt64) continue;
        auto s = Session::create(ctx, integerAddModel(type));
        ASSERT_TRUE(s.ok());
        Tensor x(type, {2, 5});
        for (int64_t i = 0; i < 10; ++i) {
            if (type == DataType::Int64) x.as<int64_t>()[i] = (int64_t(1) << 40) + i * 7 - 30;
            else x.as<uint8_t>()[i] = static_cast<uint8_t>(i * 25);
        }
        auto out = s->run({{"x", x}});
        ASSERT_TRUE(out.ok()) << dataTypeName(type) << ": " << out.status().toString();
        const Tensor& y = out->at(0).tensor;
        for (int64_t i = 0; i < 10; ++i) {
            if (type == DataType::Int64) EXPECT_EQ(y.as<int64_t>()[i], 2 * x.as<int64_t>()[i]) << i;
            else EXPECT_EQ(y.as<uint8_t>()[i], static_cast<uint8_t>(2 * x.as<uint8_t>()[i])) << i;
        }
    }
}

// VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR: Debian 12's headers predate it.
constexpr auto kCooperativeMatrixFeaturesKhr = static_cast<VkStructureType>(1000506000);

bool chainHas(const VkPhysicalDeviceFeatures2* chain, VkStructureType type) {
    for (auto* s = reinterpret_cast<const VkBaseInStructure*>(chain); s; s = s->pNext)
        if (s->sType == type) return true;
    return false;
}

// A host under a validation layer older than VK_KHR_cooperative_matrix (Debian 12's 1.3.239)
// asks with validationLayerEnabled: the KHR structure and extension are left out (the layer
// would report them at vkCreateDevice) and the NV one stays where offered; with a newer
// layer, or without the option, nothing changes. The device is then created from that chain.
TEST_F(HostDeviceTest, RequirementsLeaveOutWhatTheValidationLayerDoesNotKnow) {
    HostVulkan& vk = host();
    auto plain = queryDeviceRequirements(vk.physical);
    auto validating = queryDeviceRequirements(vk.physical, {.validationLayerEnabled = true});
    ASSERT_TRUE(plain.ok() && validating.ok()) << plain.status().toString() << validating.status().toString();
    const uint32_t spec = testing::instanceLayerSpecVersion("VK_LAYER_KHRONOS_validation");
    const bool oldLayer = spec != 0 && spec < VK_MAKE_API_VERSION(0, 1, 3, 255);
    auto enabled = [](const DeviceRequirements& r, const std::string& name) {
        for (const auto& i : r.items())
            if (i.name == name && i.where == "device extension") return i.enable;
        return false;
    };
    const std::string khr = "VK_KHR_cooperative_matrix", nv = "VK_NV_cooperative_matrix";
    EXPECT_EQ(enabled(*validating, khr), enabled(*plain, khr) && !oldLayer) << "layer spec " << spec;
    EXPECT_EQ(chainHas(validating->featureChain(), kCooperativeMatrixFeaturesKhr),
              enabled(*validating, khr));
    const auto& names = validating->extensionNames();
    EXPECT_EQ(std::count(names.begin(), names.end(), khr), enabled(*validating, khr) ? 1 : 0);
    for (const auto& i : validating->items())
        if (i.name == nv && i.where == "device extension") EXPECT_EQ(i.enable, i.supported) << "NV stays where offered";
    std::printf("validation layer spec %u.%u.%u; KHR coopmat: plain %d, validating %d; NV %d\n",
                VK_API_VERSION_MAJOR(spec), VK_API_VERSION_MINOR(spec), VK_API_VERSION_PATCH(spec),
                int(enabled(*plain, khr)), int(enabled(*validating, khr)), int(enabled(*validating, nv)));
}

TEST_F(HostDeviceTest, ApiVersionMustBeStated) {
    HostVulkan& vk = host();
    HostDevice h = vk.hostDevice();
    h.apiVersion = 0;
    auto c = wrapHostDevice(h);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(mentions(c.status(), "HostDevice::apiVersion")) << c.status().message();
    EXPECT_EQ(HostDevice{}.apiVersion, 0u) << "no default that can lie";
}

// shareableIO on a device without external memory fails at Session::create, not at export.
TEST_F(HostDeviceTest, ShareableIoWithoutExternalMemoryFailsAtCreate) {
    HostOptions o;
    o.externalMemoryFd = false;
    HostVulkan& vk = host(o);
    Context ctx = wrap(vk.hostDevice());
    auto model = Model::load(kEspcn);
    ASSERT_TRUE(model.ok());
    SessionOptions so;
    so.shareableIO = true;
    auto s = Session::create(ctx, *model, so);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), ErrorCode::Unsupported);
    EXPECT_TRUE(mentions(s.status(), VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)) << s.status().message();
    EXPECT_TRUE(mentions(s.status(), "shareableIO")) << s.status().message();
}

TEST_F(HostDeviceTest, TimelineExportSaysWhyNot) {
    HostVulkan& vk = host();
    Context ctx = wrap(vk.hostDevice());
    auto model = Model::load(kEspcn);
    auto s = Session::create(ctx, *model);
    ASSERT_TRUE(s.ok());
    auto fd = exportTimelineSemaphore(*s);
    if (fd.ok()) GTEST_SKIP() << "this device exports timeline semaphores";
    EXPECT_EQ(fd.status().code(), ErrorCode::Unsupported);
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(vk.physical, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> exts(n);
    vkEnumerateDeviceExtensionProperties(vk.physical, nullptr, &n, exts.data());
    bool offered = std::any_of(exts.begin(), exts.end(), [](const VkExtensionProperties& e) {
        return std::string(e.extensionName) == VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;
    });
    EXPECT_TRUE(mentions(fd.status(), offered ? "was not enabled" : "does not offer VK_KHR_external_semaphore_fd"))
        << fd.status().message();
    EXPECT_FALSE(mentions(fd.status(), "is not enabled")) << fd.status().message();
}

// ---------------------------------------------------------------------------------------
// Recordings the host never submits.

// The reference: the same model on the tests' own context.
Tensor reference(const Model& model, const Tensor& input) {
    auto s = Session::create(testing::gpuContext(), model);
    if (!s) throw std::runtime_error(s.status().toString());
    auto out = s->run({{"input", input}});
    if (!out) throw std::runtime_error(out.status().toString());
    return std::move(out->at(0).tensor);
}

Tensor pattern(int64_t h, int64_t w, float phase) {
    Tensor t(DataType::Float32, {1, 3, h, w});
    for (int64_t i = 0; i < t.elementCount(); ++i) t.as<float>()[i] = 0.5f + 0.45f * std::sin(0.13f * float(i) + phase);
    return t;
}

::testing::AssertionResult matches(const Tensor& got, const Tensor& ref) {
    if (got.shape() != ref.shape()) return ::testing::AssertionFailure() << "shape " << shapeToString(got.shape());
    size_t bad = 0;
    for (int64_t i = 0; i < ref.elementCount(); ++i)
        if (!(std::fabs(got.as<float>()[i] - ref.as<float>()[i]) <= 1e-5f + 1e-5f * std::fabs(ref.as<float>()[i]))) ++bad;
    if (bad) return ::testing::AssertionFailure() << bad << " of " << ref.elementCount() << " values differ";
    return ::testing::AssertionSuccess();
}

enum class Discard { Reset, Free };

class DiscardedRecording : public HostDeviceTest, public ::testing::WithParamInterface<Discard> {};

// The defect: on a device wrapped without a queue, the first recording of a slot carried the
// weight upload and the upload was marked done when recorded. A host that threw that command
// buffer away (a resize, a skipped frame) got wrong results from then on, with no error.
// Here: record, throw away (reset, or free), record the slot again, submit, compare; then
// twice more on the same slot (the upload is known done by then) with other inputs.
TEST_P(DiscardedRecording, WeightsStillReachTheGpu) {
    HostVulkan& vk = host();
    Context ctx = wrap(vk.hostDevice(/*withQueue=*/false));
    auto model = Model::load(kEspcn);
    ASSERT_TRUE(model.ok());
    auto s = Session::create(ctx, *model);
    ASSERT_TRUE(s.ok());
    const int64_t H = 12, W = 20;

    Tensor first = pattern(H, W, 0.0f);
    ASSERT_TRUE(s->stageInput(0, {"input", first}).ok());
    VkCommandBuffer cmd = vk.begin();
    ASSERT_TRUE(recordInference(*s, cmd, {}).ok());  // shapes from the staged tensor
    if (GetParam() == Discard::Reset) {
        ASSERT_EQ(vkResetCommandBuffer(cmd, 0), VK_SUCCESS);
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        ASSERT_EQ(vkBeginCommandBuffer(cmd, &bi), VK_SUCCESS);
    } else {
        vkEndCommandBuffer(cmd);
        vkFreeCommandBuffers(vk.device, vk.pool, 1, &cmd);
        cmd = vk.begin();
    }
    // No new stageInput: the staged data of the discarded recording is not lost either.
    RecordIO io;
    ASSERT_TRUE(recordInference(*s, cmd, io).ok());
    vk.submitAndWait(cmd);
    auto out = s->readOutputs(0);
    ASSERT_TRUE(out.ok()) << out.status().toString();
    EXPECT_TRUE(matches(out->at(0).tensor, reference(*model, first))) << "after the discarded recording";

    for (float phase : {1.0f, 2.0f}) {
        Tensor in = pattern(H, W, phase);
        ASSERT_TRUE(s->stageInput(0, {"input", in}).ok());
        VkCommandBuffer next = vk.begin();
        ASSERT_TRUE(recordInference(*s, next, io).ok());
        vk.submitAndWait(next);
        auto o = s->readOutputs(0);
        ASSERT_TRUE(o.ok());
        EXPECT_TRUE(matches(o->at(0).tensor, reference(*model, in))) << "phase " << phase;
    }
}

INSTANTIATE_TEST_SUITE_P(HostDevice, DiscardedRecording, ::testing::Values(Discard::Reset, Discard::Free),
                         [](const auto& info) { return info.param == Discard::Reset ? "Reset" : "Free"; });

// Frames in flight: slot 0's first recording is discarded, slot 1's is submitted, then slot 0
// is recorded again and submitted: both frames are right.
TEST_F(HostDeviceTest, DiscardedRecordingInOneOfTwoSlots) {
    HostVulkan& vk = host();
    Context ctx = wrap(vk.hostDevice(/*withQueue=*/false));
    auto model = Model::load(kEspcn);
    SessionOptions so;
    so.framesInFlight = 2;
    auto s = Session::create(ctx, *model, so);
    ASSERT_TRUE(s.ok());
    Tensor in0 = pattern(8, 16, 0.5f), in1 = pattern(8, 16, 3.0f);
    RecordIO io0, io1;
    io1.frame = 1;
    ASSERT_TRUE(s->stageInput(0, {"input", in0}).ok());
    VkCommandBuffer thrown = vk.begin();
    ASSERT_TRUE(recordInference(*s, thrown, io0).ok());
    vkEndCommandBuffer(thrown);
    vkFreeCommandBuffers(vk.device, vk.pool, 1, &thrown);

    ASSERT_TRUE(s->stageInput(1, {"input", in1}).ok());
    VkCommandBuffer c1 = vk.begin();
    ASSERT_TRUE(recordInference(*s, c1, io1).ok());
    VkCommandBuffer c0 = vk.begin();
    ASSERT_TRUE(recordInference(*s, c0, io0).ok());
    VkFence f1 = vk.submit({c1});
    VkFence f0 = vk.submit({c0});
    vk.wait(f1);
    vk.wait(f0);
    auto o0 = s->readOutputs(0), o1 = s->readOutputs(1);
    ASSERT_TRUE(o0.ok() && o1.ok());
    EXPECT_TRUE(matches(o0->at(0).tensor, reference(*model, in0))) << "frame slot 0";
    EXPECT_TRUE(matches(o1->at(0).tensor, reference(*model, in1))) << "frame slot 1";
}

// A dynamic model recorded with a staged input and no RecordIO::shapes takes the staged shape;
// with neither, the message names the API, not a CLI flag.
TEST_F(HostDeviceTest, DynamicShapesComeFromStagedInputs) {
    HostVulkan& vk = host();
    Context ctx = wrap(vk.hostDevice());
    auto model = Model::load(kEspcn);
    auto s = Session::create(ctx, *model);
    ASSERT_TRUE(s.ok());
    VkCommandBuffer cmd = vk.begin();
    Status st = recordInference(*s, cmd, {});
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(mentions(st, "RecordIO::shapes")) << st.message();
    EXPECT_TRUE(mentions(st, "stageInput")) << st.message();
    EXPECT_FALSE(mentions(st, "--shape")) << st.message();

    Tensor in = pattern(10, 14, 0.25f);
    ASSERT_TRUE(s->stageInput(0, {"input", in}).ok());
    ASSERT_TRUE(recordInference(*s, cmd, {}).ok());
    vk.submitAndWait(cmd);
    auto out = s->readOutputs(0);
    ASSERT_TRUE(out.ok()) << out.status().toString();
    EXPECT_TRUE(matches(out->at(0).tensor, reference(*model, in)));
}

TEST_F(HostDeviceTest, UnsupportedImageFormatIsNamed) {
    HostVulkan& vk = host();
    Context ctx = wrap(vk.hostDevice());
    auto model = Model::load(kEspcn);
    auto s = Session::create(ctx, *model);
    ASSERT_TRUE(s.ok());
    // Not among sharedImageFormats() (R32_SFLOAT is, since single-channel images are read).
    hostvk::Image img = vk.createImage(VK_FORMAT_R8G8_UNORM, 16, 8, VK_IMAGE_USAGE_SAMPLED_BIT);
    ImageInput in;
    in.image = img.host();
    in.before = {VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT};
    RecordIO io;
    io.imageInputs = {{"input", in}};
    VkCommandBuffer cmd = vk.begin();
    Status st = recordInference(*s, cmd, io);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.code(), ErrorCode::Unsupported);
    EXPECT_TRUE(mentions(st, "VK_FORMAT_R8G8_UNORM")) << st.message();
    vkEndCommandBuffer(cmd);
}

}  // namespace
}  // namespace vkinfer
