// Pad (constant, edge, reflect, wrap; attribute and input forms, axes, negative pads, any
// element size), Expand (bidirectional broadcast) and Tile (including more dimensions than
// one strided copy walks).
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

OnnxBuilder padModel(const Shape& x, const Shape& pads, const std::string& mode, const Tensor* value = nullptr,
                     const Shape& axes = {}, DataType type = DataType::Float32) {
    OnnxBuilder b(axes.empty() ? 13 : 18);
    b.input("x", x, type).output("y", type);
    b.initializer("pads", int64Tensor({static_cast<int64_t>(pads.size())}, pads));
    std::vector<std::string> in{"x", "pads"};
    if (value) b.initializer("value", *value);
    in.push_back(value ? "value" : "");
    if (!axes.empty()) {
        b.initializer("axes", int64Tensor({static_cast<int64_t>(axes.size())}, axes));
        in.push_back("axes");
    }
    attr(b.node("Pad", in, {"y"}), "mode", mode);
    return b;
}

TEST(PadOp, ReferenceValues) {
    auto x = floatTensor({4}, {1, 2, 3, 4});
    auto v = floatTensor({}, {9});
    expectReferenceEquals(padModel({4}, {2, 1}, "constant", &v), {{"x", x}}, {floatTensor({7}, {9, 9, 1, 2, 3, 4, 9})},
                          "constant 9");
    expectReferenceEquals(padModel({4}, {2, 1}, "edge"), {{"x", x}}, {floatTensor({7}, {1, 1, 1, 2, 3, 4, 4})}, "edge");
    expectReferenceEquals(padModel({4}, {3, 2}, "reflect"), {{"x", x}}, {floatTensor({9}, {4, 3, 2, 1, 2, 3, 4, 3, 2})},
                          "reflect");
    expectReferenceEquals(padModel({4}, {-1, 2}, "constant"), {{"x", x}}, {floatTensor({5}, {2, 3, 4, 0, 0})},
                          "negative begin pad crops");
    auto x2 = floatTensor({2, 3}, {1, 2, 3, 4, 5, 6});
    expectReferenceEquals(padModel({2, 3}, {1, 1}, "wrap", nullptr, {1}), {{"x", x2}},
                          {floatTensor({2, 5}, {3, 1, 2, 3, 1, 6, 4, 5, 6, 4})}, "wrap along axis 1 (opset 18 axes)");
}

TEST(PadOp, GpuMatchesCpu) {
    VKINFER_REQUIRE_GPU();
    Shape x{2, 3, 5, 6};
    auto data = randomTensor(x, 7);
    auto v = floatTensor({}, {-1.5f});
    for (const char* mode : {"constant", "edge", "reflect", "wrap"}) {
        std::string m = mode;
        expectGpuMatchesCpu(padModel(x, {0, 0, 2, 3, 0, 0, 4, 1}, m, &v), {{"x", data}}, m + " spatial pads");
        expectGpuMatchesCpu(padModel(x, {1, 0, -2, 1, 0, 2, 1, -3}, m, &v), {{"x", data}},
                            m + " mixed and negative pads");
    }
    // 8-byte and 1-byte elements, with a non-zero constant in both words.
    Tensor big(DataType::Int64, {3, 4});
    for (int64_t i = 0; i < 12; ++i) big.as<int64_t>()[i] = (i - 5) * 0x100000001LL;
    auto bigValue = Tensor::fromVector(DataType::Int64, {}, std::vector<int64_t>{-0x300000007LL});
    expectGpuMatchesCpu(padModel({3, 4}, {1, 2, 0, 1}, "constant", &bigValue, {}, DataType::Int64), {{"x", big}},
                        "int64 constant");
    expectGpuMatchesCpu(padModel({3, 4}, {2, 3, 2, 3}, "reflect", nullptr, {}, DataType::Int64), {{"x", big}},
                        "int64 reflect");
    Tensor bytes(DataType::UInt8, {5, 3});
    for (int64_t i = 0; i < 15; ++i) bytes.as<uint8_t>()[i] = static_cast<uint8_t>(i * 11);
    auto byteValue = Tensor::fromVector(DataType::UInt8, {}, std::vector<uint8_t>{200});
    expectGpuMatchesCpu(padModel({5, 3}, {0, 1, 3, 2}, "constant", &byteValue, {}, DataType::UInt8), {{"x", bytes}},
                        "uint8 constant");
    expectGpuMatchesCpu(padModel({5, 3}, {1, 2, 1, 2}, "edge", nullptr, {}, DataType::UInt8), {{"x", bytes}},
                        "uint8 edge");
}

