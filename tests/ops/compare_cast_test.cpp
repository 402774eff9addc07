// Comparisons, logical ops and Where (src/ops/compare.cpp) and Cast/CastLike
// (src/ops/cast.cpp): GPU against the CPU reference over types and broadcasts, and the
// reference against hand-computed values (truncation toward zero, float16 rounding, ...).
#include <cmath>
#include <limits>

#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

OnnxBuilder compareModel(const std::string& op, const Shape& a, const Shape& b, DataType t, int64_t opset = 16) {
    OnnxBuilder m(opset);
    m.input("a", a, t).input("b", b, t).output("y", DataType::Bool);
    m.node(op, {"a", "b"}, {"y"});
    return m;
}

bool isUnsigned(DataType t) {
    return t == DataType::UInt8 || t == DataType::UInt16 || t == DataType::UInt32 || t == DataType::UInt64;
}

// Values from a small set (multiples of 0.5 for floats), so that equal pairs are common.
Tensor smallValues(const Shape& s, DataType t, uint32_t seed) {
    Tensor v = randomIntTensor(s, DataType::Int32, seed, isUnsigned(t) ? 0 : -3, 3);
    Tensor f(DataType::Float32, s);
    float scale = t == DataType::Float32 || t == DataType::Float16 ? 0.5f : 1.0f;
    for (int64_t i = 0; i < v.elementCount(); ++i) f.as<float>()[i] = static_cast<float>(v.as<int32_t>()[i]) * scale;
    return convertTensor(f, t);
}

