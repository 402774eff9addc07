// Strided copies of at least ops::kSpecializedCopyElements elements, whose dims the kernel
// takes as specialization constants (shaders/copy_strided.comp) rather than push constants:
// DepthToSpace in both modes, a channels-last Transpose, a Concat (copies into a slice of the
// output) and a DepthToSpace that converts float16 to float32 (a Cast folded in), against the
// CPU reference, both sync modes, under validation; and each case's copy below the size, on
// the push-constant pipeline, for the same comparison.
#include "ops/emit.h"
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

OnnxBuilder depthToSpace(const Shape& x, const std::string& mode) {
    OnnxBuilder b;
    b.input("x", x).output("y");
    auto& d2s = b.node("DepthToSpace", {"x"}, {"y"}, "d2s");
    attr(d2s, "blocksize", int64_t{2});
    attr(d2s, "mode", mode);
    return b;
}

OnnxBuilder toChannelsLast(const Shape& x) {
    OnnxBuilder b;
    b.input("x", x).output("y");
    attr(b.node("Transpose", {"x"}, {"y"}, "nhwc"), "perm", std::vector<int64_t>{0, 2, 3, 1});
    return b;
}

OnnxBuilder concatWithItself(const Shape& x) {
    OnnxBuilder b;
    b.input("x", x).output("y");
    b.node("Relu", {"x"}, {"r"}, "relu");
    attr(b.node("Concat", {"x", "r"}, {"y"}, "concat"), "axis", int64_t{1});
    return b;
}

void expectCopiesMatch(const OnnxBuilder& b, const Shape& x, const std::string& what) {
    std::vector<NamedTensor> in{{"x", randomTensor(x, seedOf(what))}};
    expectGpuMatchesCpu(b, in, what, exactTolerance());
    // float16: the input rounded to 11 bits once (the copies move it unchanged).
    expectGpuMatchesCpu(b, in, what + " fp16", Tolerance{1e-3, 0, true}, Precision::Float16);
}

TEST(LargeStridedCopy, SpecializedDimsMatchTheCpu) {
    VKINFER_REQUIRE_GPU();
    const Shape large{1, 16, 258, 260};  // 1.07 M elements: 258 and 260 are no powers of two
    const Shape small{1, 16, 10, 12};
    ASSERT_GE(elementCount(large), ops::kSpecializedCopyElements);
    ASSERT_LT(elementCount(small), ops::kSpecializedCopyElements);
    for (const Shape& x : {large, small}) {
        const std::string size = shapeToString(x);
        expectCopiesMatch(depthToSpace(x, "CRD"), x, "DepthToSpace CRD " + size);
        expectCopiesMatch(depthToSpace(x, "DCR"), x, "DepthToSpace DCR " + size);
        expectCopiesMatch(toChannelsLast(x), x, "Transpose to NHWC " + size);
        expectCopiesMatch(concatWithItself(x), x, "Concat " + size);
    }
}

}  // namespace
}  // namespace vkinfer::testing