TEST(PadOp, Opset2Attributes) {
    OnnxBuilder b(10);
    b.input("x", {2, 2}).output("y");
    auto& n = b.node("Pad", {"x"}, {"y"});
    attr(n, "pads", Shape{0, 1, 1, 0});
    attr(n, "value", 5.0f);
    expectReferenceEquals(b, {{"x", floatTensor({2, 2}, {1, 2, 3, 4})}},
                          {floatTensor({3, 3}, {5, 1, 2, 5, 3, 4, 5, 5, 5})}, "opset 10 pads attribute");
}

// ---- Expand, Tile ----

OnnxBuilder expandModel(const Shape& x, const Shape& shape, DataType type = DataType::Float32) {
    OnnxBuilder b;
    b.input("x", x, type).output("y", type);
    b.initializer("shape", int64Tensor({static_cast<int64_t>(shape.size())}, shape));
    b.node("Expand", {"x", "shape"}, {"y"});
    return b;
}

TEST(ExpandOp, ReferenceAndGpu) {
    expectReferenceEquals(expandModel({3, 1}, {2, 1, 2}), {{"x", floatTensor({3, 1}, {1, 2, 3})}},
                          {floatTensor({2, 3, 2}, {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3})}, "3x1 to 2x3x2");
    VKINFER_REQUIRE_GPU();
    expectGpuMatchesCpu(expandModel({1, 4, 1, 6}, {3, 1, 5, 1}), {{"x", randomTensor({1, 4, 1, 6}, 1)}},
                        "bidirectional");
    expectGpuMatchesCpu(expandModel({5}, {1}), {{"x", randomTensor({5}, 2)}}, "target smaller than input");
    Tensor big(DataType::Int64, {2, 1});
    big.as<int64_t>()[0] = -3;
    big.as<int64_t>()[1] = 0x123456789LL;
    expectGpuMatchesCpu(expandModel({2, 1}, {2, 7}, DataType::Int64), {{"x", big}}, "int64");
}

OnnxBuilder tileModel(const Shape& x, const Shape& repeats, DataType type = DataType::Float32) {
    OnnxBuilder b;
    b.input("x", x, type).output("y", type);
    b.initializer("r", int64Tensor({static_cast<int64_t>(repeats.size())}, repeats));
    b.node("Tile", {"x", "r"}, {"y"});
    return b;
}

TEST(TileOp, ReferenceAndGpu) {
    expectReferenceEquals(tileModel({2, 2}, {2, 3}), {{"x", floatTensor({2, 2}, {1, 2, 3, 4})}},
                          {floatTensor({4, 6}, {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,  //
                                                1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4})},
                          "2x2 tiled 2x3");
    VKINFER_REQUIRE_GPU();
    // Four repeated axes: 8 dimensions that do not merge, more than one copy walks.
    expectGpuMatchesCpu(tileModel({2, 3, 4, 5}, {2, 3, 2, 2}), {{"x", randomTensor({2, 3, 4, 5}, 3)}},
                        "rank 4, every axis repeated");
    expectGpuMatchesCpu(tileModel({3, 5}, {1, 4}), {{"x", randomTensor({3, 5}, 4)}}, "one axis repeated");
    Tensor bytes(DataType::UInt8, {3, 3});
    for (int64_t i = 0; i < 9; ++i) bytes.as<uint8_t>()[i] = static_cast<uint8_t>(i + 1);
    expectGpuMatchesCpu(tileModel({3, 3}, {2, 5}, DataType::UInt8), {{"x", bytes}}, "uint8");
}

}  // namespace
}  // namespace vkinfer::testing
