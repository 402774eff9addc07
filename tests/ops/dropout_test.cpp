// Dropout at inference: the identity (a view), its mask output all true (a constant, no GPU
// work); training mode with a non-zero ratio is refused rather than run as the identity.
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

OnnxBuilder dropoutModel(bool mask, const Tensor* ratio, const Tensor* training) {
    OnnxBuilder b(13);
    b.input("x", {2, 4}).output("y");
    if (mask) b.output("m", DataType::Bool);
    std::vector<std::string> in{"x"};
    if (ratio) b.initializer("r", *ratio);
    if (ratio || training) in.push_back(ratio ? "r" : "");
    if (training) {
        b.initializer("t", *training);
        in.push_back("t");
    }
    b.node("Dropout", in, mask ? std::vector<std::string>{"y", "m"} : std::vector<std::string>{"y"});
    return b;
}

Tensor boolScalar(bool v) {
    return Tensor::fromVector(DataType::Bool, {}, std::vector<uint8_t>{v ? uint8_t{1} : uint8_t{0}});
}

TEST(DropoutOp, InferenceAndMask) {
    // 2x4: a bool graph output whose byte size is not a multiple of 4 comes back with a
    // wrong tail from the engine's output copy (copy_words; see the ops report), not from Dropout.
    auto x = iotaTensor({2, 4});
    Tensor ones = Tensor::fromVector(DataType::Bool, {2, 4}, std::vector<uint8_t>(8, 1));
    auto half = floatTensor({}, {0.5f});
    auto off = boolScalar(false);
    expectReferenceEquals(dropoutModel(true, &half, &off), {{"x", x}}, {x, ones}, "inference with mask");
    // Training mode with ratio 0 keeps everything.
    auto zero = floatTensor({}, {0.0f});
    auto on = boolScalar(true);
    expectReferenceEquals(dropoutModel(true, &zero, &on), {{"x", x}}, {x, ones}, "training, ratio 0");
    expectUnsupported(dropoutModel(false, &half, &on), {{"x", x}}, "training, ratio 0.5");
    expectUnsupported(dropoutModel(false, nullptr, &on), {{"x", x}}, "training, default ratio");
}

}  // namespace
}  // namespace vkinfer::testing
