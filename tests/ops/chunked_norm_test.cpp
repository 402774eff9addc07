// Few long rows normalized in chunks (ops::normChunks, shaders/norm_split.comp: the chunks'
// statistics, then each row's combined and applied): InstanceNormalization over a whole
// feature map with a fused Relu, GroupNormalization with per-group (opset 18) and per-channel
// (opset 21) parameters, a LayerNormalization of long rows without bias, and GroupNorm as
// today's exporter writes it with its SiLU (one vkinfer.GroupNorm). Each on the chunked
// kernels (the plan says so), against the CPU reference in float32 and float16, both sync
// modes, under validation. Rows of distinct means and spreads, so that a wrong combination of
// the chunks' statistics shows.
#include <algorithm>

#include "ops/conv_cases.h"
#include "ops/normalization.h"
#include "ops/op_harness.h"
#include "support/small_models.h"

namespace vkinfer::testing {
namespace {

// float16 storage, float32 statistics: the input and output rounded to 11 bits.
const Tolerance kFp16{5e-3, 5e-3, true};

// Values with a mean and spread that change along the tensor (row by row and within rows).
Tensor driftingTensor(const Shape& shape, uint32_t seed) {
    Tensor t = randomTensor(shape, seed, -1, 1);
    float* v = t.as<float>();
    const int64_t n = t.elementCount();
    for (int64_t i = 0; i < n; ++i) {
        const float at = static_cast<float>(i) / static_cast<float>(n);
        v[i] = v[i] * (0.5f + 3 * at) + 10 * at - 2;
    }
    return t;
}

void expectChunked(const OnnxBuilder& b, const std::vector<NamedTensor>& in, const std::string& what) {
    SCOPED_TRACE(what);
    InputShapes shapes;
    for (const auto& t : in) shapes.emplace_back(t.name, t.tensor.shape());
    const auto kernels = planKernels(b, shapes, DeviceDescription{}, Precision::Float32);
    EXPECT_NE(std::find(kernels.begin(), kernels.end(), "norm_split_partial_f32"), kernels.end()) << what;
    EXPECT_NE(std::find(kernels.begin(), kernels.end(), "norm_split_apply_f32"), kernels.end()) << what;
    expectGpuMatchesCpu(b, in, what);
    expectGpuMatchesCpu(b, in, what + " fp16", kFp16, Precision::Float16);
}

TEST(ChunkedNormOp, InstanceNormOverAFeatureMapWithRelu) {
    VKINFER_REQUIRE_GPU();
    const Shape x{1, 4, 160, 161};  // 4 rows of 25760: 6 chunks, the last shorter
    ASSERT_GT(ops::normChunks(4, 160 * 161), 1);
    OnnxBuilder m(6);
    m.input("x", x).output("y");
    m.initializer("s", randomTensor({4}, 1, 0.5f, 1.5f)).initializer("b", randomTensor({4}, 2));
    attr(m.node("InstanceNormalization", {"x", "s", "b"}, {"n"}), "epsilon", 1e-5f);
    m.node("Relu", {"n"}, {"y"});
    expectChunked(m, {{"x", driftingTensor(x, 3)}}, "InstanceNorm + Relu " + shapeToString(x));
}

TEST(ChunkedNormOp, GroupNormPerGroupAndPerChannel) {
    VKINFER_REQUIRE_GPU();
    const Shape x{2, 16, 96, 100};  // 2 x 4 groups of 4 channels: rows of 38400
    for (const int64_t opset : {18, 21}) {
        const int64_t params = opset == 18 ? 4 : 16;
        OnnxBuilder m(opset);
        m.input("x", x).output("y");
        m.initializer("s", randomTensor({params}, 4, 0.5f, 1.5f)).initializer("b", randomTensor({params}, 5));
        auto& n = m.node("GroupNormalization", {"x", "s", "b"}, {"y"});
        attr(n, "num_groups", int64_t{4});
        attr(n, "epsilon", 1e-3f);
        expectChunked(m, {{"x", driftingTensor(x, 6)}}, "GroupNormalization opset " + std::to_string(opset));
    }
}

TEST(ChunkedNormOp, LongLayerNormRowsWithoutBias) {
    VKINFER_REQUIRE_GPU();
    const Shape x{3, 20480};
    OnnxBuilder m(17);
    m.input("x", x).output("y");
    m.initializer("scale", randomTensor({20480}, 7, 0.5f, 1.5f));
    attr(m.node("LayerNormalization", {"x", "scale"}, {"y"}), "axis", int64_t{1});
    expectChunked(m, {{"x", driftingTensor(x, 8)}}, "LayerNorm 3 x 20480");
}

TEST(ChunkedNormOp, GroupNormAsExportedWithSilu) {
    VKINFER_REQUIRE_GPU();
    const Shape x{1, 32, 72, 80};  // 8 groups of 4 channels: rows of 23040
    expectChunked(groupNormAsExported(x, 8, true, true), {{"x", driftingTensor(x, 9)}}, "GroupNorm + SiLU as exported");
}

}  // namespace
}  // namespace vkinfer::testing
