// Slice (opset 1 attributes and opset 10+ inputs, negative steps, clamping), Split (attribute,
// input, num_outputs with an uneven last chunk), Gather (constant and run-time indices, any
// axis, negative indices), GatherElements, GatherND, ScatterElements and ScatterND.
#include <limits>

#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

Tensor int64Iota(const Shape& shape, int64_t start = 0) {
    Tensor t(DataType::Int64, shape);
    for (int64_t i = 0; i < t.elementCount(); ++i) t.as<int64_t>()[i] = start + i * 1000003;  // both words vary
    return t;
}

// Slice with constant starts/ends/axes/steps (empty axes/steps: omitted).
OnnxBuilder sliceModel(const Shape& x, const Shape& starts, const Shape& ends, const Shape& axes, const Shape& steps,
                       DataType type = DataType::Float32) {
    OnnxBuilder b;
    b.input("x", x, type).output("y", type);
    auto vec = [](const Shape& v) { return int64Tensor({static_cast<int64_t>(v.size())}, v); };
    b.initializer("starts", vec(starts)).initializer("ends", vec(ends));
    std::vector<std::string> in{"x", "starts", "ends"};
    if (!axes.empty() || !steps.empty()) {
        if (!axes.empty()) b.initializer("axes", vec(axes));
        in.push_back(axes.empty() ? "" : "axes");
    }
    if (!steps.empty()) {
        b.initializer("steps", vec(steps));
        in.push_back("steps");
    }
    b.node("Slice", in, {"y"});
    return b;
}

TEST(SliceOp, ReferenceValues) {
    // x = 0..11 as 3x4.
    auto x = iotaTensor({3, 4});
    expectReferenceEquals(sliceModel({3, 4}, {0, 1}, {2, 4}, {}, {1, 2}), {{"x", x}},
                          {floatTensor({2, 2}, {1, 3, 5, 7})}, "rows 0-1, odd columns");
    expectReferenceEquals(sliceModel({3, 4}, {-1}, {kMin}, {1}, {-1}), {{"x", x}},
                          {floatTensor({3, 4}, {3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8})}, "reversed columns");
    expectReferenceEquals(sliceModel({3, 4}, {10, -100}, {kMax, 2}, {1, 0}, {}), {{"x", x}}, {floatTensor({2, 0}, {})},
                          "start past the end: empty");
    expectReferenceEquals(sliceModel({3, 4}, {2, 3}, {0, -10}, {0, 1}, {-2, -3}), {{"x", x}},
                          {floatTensor({1, 2}, {11, 8})}, "negative steps with clamped end");
}

TEST(SliceOp, GpuMatchesCpu) {
    VKINFER_REQUIRE_GPU();
    Shape x{2, 5, 6, 7};
    auto run = [&](const std::string& what, const Shape& s, const Shape& e, const Shape& a, const Shape& st) {
        expectGpuMatchesCpu(sliceModel(x, s, e, a, st), {{"x", randomTensor(x, seedOf(what))}}, what);
    };
    run("inner window", {1, 2}, {5, 6}, {2, 3}, {});
    run("steps on every axis", {0, 1, 0, 6}, {2, 5, 6, 0}, {0, 1, 2, 3}, {1, 2, 3, -2});
    run("negative axes and ends", {-3}, {-1}, {-2}, {});
    run("full reverse", {kMax, kMax, kMax, kMax}, {kMin, kMin, kMin, kMin}, {0, 1, 2, 3}, {-1, -1, -1, -1});
    run("out of bounds clamped", {-100, 3}, {100, 1000}, {1, 3}, {1, 1});
    // 8-byte and 1-byte elements.
    expectGpuMatchesCpu(sliceModel({4, 9}, {1, 8}, {4, 0}, {0, 1}, {2, -3}, DataType::Int64),
                        {{"x", int64Iota({4, 9})}}, "int64 slice");
    Tensor bytes(DataType::UInt8, {5, 11});
    for (int64_t i = 0; i < bytes.elementCount(); ++i) bytes.as<uint8_t>()[i] = static_cast<uint8_t>(i * 7);
    expectGpuMatchesCpu(sliceModel({5, 11}, {4, 1}, {kMin, 10}, {0, 1}, {-1, 2}, DataType::UInt8), {{"x", bytes}},
                        "uint8 slice");
}

