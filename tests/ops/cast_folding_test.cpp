// Casts between float32 and float16 folded into the copy next to them (passes/cast_folding.h):
// the plans (float16 precision's boundary Casts go into the input's Pad and the output's
// DepthToSpace; a Cast with another reader stays; a float32 -> float16 -> float32 round trip
// keeps one conversion), and on the GPU the result bit for bit what the Casts give: every
// element the float16 rounding of the input (round to nearest even), moved, with the Pad's
// constant written in the output's type. Both sync modes, under validation.
#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/half.h"
#include "ops/conv_cases.h"
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

const Shape kX{1, 4, 6, 10};

// x -> Pad(`mode`; constant `value`) -> DepthToSpace(2) -> y: an upscaler's boundary without
// its convolutions.
OnnxBuilder padThenShuffle(const std::string& mode, float value = 0.3f) {
    OnnxBuilder b;
    b.input("x", kX).output("y");
    b.initializer("pads", int64Tensor({8}, {0, 0, 1, 2, 0, 0, 1, 0}));
    b.initializer("value", floatTensor({}, {value}));
    attr(b.node("Pad", {"x", "pads", "value"}, {"p"}, "pad"), "mode", mode);
    auto& d2s = b.node("DepthToSpace", {"p"}, {"y"}, "d2s");
    attr(d2s, "blocksize", int64_t{2});
    attr(d2s, "mode", std::string("CRD"));
    return b;
}

// x -> Cast(float16) -> Transpose -> Cast(float32) -> y, written out in the model.
OnnxBuilder explicitRoundTrip() {
    OnnxBuilder b;
    b.input("x", kX).output("y");
    attr(b.node("Cast", {"x"}, {"h"}, "to_half"), "to", int64_t(DataType::Float16));
    attr(b.node("Transpose", {"h"}, {"t"}, "transpose"), "perm", std::vector<int64_t>{0, 2, 3, 1});
    attr(b.node("Cast", {"t"}, {"y"}, "to_float"), "to", int64_t(DataType::Float32));
    return b;
}

int64_t count(const std::vector<std::string>& kernels, const std::string& prefix) {
    return std::count_if(kernels.begin(), kernels.end(),
                         [&](const std::string& k) { return k.rfind(prefix, 0) == 0; });
}

TEST(CastFolding, Float16BoundaryCastsGoIntoThePadAndTheShuffle) {
    for (const DeviceDescription& dev : {DeviceDescription{}, h200Description()}) {
        auto kernels = planKernels(padThenShuffle("constant"), {{"x", kX}}, dev, Precision::Float16);
        EXPECT_EQ(kernels, (std::vector<std::string>{"pad_f32_f16", "copy_strided_f16_f32"}))
            << ::testing::PrintToString(kernels);
        // Turned off (VKINFER_FOLD_CASTS=off): the Casts run on their own.
        DeviceDescription unfolded = dev;
        unfolded.kernels.foldCasts = false;
        kernels = planKernels(padThenShuffle("constant"), {{"x", kX}}, unfolded, Precision::Float16);
        EXPECT_EQ(count(kernels, "cast_"), 2) << ::testing::PrintToString(kernels);
        EXPECT_EQ(count(kernels, "pad_b16") + count(kernels, "copy_strided_b16"), 2)
            << ::testing::PrintToString(kernels);
        // float32: nothing to fold.
        kernels = planKernels(padThenShuffle("constant"), {{"x", kX}}, dev, Precision::Float32);
        EXPECT_EQ(kernels, (std::vector<std::string>{"pad_b32", "copy_strided_b32"}));
    }
}

// The plan names the copies that convert: Pad+Cast, DepthToSpace+Cast.
TEST(CastFolding, ThePlanNamesTheFoldedCast) {
    auto report = planReport(padThenShuffle("constant"), {{"x", kX}}, DeviceDescription{}, Precision::Float16);
    ASSERT_TRUE(report.contains("schedule")) << report.dump();
    std::vector<std::string> ops;
    for (const auto& d : report["schedule"]) ops.push_back(d["op"]);
    EXPECT_EQ(ops, (std::vector<std::string>{"Pad+Cast", "DepthToSpace+Cast"}));
}

// The shipped upscaler at 1080p in float16 on the H200 as described (tensor-core convs,
// channels-last activations) and on lavapipe: no Cast dispatch left, its input converted by
// its two Pads, its output by the final DepthToSpace: on the H200 the head conv stores it
// (conv2d_cmd: shuffled, float32, its residual read unshuffled), on lavapipe a copy.
TEST(CastFolding, TheShippedUpscalerHasNoCastDispatch) {
    auto model = Model::load(std::string(VKINFER_SOURCE_DIR) + "/data/upscaler_x2/model.onnx");
    ASSERT_TRUE(model.ok()) << model.status().toString();
    for (const DeviceDescription& dev : {h200Description(), DeviceDescription{}}) {
        PlanOptions o;
        o.precision = Precision::Float16;
        o.device = dev.facts;
        o.kernels = dev.kernels;
        auto json = planJson(*model, {{"input", {1, 3, 1080, 1920}}}, o);
        ASSERT_TRUE(json.ok()) << json.status().toString();
        std::vector<std::string> kernels;
        const nlohmann::json plan = nlohmann::json::parse(*json);
        for (const auto& d : plan["schedule"]) kernels.push_back(d["kernel"]);
        SCOPED_TRACE(::testing::PrintToString(kernels));
        EXPECT_EQ(count(kernels, "cast_"), 0);
        EXPECT_EQ(count(kernels, "pad_f32_f16"), 2);
        const bool h200 = dev.facts.cooperativeMatrix16;
        EXPECT_EQ(count(kernels, "copy_strided_f16_f32"), h200 ? 0 : 1);
        EXPECT_EQ(kernels.size(), h200 ? 9u : 10u);
        if (h200) {
            EXPECT_EQ(kernels.back(), "conv2d_cmd16x64_res_nv");
        }
    }
}

