// The pooling forms of pool_nd.comp: 3-D windows, uint8 MaxPool, MaxPool's Indices output
// with both storage orders.
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

OnnxBuilder poolModel(const std::string& op, const Shape& x, const Shape& kernel, const Shape& strides,
                      const Shape& pads, DataType type = DataType::Float32, bool indices = false,
                      int64_t storageOrder = 0) {
    OnnxBuilder b(12);
    b.input("x", x, type).output("y", type);
    if (indices) b.output("i", DataType::Int64);
    auto& n = b.node(op, {"x"}, indices ? std::vector<std::string>{"y", "i"} : std::vector<std::string>{"y"});
    attr(n, "kernel_shape", kernel);
    if (!strides.empty()) attr(n, "strides", strides);
    if (!pads.empty()) attr(n, "pads", pads);
    if (storageOrder) attr(n, "storage_order", storageOrder);
    return b;
}

TEST(PoolNdOp, ReferenceValues) {
    // 1x1x3x3 = 0..8 with a 2x2 window: maxima 4, 5, 7, 8 at those flat indices; column-major
    // (storage_order 1) counts down columns first: (1,1) -> 4, (1,2) -> 7, (2,1) -> 5, (2,2) -> 8.
    auto x = iotaTensor({1, 1, 3, 3});
    expectReferenceEquals(poolModel("MaxPool", {1, 1, 3, 3}, {2, 2}, {}, {}, DataType::Float32, true), {{"x", x}},
                          {floatTensor({1, 1, 2, 2}, {4, 5, 7, 8}), int64Tensor({1, 1, 2, 2}, {4, 5, 7, 8})},
                          "indices, row-major");
    expectReferenceEquals(poolModel("MaxPool", {1, 1, 3, 3}, {2, 2}, {}, {}, DataType::Float32, true, 1), {{"x", x}},
                          {floatTensor({1, 1, 2, 2}, {4, 5, 7, 8}), int64Tensor({1, 1, 2, 2}, {4, 7, 5, 8})},
                          "indices, column-major");
    // 3-D average of a 2x2x2 cube of 0..7.
    expectReferenceEquals(poolModel("AveragePool", {1, 1, 2, 2, 2}, {2, 2, 2}, {}, {}),
                          {{"x", iotaTensor({1, 1, 2, 2, 2})}}, {floatTensor({1, 1, 1, 1, 1}, {3.5f})}, "3-D average");
}

TEST(PoolNdOp, GpuMatchesCpu) {
    VKINFER_REQUIRE_GPU();
    Shape x3{2, 3, 6, 7, 5};
    for (const char* op : {"MaxPool", "AveragePool"}) {
        std::string o = op;
        expectGpuMatchesCpu(poolModel(o, x3, {2, 3, 2}, {2, 1, 2}, {1, 0, 1, 0, 1, 1}), {{"x", randomTensor(x3, 1)}},
                            o + " 3-D");
    }
    Shape x2{2, 3, 9, 8};
    auto data = randomTensor(x2, 2);
    expectGpuMatchesCpu(poolModel("MaxPool", x2, {3, 3}, {2, 2}, {1, 1, 1, 1}, DataType::Float32, true), {{"x", data}},
                        "indices row-major");
    expectGpuMatchesCpu(poolModel("MaxPool", x2, {2, 3}, {2, 1}, {}, DataType::Float32, true, 1), {{"x", data}},
                        "indices column-major");
    Tensor bytes(DataType::UInt8, x2);
    for (int64_t i = 0; i < bytes.elementCount(); ++i) bytes.as<uint8_t>()[i] = static_cast<uint8_t>((i * 37) % 251);
    expectGpuMatchesCpu(poolModel("MaxPool", x2, {3, 3}, {1, 2}, {1, 1, 1, 1}, DataType::UInt8), {{"x", bytes}},
                        "uint8 MaxPool");
}

}  // namespace
}  // namespace vkinfer::testing