TEST(SliceOp, Opset1Attributes) {
    OnnxBuilder b(9);
    b.input("x", {3, 4}).output("y");
    auto& n = b.node("Slice", {"x"}, {"y"});
    attr(n, "starts", Shape{1, -2});
    attr(n, "ends", Shape{1000, kMax});
    attr(n, "axes", Shape{0, 1});
    expectReferenceEquals(b, {{"x", iotaTensor({3, 4})}}, {floatTensor({2, 2}, {6, 7, 10, 11})}, "opset 9 Slice");
}

TEST(SplitOp, ReferenceAndGpu) {
    {
        OnnxBuilder b;
        b.input("x", {6}).output("a").output("b");
        b.initializer("split", int64Tensor({2}, {2, 4}));
        b.node("Split", {"x", "split"}, {"a", "b"});
        expectReferenceEquals(b, {{"x", iotaTensor({6}, 1)}},
                              {floatTensor({2}, {1, 2}), floatTensor({4}, {3, 4, 5, 6})}, "split input 2+4");
    }
    {
        // Opset 18 num_outputs: 7 into ceil-sized chunks 3, 3, 1.
        OnnxBuilder b(18);
        b.input("x", {2, 7}).output("a").output("b").output("c");
        auto& n = b.node("Split", {"x"}, {"a", "b", "c"});
        attr(n, "axis", int64_t{1});
        attr(n, "num_outputs", int64_t{3});
        expectReferenceEquals(b, {{"x", iotaTensor({2, 7})}},
                              {floatTensor({2, 3}, {0, 1, 2, 7, 8, 9}), floatTensor({2, 3}, {3, 4, 5, 10, 11, 12}),
                               floatTensor({2, 1}, {6, 13})},
                              "num_outputs uneven");
    }
    {
        OnnxBuilder b(11);
        b.input("x", {3, 8, 5}).output("a").output("b").output("c");
        auto& n = b.node("Split", {"x"}, {"a", "b", "c"});
        attr(n, "axis", int64_t{-2});
        attr(n, "split", Shape{1, 5, 2});
        if (gpuAvailable()) expectGpuMatchesCpu(b, {{"x", randomTensor({3, 8, 5}, 3)}}, "opset 11 split attribute");
    }
    {
        OnnxBuilder b;
        b.input("x", {4, 6}, DataType::Int64).output("a", DataType::Int64).output("b", DataType::Int64);
        b.node("Split", {"x"}, {"a", "b"});
        if (gpuAvailable()) expectGpuMatchesCpu(b, {{"x", int64Iota({4, 6})}}, "int64 equal halves");
    }
}

// ---- Gather ----

OnnxBuilder gatherModel(const Shape& data, const Shape& indicesShape, int64_t axis, const Tensor* constIndices,
                        DataType type = DataType::Float32, DataType indexType = DataType::Int64) {
    OnnxBuilder b;
    b.input("x", data, type).output("y", type);
    if (constIndices)
        b.initializer("i", *constIndices);
    else
        b.input("i", indicesShape, indexType);
    attr(b.node("Gather", {"x", "i"}, {"y"}), "axis", axis);
    return b;
}

TEST(GatherOp, ReferenceValues) {
    auto x = iotaTensor({3, 2});
    auto idx = int64Tensor({2, 2}, {0, 1, 1, 2});
    expectReferenceEquals(gatherModel({3, 2}, {2, 2}, 0, nullptr), {{"x", x}, {"i", idx}},
                          {floatTensor({2, 2, 2}, {0, 1, 2, 3, 2, 3, 4, 5})}, "axis 0, 2-D indices");
    auto neg = int64Tensor({2}, {-1, 0});
    expectReferenceEquals(gatherModel({3, 2}, {2}, 1, nullptr), {{"x", x}, {"i", neg}},
                          {floatTensor({3, 2}, {1, 0, 3, 2, 5, 4})}, "axis 1, negative index");
    auto scalar = int64Tensor({}, {2});
    expectReferenceEquals(gatherModel({3, 2}, {}, 0, &scalar), {{"x", x}}, {floatTensor({2}, {4, 5})},
                          "constant scalar index");
}

