// Strided copies whose innermost run is contiguous in both tensors move it as 16-byte words
// (copy_strided_b128), or as 4-byte words where the run, the strides and the offsets are whole
// 4-byte words but not 16-byte ones (ops/emit.cpp): ViT's [batch, tokens, channels] <->
// [tokens, batch, channels] Transposes, a Slice from an offset. Each case names the kernel its plan
// takes in float32 and float16 and compares the GPU against the CPU reference, exactly.
#include <algorithm>

#include "ops/conv_cases.h"
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

// x -> Relu -> Transpose(perm) -> Sigmoid: the copy sits between two float16 tensors in a
// float16 plan (a copy at the graph's edge would take the boundary Cast instead).
OnnxBuilder transposeBetween(const Shape& x, const std::vector<int64_t>& perm) {
    OnnxBuilder b;
    b.input("x", x).output("y");
    b.node("Relu", {"x"}, {"r"}, "relu");
    attr(b.node("Transpose", {"r"}, {"t"}, "transpose"), "perm", perm);
    b.node("Sigmoid", {"t"}, {"y"}, "sigmoid");
    return b;
}

// Relu(a)[:, 1:, :], then Sigmoid: the Slice is a copy that reads from an offset of a row.
OnnxBuilder sliceBetween(const Shape& a) {
    OnnxBuilder b;
    b.input("a", a).output("y");
    b.initializer("starts", int64Tensor({1}, {1}));
    b.initializer("ends", int64Tensor({1}, {a[1]}));
    b.initializer("axes", int64Tensor({1}, {1}));
    b.node("Relu", {"a"}, {"ra"}, "relu");
    b.node("Slice", {"ra", "starts", "ends", "axes"}, {"sl"}, "slice");
    b.node("Sigmoid", {"sl"}, {"y"}, "sigmoid");
    return b;
}

std::vector<std::string> copies(const OnnxBuilder& b, const InputShapes& shapes, Precision precision) {
    std::vector<std::string> out;
    for (const std::string& k : planKernels(b, shapes, DeviceDescription{}, precision))
        if (k.rfind("copy_strided", 0) == 0) out.push_back(k);
    return out;
}

struct WideCopyCase {
    std::string what;
    Shape x;
    std::vector<int64_t> perm;
    std::string fp32, fp16;  // the copy kernel each plan takes
};

TEST(WideCopy, ContiguousRunsMoveAsWords) {
    const std::vector<WideCopyCase> cases = {
        // 64 channels: 256 bytes in float32, 128 in float16.
        {"ViT's batch/token swap", {8, 20, 64}, {1, 0, 2}, "copy_strided_b128", "copy_strided_b128"},
        // 6 channels: 24 bytes (not 16-byte words; float32 is moved in 4-byte words anyway),
        // 12 bytes in float16: three 4-byte words.
        {"six channels", {3, 5, 6}, {1, 0, 2}, "copy_strided_b32", "copy_strided_b32"},
        // 3 channels: 6 bytes in float16, no whole word.
        {"three channels", {3, 5, 3}, {1, 0, 2}, "copy_strided_b32", "copy_strided_b16"},
        // The innermost dimension moves: no contiguous run.
        {"channels last", {2, 8, 3, 4}, {0, 2, 3, 1}, "copy_strided_b32", "copy_strided_b16"},
    };
    for (const WideCopyCase& c : cases) {
        SCOPED_TRACE(c.what);
        const OnnxBuilder b = transposeBetween(c.x, c.perm);
        EXPECT_EQ(copies(b, {{"x", c.x}}, Precision::Float32), std::vector<std::string>{c.fp32});
        EXPECT_EQ(copies(b, {{"x", c.x}}, Precision::Float16), std::vector<std::string>{c.fp16});
    }
}

TEST(WideCopy, SlicesAtOffsetsOfWholeWords) {
    // [2, 5, 8] from the second row: reads start 8 elements into rows of 40, runs of 32: whole
    // 16-byte words in both precisions.
    const OnnxBuilder aligned = sliceBetween({2, 5, 8});
    EXPECT_EQ(copies(aligned, {{"a", {2, 5, 8}}}, Precision::Float32), std::vector<std::string>{"copy_strided_b128"});
    EXPECT_EQ(copies(aligned, {{"a", {2, 5, 8}}}, Precision::Float16), std::vector<std::string>{"copy_strided_b128"});
    // [2, 5, 6]: 6 elements into rows of 30, runs of 24: 24 bytes in float32, 12 in float16,
    // whole 4-byte words only.
    const OnnxBuilder ragged = sliceBetween({2, 5, 6});
    EXPECT_EQ(copies(ragged, {{"a", {2, 5, 6}}}, Precision::Float32), std::vector<std::string>{"copy_strided_b32"});
    EXPECT_EQ(copies(ragged, {{"a", {2, 5, 6}}}, Precision::Float16), std::vector<std::string>{"copy_strided_b32"});
}

void expectMatches(const OnnxBuilder& b, std::vector<NamedTensor> in, const std::string& what) {
    expectGpuMatchesCpu(b, in, what, exactTolerance());
    // float16: rounded once on the way in, then Relu, the copy and Sigmoid in float16 storage.
    expectGpuMatchesCpu(b, in, what + " fp16", Tolerance{2e-3, 1e-3, true}, Precision::Float16);
}

TEST(WideCopy, WordsMatchTheCpu) {
    VKINFER_REQUIRE_GPU();
    // ViT-B/16's swap at batch 8 (1.2 M elements: the specialized pipeline) and the cases above.
    for (const Shape& x : std::vector<Shape>{{8, 197, 768}, {8, 20, 64}, {3, 5, 6}, {3, 5, 3}}) {
        const std::string what = "Transpose(1, 0, 2) of " + shapeToString(x);
        expectMatches(transposeBetween(x, {1, 0, 2}), {{"x", randomTensor(x, seedOf(what))}}, what);
    }
    for (const Shape& a : std::vector<Shape>{{2, 5, 8}, {2, 5, 6}}) {
        const std::string what = "Slice [:, 1:] of " + shapeToString(a);
        expectMatches(sliceBetween(a), {{"a", randomTensor(a, seedOf(what))}}, what);
    }
}

}  // namespace
}  // namespace vkinfer::testing