TEST(CastFolding, ARoundTripKeepsOneConversion) {
    // float32 -> float16 -> float32 rounds: the Transpose takes one Cast, the other stays.
    auto kernels = planKernels(explicitRoundTrip(), {{"x", kX}}, DeviceDescription{}, Precision::Float32);
    EXPECT_EQ(count(kernels, "cast_"), 1) << ::testing::PrintToString(kernels);
    EXPECT_EQ(count(kernels, "copy_strided_f32_f16") + count(kernels, "copy_strided_f16_f32"), 1)
        << ::testing::PrintToString(kernels);
}

TEST(CastFolding, ACastWithAnotherReaderStays) {
    OnnxBuilder b;
    b.input("x", kX).output("y").output("r");
    attr(b.node("Cast", {"x"}, {"h"}, "to_half"), "to", int64_t(DataType::Float16));
    attr(b.node("Transpose", {"h"}, {"y"}, "transpose"), "perm", std::vector<int64_t>{0, 2, 3, 1});
    attr(b.node("Concat", {"h", "h"}, {"r"}, "concat"), "axis", int64_t{1});  // not a copy of h alone
    auto kernels = planKernels(b, {{"x", kX}}, DeviceDescription{}, Precision::Float32);
    EXPECT_EQ(count(kernels, "cast_f32_f16"), 1) << ::testing::PrintToString(kernels);
    EXPECT_EQ(count(kernels, "copy_strided_f32_f16"), 0) << ::testing::PrintToString(kernels);
}

// Values whose float16 rounding is not exact and includes ties, subnormals and overflow.
Tensor awkwardInput() {
    Tensor x = iotaTensor(kX, -3.1f, 0.0371f);
    float* v = x.as<float>();
    v[0] = 1.0f + 1.0f / 2048.0f;  // a tie: rounds to even (1.0)
    v[1] = 1.0f + 3.0f / 2048.0f;  // a tie: rounds up to even
    v[2] = 3.0e-6f;                // a float16 subnormal
    v[3] = 70000.0f;               // past float16's largest: inf
    v[4] = -1e-9f;                 // underflows to -0
    return x;
}

// Runs `b` on the GPU at `precision` in both sync modes; returns output 0 of the minimal run
// after checking the conservative one equals it bit for bit.
Tensor runOnGpu(const OnnxBuilder& b, const Tensor& x, Precision precision) {
    SessionOptions o;
    o.precision = precision;
    return runInBothSyncModes(b, {{"x", x}}, o);
}

// The input as float16 rounds it (core/half.h: round to nearest even, as the Cast kernel).
Tensor roundedToHalf(const Tensor& x) {
    Tensor r = x;
    for (int64_t i = 0; i < r.elementCount(); ++i) r.as<float>()[i] = halfToFloat(floatToHalf(x.as<float>()[i]));
    return r;
}

TEST(CastFolding, PadAndShuffleConvertBitForBitOnTheGpu) {
    VKINFER_REQUIRE_GPU();
    const Tensor x = awkwardInput();
    for (const char* mode : {"constant", "reflect", "edge"}) {
        SCOPED_TRACE(mode);
        OnnxBuilder b = padThenShuffle(mode);
        // The reference: the float32 model on the CPU fed the float16-rounded input, with the
        // constant rounded too (float16 precision narrows it).
        OnnxBuilder rounded = padThenShuffle(mode, halfToFloat(floatToHalf(0.3f)));
        auto expected = cpuReference(rounded, {{"x", roundedToHalf(x)}}, "pad+shuffle");
        ASSERT_EQ(expected.size(), 1u);
        Tensor y = runOnGpu(b, x, Precision::Float16);
        ASSERT_EQ(y.shape(), expected[0].shape());
        EXPECT_EQ(std::memcmp(y.data(), expected[0].data(), y.byteSize()), 0)
            << "float16 precision's boundary, folded, differs from the Casts' rounding";
    }
}

TEST(CastFolding, RoundTripRoundsOnceOnTheGpu) {
    VKINFER_REQUIRE_GPU();
    const Tensor x = awkwardInput();
    Tensor y = runOnGpu(explicitRoundTrip(), x, Precision::Float32);
    // Transposed [1, 6, 10, 4] of the rounded input: not a plain copy of x.
    Tensor r = roundedToHalf(x);
    ASSERT_EQ(y.shape(), (Shape{1, 6, 10, 4}));
    int64_t differs = 0;
    for (int64_t c = 0; c < 4; ++c)
        for (int64_t i = 0; i < 60; ++i) {
            float got = y.as<float>()[i * 4 + c], want = r.as<float>()[c * 60 + i];
            ASSERT_EQ(std::memcmp(&got, &want, 4), 0) << "channel " << c << " pixel " << i;
            differs += want != x.as<float>()[c * 60 + i];
        }
    EXPECT_GT(differs, 0) << "the input must not be exact in float16 for this check to mean anything";
}

}  // namespace
}  // namespace vkinfer::testing