TEST(GatherOp, GpuMatchesCpu) {
    VKINFER_REQUIRE_GPU();
    Shape x{4, 6, 5};
    auto data = randomTensor(x, 1);
    // Run-time indices through the kernel, int64 and int32.
    auto idx = int64Tensor({2, 3}, {5, -1, 0, 2, 2, -6});
    expectGpuMatchesCpu(gatherModel(x, {2, 3}, 1, nullptr), {{"x", data}, {"i", idx}}, "run-time int64 indices axis 1");
    Tensor idx32 = Tensor::fromVector(DataType::Int32, {4}, std::vector<int32_t>{3, 0, -2, 1});
    expectGpuMatchesCpu(gatherModel(x, {4}, 0, nullptr, DataType::Float32, DataType::Int32),
                        {{"x", data}, {"i", idx32}}, "run-time int32 indices axis 0");
    expectGpuMatchesCpu(gatherModel(x, {3}, -1, nullptr), {{"x", data}, {"i", int64Tensor({3}, {4, 4, 0})}},
                        "last axis");
    // Constant indices: evenly stepping (a strided copy) and irregular (the kernel).
    auto even = int64Tensor({3}, {5, 3, 1});
    auto irregular = int64Tensor({3}, {1, 0, 4});
    auto scalar = int64Tensor({}, {-2});
    EXPECT_EQ(planDispatches(gatherModel(x, {}, 1, &even), {{"x", data}}), 1);
    expectGpuMatchesCpu(gatherModel(x, {}, 1, &even), {{"x", data}}, "constant even indices");
    expectGpuMatchesCpu(gatherModel(x, {}, 2, &irregular), {{"x", data}}, "constant irregular indices");
    expectGpuMatchesCpu(gatherModel(x, {}, 0, &scalar), {{"x", data}}, "constant scalar index");
    // 8-byte and 1-byte data.
    expectGpuMatchesCpu(gatherModel({5, 3}, {2}, 0, nullptr, DataType::Int64),
                        {{"x", int64Iota({5, 3})}, {"i", int64Tensor({2}, {4, -5})}}, "int64 data");
    Tensor bytes(DataType::UInt8, {3, 7});
    for (int64_t i = 0; i < bytes.elementCount(); ++i) bytes.as<uint8_t>()[i] = static_cast<uint8_t>(i * 3);
    expectGpuMatchesCpu(gatherModel({3, 7}, {3}, 1, nullptr, DataType::UInt8),
                        {{"x", bytes}, {"i", int64Tensor({3}, {6, 0, 3})}}, "uint8 data");
}

TEST(GatherElementsOp, ReferenceAndGpu) {
    OnnxBuilder b;
    b.input("x", {2, 2}).input("i", {2, 2}, DataType::Int64).output("y");
    attr(b.node("GatherElements", {"x", "i"}, {"y"}), "axis", int64_t{1});
    expectReferenceEquals(b, {{"x", floatTensor({2, 2}, {1, 2, 3, 4})}, {"i", int64Tensor({2, 2}, {0, 0, 1, -2})}},
                          {floatTensor({2, 2}, {1, 1, 4, 3})}, "axis 1 with a negative index");
    VKINFER_REQUIRE_GPU();
    OnnxBuilder c;
    c.input("x", {3, 4, 5}).input("i", {3, 2, 5}, DataType::Int64).output("y");
    attr(c.node("GatherElements", {"x", "i"}, {"y"}), "axis", int64_t{1});
    Tensor idx(DataType::Int64, {3, 2, 5});
    for (int64_t k = 0; k < idx.elementCount(); ++k) idx.as<int64_t>()[k] = (k * 7) % 8 - 4;
    expectGpuMatchesCpu(c, {{"x", randomTensor({3, 4, 5}, 2)}, {"i", idx}}, "3-D axis 1");
    // Rank 7 (NLL loss over 5 spatial dims): the dims after the axis merge into one.
    Shape x7{2, 3, 2, 3, 2, 2, 3}, i7{2, 1, 2, 3, 2, 2, 3};
    OnnxBuilder d;
    d.input("x", x7).input("i", i7, DataType::Int64).output("y");
    attr(d.node("GatherElements", {"x", "i"}, {"y"}), "axis", int64_t{1});
    Tensor idx7(DataType::Int64, i7);
    for (int64_t k = 0; k < idx7.elementCount(); ++k) idx7.as<int64_t>()[k] = (k * 5) % 3;
    expectGpuMatchesCpu(d, {{"x", randomTensor(x7, 3)}, {"i", idx7}}, "rank 7 axis 1");
}

