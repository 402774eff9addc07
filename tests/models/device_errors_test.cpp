// What a session does when the device fails it: allocations that do not fit (the message
// names the tensor and the bytes, and the session stays usable for smaller shapes), and a lost
// device (every later call fails naming the loss; nothing crashes or hangs). Real failures are
// provoked where lavapipe allows (an arena beyond its 2 GiB allocation limit); the others
// through vk/fault_injection.h, which makes a Vulkan call return what a driver would.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "passes/cpu_reference.h"
#include "runtime/model_data.h"
#include "support/gpu_context.h"
#include "vk/fault_injection.h"

namespace vkinfer::testing {
namespace {

constexpr const char* kEspcn = VKINFER_SOURCE_DIR "/data/espcn_x2/model.onnx";

Model espcn() {
    auto m = Model::load(kEspcn);
    if (!m) throw std::runtime_error(m.status().toString());
    return std::move(m).value();
}

Tensor pattern(int64_t h, int64_t w) {
    Tensor t(DataType::Float32, {1, 3, h, w});
    for (int64_t i = 0; i < t.elementCount(); ++i) t.as<float>()[i] = 0.5f + 0.4f * std::sin(0.3f * float(i));
    return t;
}

// The session's result for `input` against the CPU reference of the same graph.
::testing::AssertionResult runsCorrectly(Session& s, const Model& model, const Tensor& input) {
    auto out = s.run({{"input", input}});
    if (!out) return ::testing::AssertionFailure() << out.status().toString();
    auto ref = passes::runOnCpu(model.data()->graph, {{"input", input}});
    const Tensor& got = out->at(0).tensor;
    if (got.shape() != ref[0].shape()) return ::testing::AssertionFailure() << "shape " << shapeToString(got.shape());
    for (int64_t i = 0; i < got.elementCount(); ++i) {
        float r = ref[0].as<float>()[i];
        if (!(std::fabs(got.as<float>()[i] - r) <= 1e-4f + 1e-4f * std::fabs(r)))
            return ::testing::AssertionFailure() << "element " << i << ": " << got.as<float>()[i] << " vs " << r;
    }
    return ::testing::AssertionSuccess();
}

bool mentions(const Status& s, const std::string& text) { return s.message().find(text) != std::string::npos; }

class DeviceErrors : public ::testing::Test {
protected:
    void SetUp() override { VKINFER_REQUIRE_GPU(); }
    void TearDown() override { vk::clearInjectedFailures(); }
};

// Every allocation of a first run fails in turn (weights, their staging, the arena, input and
// output buffers and their staging): each failure is OutOfMemory naming what and how many
// bytes, with the VkResult; afterwards the same session runs the same shapes correctly.
TEST_F(DeviceErrors, EachFailedAllocationNamesItsTensorAndTheSessionRecovers) {
    Model model = espcn();
    std::set<std::string> named;
    for (int skip = 0; skip < 12; ++skip) {
        auto s = Session::create(gpuContext(), model);
        ASSERT_TRUE(s.ok());
        vk::injectFailure("vkAllocateMemory", VK_ERROR_OUT_OF_DEVICE_MEMORY, skip);
        auto out = s->run({{"input", pattern(6, 10)}});
        vk::clearInjectedFailures();
        if (out.ok()) break;  // the run makes fewer than skip + 1 allocations
        const Status& st = out.status();
        EXPECT_EQ(st.code(), ErrorCode::OutOfMemory) << st.toString();
        EXPECT_EQ(st.vkResult(), VK_ERROR_OUT_OF_DEVICE_MEMORY) << st.toString();
        EXPECT_TRUE(mentions(st, "bytes for")) << st.message();
        EXPECT_TRUE(mentions(st, "VK_ERROR_OUT_OF_DEVICE_MEMORY")) << st.message();
        named.insert(st.message().substr(st.message().find("bytes for")));
        EXPECT_TRUE(runsCorrectly(*s, model, pattern(6, 10))) << "after the failure at allocation " << skip;
    }
    // Weights, weight staging, arena, input, input staging, output, output staging.
    EXPECT_GE(named.size(), 6u);
    bool sawWeights = false, sawArena = false;
    for (const auto& n : named) {
        sawWeights |= n.find("weights") != std::string::npos;
        sawArena |= n.find("arena") != std::string::npos;
    }
    EXPECT_TRUE(sawWeights && sawArena);
}

// A real limit: espcn's first layer at 3000x3000 needs an arena over 2 GiB, beyond lavapipe's
// maxMemoryAllocationSize. Where it does not fit the error names the arena and the bytes;
// smaller shapes run afterwards in the same session; and no device memory is left behind by
// the failed attempt.
TEST_F(DeviceErrors, ShapeTooLargeForTheDeviceFailsCleanly) {
    Model model = espcn();
    auto s = Session::create(gpuContext(), model);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(runsCorrectly(*s, model, pattern(8, 8)));
    uint64_t before = gpuContext().memoryStats().current.total();
    auto big = s->run({{"input", pattern(3000, 3000)}});
    if (big.ok()) GTEST_SKIP() << "this device runs a 2.3 GB arena";
    EXPECT_TRUE(big.status().code() == ErrorCode::OutOfMemory || big.status().code() == ErrorCode::Unsupported)
        << big.status().toString();
    EXPECT_TRUE(mentions(big.status(), "bytes")) << big.status().message();
    EXPECT_TRUE(runsCorrectly(*s, model, pattern(12, 7)));
    EXPECT_TRUE(runsCorrectly(*s, model, pattern(8, 8)));
    // The failed plan holds its weights at most (cached: it may fit later); no arena.
    MemoryStats m = gpuContext().memoryStats();
    EXPECT_LE(m.current.total(), before + 2 * m.current.weights + (1u << 20));
}

// A lost device: the call that saw it fails with DeviceLost; every later call on the context
// fails at once naming that first loss; destroying the session and the context is safe.
TEST_F(DeviceErrors, LostDeviceFailsEveryLaterCallAndShutsDownCleanly) {
    for (const char* call : {"vkQueueSubmit", "vkWaitForFences"}) {
        SCOPED_TRACE(call);
        ContextOptions co;
        co.validate = validationRequestedByEnvironment();
        auto ctx = Context::create(co);
        ASSERT_TRUE(ctx.ok()) << ctx.status().toString();
        Model model = espcn();
        auto s = Session::create(*ctx, model);
        ASSERT_TRUE(s.ok());
        ASSERT_TRUE(runsCorrectly(*s, model, pattern(8, 8)));
        vk::injectFailure(call, VK_ERROR_DEVICE_LOST);
        auto lost = s->run({{"input", pattern(8, 8)}});
        ASSERT_FALSE(lost.ok());
        EXPECT_EQ(lost.status().code(), ErrorCode::DeviceLost) << lost.status().toString();
        EXPECT_TRUE(mentions(lost.status(), "VK_ERROR_DEVICE_LOST")) << lost.status().message();
        EXPECT_TRUE(ctx->deviceLost());

        auto again = s->run({{"input", pattern(8, 8)}});
        EXPECT_EQ(again.status().code(), ErrorCode::DeviceLost);
        EXPECT_TRUE(mentions(again.status(), "was lost earlier")) << again.status().message();
        EXPECT_TRUE(mentions(again.status(), call)) << again.status().message();
        EXPECT_EQ(s->prepare({{"input", {1, 3, 16, 16}}}).code(), ErrorCode::DeviceLost);
        EXPECT_EQ(s->submit({{"input", pattern(8, 8)}}).status().code(), ErrorCode::DeviceLost);
        EXPECT_EQ(s->planJson({{"input", {1, 3, 8, 8}}}).status().code(), ErrorCode::DeviceLost);
        EXPECT_EQ(Session::create(*ctx, model).status().code(), ErrorCode::DeviceLost);
        // Destruction (end of scope) must neither hang nor crash; validation stays silent.
        EXPECT_TRUE(ctx->takeValidationMessages().empty());
    }
}

}  // namespace
}  // namespace vkinfer::testing
