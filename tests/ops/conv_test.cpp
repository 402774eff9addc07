#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

TEST(ConvOp, SmokePaddedWithBias) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder b;
    b.input("x", {1, 3, 7, 9}).output("y");
    b.initializer("w", randomTensor({5, 3, 3, 3}, 1)).initializer("b", randomTensor({5}, 2));
    auto& n = b.node("Conv", {"x", "w", "b"}, {"y"});
    attr(n, "pads", std::vector<int64_t>{1, 1, 1, 1});
    expectGpuMatchesCpu(b, {{"x", randomTensor({1, 3, 7, 9}, 3)}}, "conv 3x3 pad 1");
}

}  // namespace
}  // namespace vkinfer::testing