TEST(ScatterElementsOp, ReferenceAndGpu) {
    auto model = [](const std::string& reduction, int64_t opset) {
        OnnxBuilder b(opset);
        b.input("x", {1, 5}).input("i", {1, 3}, DataType::Int64).input("u", {1, 3}).output("y");
        auto& n = b.node("ScatterElements", {"x", "i", "u"}, {"y"});
        attr(n, "axis", int64_t{1});
        if (!reduction.empty()) attr(n, "reduction", reduction);
        return b;
    };
    std::vector<NamedTensor> in{{"x", floatTensor({1, 5}, {1, 2, 3, 4, 5})},
                                {"i", int64Tensor({1, 3}, {1, -2, 1})},
                                {"u", floatTensor({1, 3}, {10, 20, 30})}};
    expectReferenceEquals(model("", 13), in, {floatTensor({1, 5}, {1, 30, 3, 20, 5})}, "none: last duplicate wins");
    expectReferenceEquals(model("add", 16), in, {floatTensor({1, 5}, {1, 42, 3, 24, 5})}, "add duplicates");
    expectReferenceEquals(model("mul", 16), in, {floatTensor({1, 5}, {1, 600, 3, 80, 5})}, "mul duplicates");
    VKINFER_REQUIRE_GPU();
    OnnxBuilder b(18);
    b.input("x", {4, 3, 5}).input("i", {2, 3, 4}, DataType::Int64).input("u", {2, 3, 4}).output("y");
    auto& n = b.node("ScatterElements", {"x", "i", "u"}, {"y"});
    attr(n, "axis", int64_t{0});
    attr(n, "reduction", std::string("max"));
    Tensor idx(DataType::Int64, {2, 3, 4});
    for (int64_t k = 0; k < idx.elementCount(); ++k) idx.as<int64_t>()[k] = (k * 5) % 4 - (k % 2 ? 4 : 0);
    expectGpuMatchesCpu(b, {{"x", randomTensor({4, 3, 5}, 4)}, {"i", idx}, {"u", randomTensor({2, 3, 4}, 5)}},
                        "3-D axis 0 max");
}

// GatherND: ONNX's examples by hand (whole elements, rows, batch_dims 1), then on the GPU
// against the reference: float32 and float16 with negative indices and batch_dims, int64 data
// with int32 indices (a relative-position table indexed as Swin V2 exports it).
TEST(GatherNDOp, ReferenceAndGpu) {
    auto model = [](const Shape& x, const Shape& i, int64_t batchDims, DataType type = DataType::Float32,
                    DataType indexType = DataType::Int64) {
        OnnxBuilder b(13);
        b.input("x", x, type).input("i", i, indexType).output("y", type);
        auto& n = b.node("GatherND", {"x", "i"}, {"y"}, "gnd");
        if (batchDims != 0) attr(n, "batch_dims", batchDims);
        return b;
    };
    expectReferenceEquals(model({2, 2}, {2, 2}, 0),
                          {{"x", floatTensor({2, 2}, {0, 1, 2, 3})}, {"i", int64Tensor({2, 2}, {0, 0, 1, 1})}},
                          {floatTensor({2}, {0, 3})}, "elements");
    expectReferenceEquals(model({2, 2}, {2, 1}, 0),
                          {{"x", floatTensor({2, 2}, {0, 1, 2, 3})}, {"i", int64Tensor({2, 1}, {1, -2})}},
                          {floatTensor({2, 2}, {2, 3, 0, 1})}, "rows, a negative index");
    expectReferenceEquals(model({2, 2, 2}, {2, 1}, 1),
                          {{"x", floatTensor({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7})}, {"i", int64Tensor({2, 1}, {1, 0})}},
                          {floatTensor({2, 2}, {2, 3, 4, 5})}, "batch_dims 1");

    // An index tuple longer than the data's rank is a shape error naming the node.
    auto bad = model({2, 2}, {2, 3}, 0).build();
    ASSERT_TRUE(bad.ok());
    auto summary = planSummary(*bad, {{"x", {2, 2}}, {"i", {2, 3}}});
    ASSERT_FALSE(summary.ok());
    EXPECT_NE(summary.status().message().find("'gnd' (GatherND)"), std::string::npos) << summary.status().toString();

    VKINFER_REQUIRE_GPU();
    Tensor idx(DataType::Int64, {2, 3, 4, 2});
    for (int64_t e = 0; e < idx.elementCount(); e += 2) {
        idx.as<int64_t>()[e] = (e * 7) % 5 - (e % 3 ? 0 : 5);  // some negative
        idx.as<int64_t>()[e + 1] = (e / 2) % 6;
    }
    const OnnxBuilder batched = model({2, 5, 6, 7}, {2, 3, 4, 2}, 1);
    const std::vector<NamedTensor> in{{"x", randomTensor({2, 5, 6, 7}, 8)}, {"i", idx}};
    expectGpuMatchesCpu(batched, in, "batch_dims 1, pairs of indices, slices of 7");
    expectGpuMatchesCpu(batched, in, "batch_dims 1 fp16", Tolerance{1e-3, 1e-3, true}, Precision::Float16);

    Tensor table = int64Iota({169, 3});
    Tensor rel(DataType::Int32, {49, 49, 1});
    for (int64_t e = 0; e < rel.elementCount(); ++e) rel.as<int32_t>()[e] = static_cast<int32_t>((e * 31) % 169);
    expectGpuMatchesCpu(model({169, 3}, {49, 49, 1}, 0, DataType::Int64, DataType::Int32), {{"x", table}, {"i", rel}},
                        "int64 table, int32 indices");
}