TEST(CompareOp, TypesAndBroadcasts) {
    VKINFER_REQUIRE_GPU();
    const std::vector<std::pair<Shape, Shape>> shapes = {{{3, 4, 5}, {3, 4, 5}}, {{3, 1, 5}, {4, 1}}, {{}, {7, 3}}};
    for (const char* op : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"})
        for (DataType t : {DataType::Float32, DataType::Int32, DataType::Int64, DataType::Float16, DataType::UInt8})
            for (size_t k = 0; k < (t == DataType::Float32 ? shapes.size() : 2); ++k) {
                const auto& [sa, sb] = shapes[k];
                std::string what = std::string(op) + " " + dataTypeName(t) + " " + shapeToString(sa) + "," + shapeToString(sb);
                SCOPED_TRACE(what);
                expectGpuMatchesCpu(compareModel(op, sa, sb, t),
                                    {{"a", smallValues(sa, t, seedOf(what))}, {"b", smallValues(sb, t, seedOf(what) + 1)}},
                                    what);
            }
}

TEST(LogicalOp, AndOrXorNot) {
    VKINFER_REQUIRE_GPU();
    for (const char* op : {"And", "Or", "Xor"})
        for (const auto& [sa, sb] : std::vector<std::pair<Shape, Shape>>{{{3, 4, 5}, {3, 4, 5}}, {{1, 4, 1, 6}, {3, 1, 5, 6}}}) {
            std::string what = std::string(op) + " " + shapeToString(sa) + "," + shapeToString(sb);
            expectGpuMatchesCpu(compareModel(op, sa, sb, DataType::Bool),
                                {{"a", randomIntTensor(sa, DataType::Bool, seedOf(what), 0, 1)},
                                 {"b", randomIntTensor(sb, DataType::Bool, seedOf(what) + 1, 0, 1)}},
                                what);
        }
    OnnxBuilder m;
    m.input("x", {4}, DataType::Bool).output("y", DataType::Bool);
    m.node("Not", {"x"}, {"y"});
    expectReferenceEquals(m, {{"x", typedTensor(DataType::Bool, {4}, {1, 0, 0, 1})}}, {typedTensor(DataType::Bool, {4}, {0, 1, 1, 0})},
                          "Not");
    Tensor a = typedTensor(DataType::Bool, {4}, {0, 0, 1, 1});
    Tensor b = typedTensor(DataType::Bool, {4}, {0, 1, 0, 1});
    expectReferenceEquals(compareModel("And", {4}, {4}, DataType::Bool), {{"a", a}, {"b", b}},
                          {typedTensor(DataType::Bool, {4}, {0, 0, 0, 1})}, "And truth table");
    expectReferenceEquals(compareModel("Or", {4}, {4}, DataType::Bool), {{"a", a}, {"b", b}},
                          {typedTensor(DataType::Bool, {4}, {0, 1, 1, 1})}, "Or truth table");
    expectReferenceEquals(compareModel("Xor", {4}, {4}, DataType::Bool), {{"a", a}, {"b", b}},
                          {typedTensor(DataType::Bool, {4}, {0, 1, 1, 0})}, "Xor truth table");
}

TEST(CompareOp, ReferenceMatchesHandComputed) {
    Tensor a = floatTensor({2, 2}, {1, 2, 3, 4});
    Tensor b = floatTensor({2}, {2, 3});
    auto run = [&](const char* op, std::vector<double> want) {
        expectReferenceEquals(compareModel(op, {2, 2}, {2}, DataType::Float32), {{"a", a}, {"b", b}},
                              {typedTensor(DataType::Bool, {2, 2}, want)}, op);
    };
    run("Equal", {0, 0, 0, 0});
    run("Less", {1, 1, 0, 0});
    run("Greater", {0, 0, 1, 1});
    run("LessOrEqual", {1, 1, 0, 0});
    run("GreaterOrEqual", {0, 0, 1, 1});
    Tensor i = typedTensor(DataType::Int64, {4}, {5000000000.0, -1, 7, 7});
    Tensor j = typedTensor(DataType::Int64, {4}, {5000000001.0, -1, 6, 8});
    expectReferenceEquals(compareModel("Equal", {4}, {4}, DataType::Int64), {{"a", i}, {"b", j}},
                          {typedTensor(DataType::Bool, {4}, {0, 1, 0, 0})}, "Equal int64 beyond 32 bits");
    expectReferenceEquals(compareModel("Less", {4}, {4}, DataType::Int64), {{"a", i}, {"b", j}},
                          {typedTensor(DataType::Bool, {4}, {1, 0, 0, 1})}, "Less int64 beyond 32 bits");
}

OnnxBuilder whereModel(const Shape& c, const Shape& x, const Shape& y, DataType t) {
    OnnxBuilder m(16);
    m.input("c", c, DataType::Bool).input("x", x, t).input("y", y, t).output("z", t);
    m.node("Where", {"c", "x", "y"}, {"z"});
    return m;
}

TEST(WhereOp, BroadcastAcrossAllThree) {
    VKINFER_REQUIRE_GPU();
    // (No graph input below 4 bytes: the runtime's descriptor ranges trip on those, see the
    // report; the scalar case runs for 4- and 8-byte types only.)
    const std::vector<std::array<Shape, 3>> shapes = {{Shape{3, 4}, Shape{3, 4}, Shape{3, 4}},
                                                      {Shape{4, 1}, Shape{1, 5}, Shape{5}},
                                                      {Shape{2, 1, 6}, Shape{4, 1}, Shape{6}},
                                                      {Shape{4, 1}, Shape{1, 5}, Shape{}}};
    for (DataType t : {DataType::Float32, DataType::Int64, DataType::Bool, DataType::Float16, DataType::Int32})
        for (size_t k = 0; k < (dataTypeSize(t) >= 4 ? shapes.size() : shapes.size() - 1); ++k) {
            const auto& s = shapes[k];
            std::string what = std::string("Where ") + dataTypeName(t) + " " + shapeToString(s[0]) + "," + shapeToString(s[1]) +
                               "," + shapeToString(s[2]);
            SCOPED_TRACE(what);
            Tensor x = randomIntTensor(s[1], t, seedOf(what), t == DataType::Bool ? 0 : -9, t == DataType::Bool ? 1 : 9);
            Tensor y = randomIntTensor(s[2], t, seedOf(what) + 1, t == DataType::Bool ? 0 : -9, t == DataType::Bool ? 1 : 9);
            if (t == DataType::Float32 || t == DataType::Float16) {
                x = convertTensor(randomTensor(s[1], seedOf(what)), t);
                y = convertTensor(randomTensor(s[2], seedOf(what) + 1), t);
            }
            expectGpuMatchesCpu(whereModel(s[0], s[1], s[2], t),
                                {{"c", randomIntTensor(s[0], DataType::Bool, seedOf(what) + 2, 0, 1)}, {"x", x}, {"y", y}}, what);
        }
    expectReferenceEquals(whereModel({2, 2}, {2, 2}, {2}, DataType::Int64),
                          {{"c", typedTensor(DataType::Bool, {2, 2}, {1, 0, 0, 1})},
                           {"x", typedTensor(DataType::Int64, {2, 2}, {1, 2, 3, 4})},
                           {"y", typedTensor(DataType::Int64, {2}, {-10, -20})}},
                          {typedTensor(DataType::Int64, {2, 2}, {1, -20, -10, 4})}, "Where hand-computed");
}

OnnxBuilder castModel(const Shape& s, DataType from, DataType to) {
    OnnxBuilder m(13);
    m.input("x", s, from).output("y", to);
    attr(m.node("Cast", {"x"}, {"y"}), "to", static_cast<int64_t>(to));
    return m;
}

// Values every type can hold: small magnitudes, fractions for floats, and no negative
// values when the target is unsigned (C and ONNX leave those undefined).
Tensor castInput(const Shape& s, DataType t, uint32_t seed, bool nonNegative = false) {
    if (t == DataType::Bool) return randomIntTensor(s, t, seed, 0, 1);
    float lo = nonNegative || isUnsigned(t) ? 0.0f : -100.0f;
    if (t == DataType::Float32 || t == DataType::Float16 || t == DataType::Float64)
        return convertTensor(randomTensor(s, seed, lo, 100.0f), t);
    return randomIntTensor(s, t, seed, static_cast<int64_t>(lo), 100);
}

TEST(CastOp, EveryGpuTypePair) {
    VKINFER_REQUIRE_GPU();
    const DataType types[] = {DataType::Float32, DataType::Float16, DataType::Int8, DataType::UInt8, DataType::Int32,
                              DataType::Int64,   DataType::Bool,    DataType::Int16, DataType::UInt16, DataType::UInt32,
                              DataType::UInt64};
    for (DataType from : types)
        for (DataType to : types) {
            if (from == to) continue;
            std::string what = std::string("Cast ") + dataTypeName(from) + " -> " + dataTypeName(to);
            SCOPED_TRACE(what);
            expectGpuMatchesCpu(castModel({4, 9}, from, to), {{"x", castInput({4, 9}, from, seedOf(what), isUnsigned(to))}},
                                what);
        }
    for (DataType f : {DataType::Float32, DataType::Float16}) {
        expectGpuMatchesCpu(castModel({4, 9}, f, DataType::Float64), {{"x", castInput({4, 9}, f, 1)}}, "to float64");
        expectGpuMatchesCpu(castModel({4, 9}, DataType::Float64, f), {{"x", castInput({4, 9}, DataType::Float64, 2)}},
                            "from float64");
    }
}

TEST(CastOp, ReferenceMatchesHandComputed) {
    Tensor x = floatTensor({8}, {-2.7f, -0.5f, 0.0f, 0.4f, 1.0f, 2.99f, -128.0f, 300.0f});
    expectReferenceEquals(castModel({8}, DataType::Float32, DataType::Int32), {{"x", x}},
                          {typedTensor(DataType::Int32, {8}, {-2, 0, 0, 0, 1, 2, -128, 300})}, "float -> int32 truncates");
    expectReferenceEquals(castModel({8}, DataType::Float32, DataType::Int64), {{"x", x}},
                          {typedTensor(DataType::Int64, {8}, {-2, 0, 0, 0, 1, 2, -128, 300})}, "float -> int64 truncates");
    expectReferenceEquals(castModel({8}, DataType::Float32, DataType::Bool), {{"x", x}},
                          {typedTensor(DataType::Bool, {8}, {1, 1, 0, 1, 1, 1, 1, 1})}, "float -> bool is x != 0");
    expectReferenceEquals(castModel({8}, DataType::Float32, DataType::Int8), {{"x", x}},
                          {typedTensor(DataType::Int8, {8}, {-2, 0, 0, 0, 1, 2, -128, 44})}, "float -> int8 keeps the low bits");
    // float16 rounds to nearest even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10 (-> 1);
    // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 and 1 + 2^-9 (-> 1 + 2^-9); 65520 overflows.
    Tensor h = floatTensor({6}, {1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048, 65504.0f, 65520.0f, 1e-8f, -3.0f});
    Tensor hw(DataType::Float16, {6});
    const uint16_t bits[] = {0x3c00, 0x3c02, 0x7bff, 0x7c00, 0x0000, 0xc200};
    for (int i = 0; i < 6; ++i) hw.as<uint16_t>()[i] = bits[i];
    expectReferenceEquals(castModel({6}, DataType::Float32, DataType::Float16), {{"x", h}}, {hw}, "float -> float16",
                          Tolerance{0, 0, false});
    Tensor b = typedTensor(DataType::Bool, {4}, {1, 0, 1, 1});
    expectReferenceEquals(castModel({4}, DataType::Bool, DataType::Float32), {{"x", b}}, {floatTensor({4}, {1, 0, 1, 1})},
                          "bool -> float");
    Tensor big = typedTensor(DataType::Int64, {4}, {5000000000.0, -1, 255, 256});
    expectReferenceEquals(castModel({4}, DataType::Int64, DataType::Int32), {{"x", big}},
                          {typedTensor(DataType::Int32, {4}, {705032704, -1, 255, 256})}, "int64 -> int32 keeps the low bits");
    expectReferenceEquals(castModel({4}, DataType::Int64, DataType::UInt8), {{"x", big}},
                          {typedTensor(DataType::UInt8, {4}, {0, 255, 255, 0})}, "int64 -> uint8 keeps the low bits");
    Tensor d = typedTensor(DataType::Float64, {4}, {0.1, 1e-40, 3.4028235677973366e38, -2.5});
    Tensor dw = floatTensor({4}, {0.1f, 1e-40f, std::numeric_limits<float>::infinity(), -2.5f});
    expectReferenceEquals(castModel({4}, DataType::Float64, DataType::Float32), {{"x", d}}, {dw},
                          "float64 -> float32 (subnormal, overflow past the largest float)", Tolerance{0, 0, false});
}

TEST(CastLikeOp, TakesTheSecondInputsType) {
    OnnxBuilder m(15);
    m.input("x", {2, 3}).input("like", {1}, DataType::Int64).output("y", DataType::Int64);
    m.node("CastLike", {"x", "like"}, {"y"});
    expectReferenceEquals(m, {{"x", floatTensor({2, 3}, {1.5f, -1.5f, 2, 3.9f, -3.9f, 0})}, {"like", typedTensor(DataType::Int64, {1}, {0})}},
                          {typedTensor(DataType::Int64, {2, 3}, {1, -1, 2, 3, -3, 0})}, "CastLike float -> int64");
}

}  // namespace
}  // namespace vkinfer::testing