TEST(ScatterNDOp, ReferenceAndGpu) {
    // data [2, 3], tuples of 2 elements: single elements; duplicates reduce in order.
    auto model = [](const std::string& reduction, int64_t opset) {
        OnnxBuilder b(opset);
        b.input("x", {2, 3}).input("i", {3, 2}, DataType::Int64).input("u", {3}).output("y");
        auto& n = b.node("ScatterND", {"x", "i", "u"}, {"y"});
        if (!reduction.empty()) attr(n, "reduction", reduction);
        return b;
    };
    std::vector<NamedTensor> in{{"x", floatTensor({2, 3}, {1, 2, 3, 4, 5, 6})},
                                {"i", int64Tensor({3, 2}, {0, 1, -1, 2, 0, 1})},
                                {"u", floatTensor({3}, {10, 20, 30})}};
    expectReferenceEquals(model("", 13), in, {floatTensor({2, 3}, {1, 30, 3, 4, 5, 20})}, "none: last duplicate wins");
    expectReferenceEquals(model("add", 16), in, {floatTensor({2, 3}, {1, 42, 3, 4, 5, 26})}, "add duplicates");
    expectReferenceEquals(model("min", 18), in, {floatTensor({2, 3}, {1, 2, 3, 4, 5, 6})}, "min keeps smaller data");

    // Tuples of 1 element replace whole rows (the ONNX spec's second example shape).
    OnnxBuilder rows(13);
    rows.input("x", {4, 2, 3}).input("i", {2, 1}, DataType::Int64).input("u", {2, 2, 3}).output("y");
    rows.node("ScatterND", {"x", "i", "u"}, {"y"});
    Tensor rowsExpected = iotaTensor({4, 2, 3});
    for (int64_t e = 0; e < 6; ++e) {
        rowsExpected.as<float>()[2 * 6 + e] = 100.0f + float(e);  // row 2 <- updates[0]
        rowsExpected.as<float>()[0 * 6 + e] = 106.0f + float(e);  // row -4 = 0 <- updates[1]
    }
    expectReferenceEquals(rows,
                          {{"x", iotaTensor({4, 2, 3})},
                           {"i", int64Tensor({2, 1}, {2, -4})},
                           {"u", iotaTensor({2, 2, 3}, 100.0f, 1.0f)}},
                          {rowsExpected}, "row slices");

    // Mismatched updates are a shape error naming the expected shape.
    OnnxBuilder bad(13);
    bad.input("x", {4, 2, 3}).input("i", {2, 1}, DataType::Int64).input("u", {2, 3}).output("y");
    bad.node("ScatterND", {"x", "i", "u"}, {"y"});
    auto badModel = bad.build();
    ASSERT_TRUE(badModel.ok());
    auto summary = planSummary(*badModel, {{"x", {4, 2, 3}}, {"i", {2, 1}}, {"u", {2, 3}}});
    ASSERT_FALSE(summary.ok());
    EXPECT_NE(summary.status().message().find("2x2x3"), std::string::npos) << summary.status().toString();

    VKINFER_REQUIRE_GPU();
    OnnxBuilder big(16);
    big.input("x", {5, 4, 6, 3}).input("i", {3, 4, 2}, DataType::Int64).input("u", {3, 4, 6, 3}).output("y");
    attr(big.node("ScatterND", {"x", "i", "u"}, {"y"}), "reduction", std::string("add"));
    Tensor idx(DataType::Int64, {3, 4, 2});
    for (int64_t k = 0; k < 12; ++k) {
        idx.as<int64_t>()[2 * k] = (k * 3) % 5 - (k % 3 ? 0 : 5);
        idx.as<int64_t>()[2 * k + 1] = k % 4;
    }
    expectGpuMatchesCpu(big, {{"x", randomTensor({5, 4, 6, 3}, 6)}, {"i", idx}, {"u", randomTensor({3, 4, 6, 3}, 7)}},
                        "4-D data, 2-element tuples, add with duplicates");
}

}  // namespace
}  // namespace vkinfer::testing
