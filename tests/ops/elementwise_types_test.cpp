// Element-wise ops beyond float32 arithmetic (src/ops/elementwise.cpp): integer, float16
// and bool-free typed Add/Sub/Mul/Div/Max/Min/Mod, Pow with a different exponent type,
// PRelu's slope broadcast, and the variadic Sum/Mean/Max/Min.
#include <limits>

#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

OnnxBuilder binaryModel(const std::string& op, const Shape& a, const Shape& b, DataType ta, DataType tb, DataType ty,
                        int64_t fmod = -1) {
    OnnxBuilder m(15);
    m.input("a", a, ta).input("b", b, tb).output("y", ty);
    auto& n = m.node(op, {"a", "b"}, {"y"});
    if (fmod >= 0) attr(n, "fmod", fmod);
    return m;
}

bool isUnsigned(DataType t) {
    return t == DataType::UInt8 || t == DataType::UInt16 || t == DataType::UInt32 || t == DataType::UInt64;
}

// Nonzero divisors, of both signs where the type has them.
Tensor divisors(const Shape& s, DataType t, uint32_t seed) {
    Tensor mag = randomIntTensor(s, DataType::Int32, seed, 1, 9);
    Tensor sign = randomIntTensor(s, DataType::Int32, seed + 7, 0, 1);
    std::vector<double> v;
    for (int64_t i = 0; i < mag.elementCount(); ++i)
        v.push_back(mag.as<int32_t>()[i] * (!isUnsigned(t) && sign.as<int32_t>()[i] ? -1.0 : 1.0));
    return typedTensor(t, s, v);
}

TEST(TypedBinaryOp, IntegerArithmeticAndMod) {
    VKINFER_REQUIRE_GPU();
    // Every integer type on one broadcasting pair; int32 and int64 on more shapes.
    const std::vector<std::pair<Shape, Shape>> shapes = {{{2, 3, 7}, {7}}, {{3, 4, 5}, {3, 4, 5}}, {{4, 1}, {1, 33}}};
    for (DataType t : {DataType::Int32, DataType::Int64, DataType::UInt8, DataType::Int8, DataType::Int16,
                       DataType::UInt16, DataType::UInt32, DataType::UInt64})
        for (const char* op : {"Add", "Sub", "Mul", "Div", "Mod", "Max", "Min"})
            for (size_t k = 0; k < (t == DataType::Int32 || t == DataType::Int64 ? shapes.size() : 1); ++k) {
                const auto& [sa, sb] = shapes[k];
                std::string what = std::string(op) + " " + dataTypeName(t) + " " + shapeToString(sa) + "," + shapeToString(sb);
                SCOPED_TRACE(what);
                Tensor a = randomIntTensor(sa, t, seedOf(what), isUnsigned(t) ? 0 : -100, 100);
                Tensor b = divisors(sb, t, seedOf(what) + 1);
                expectGpuMatchesCpu(binaryModel(op, sa, sb, t, t, t), {{"a", a}, {"b", b}}, what);
                if (std::string(op) == "Mod")
                    expectGpuMatchesCpu(binaryModel(op, sa, sb, t, t, t, 1), {{"a", a}, {"b", b}}, what + " fmod");
            }
}

TEST(TypedBinaryOp, IntegerDivisionAndModSigns) {
    // Div truncates toward zero; Mod takes the divisor's sign (fmod=0) or the dividend's (fmod=1).
    Tensor a = typedTensor(DataType::Int32, {6}, {7, -7, 7, -7, 0, 5});
    Tensor b = typedTensor(DataType::Int32, {6}, {2, 2, -2, -2, 3, 0});
    auto m = [&](const char* op, int64_t fmod = -1) {
        return binaryModel(op, {6}, {6}, DataType::Int32, DataType::Int32, DataType::Int32, fmod);
    };
    expectReferenceEquals(m("Div"), {{"a", a}, {"b", b}}, {typedTensor(DataType::Int32, {6}, {3, -3, -3, 3, 0, 0})},
                          "int32 Div (x / 0 gives 0)");
    expectReferenceEquals(m("Mod"), {{"a", a}, {"b", b}}, {typedTensor(DataType::Int32, {6}, {1, 1, -1, -1, 0, 0})},
                          "int32 Mod");
    expectReferenceEquals(m("Mod", 1), {{"a", a}, {"b", b}}, {typedTensor(DataType::Int32, {6}, {1, -1, 1, -1, 0, 0})},
                          "int32 Mod fmod=1");
    Tensor fa = floatTensor({4}, {5.5f, -5.5f, 5.5f, -5.5f});
    Tensor fb = floatTensor({4}, {2, 2, -2, -2});
    expectReferenceEquals(binaryModel("Mod", {4}, {4}, DataType::Float32, DataType::Float32, DataType::Float32, 1),
                          {{"a", fa}, {"b", fb}}, {floatTensor({4}, {1.5f, -1.5f, 1.5f, -1.5f})}, "float Mod fmod=1");
    // uint8 wraps. (4 elements: graph inputs and outputs of fewer than 4 bytes trip the
    // runtime's descriptor ranges, a runtime issue.)
    Tensor ua = typedTensor(DataType::UInt8, {4}, {250, 3, 200, 7});
    Tensor ub = typedTensor(DataType::UInt8, {4}, {10, 5, 2, 7});
    auto u = [&](const char* op) { return binaryModel(op, {4}, {4}, DataType::UInt8, DataType::UInt8, DataType::UInt8); };
    expectReferenceEquals(u("Add"), {{"a", ua}, {"b", ub}}, {typedTensor(DataType::UInt8, {4}, {4, 8, 202, 14})},
                          "uint8 Add wraps");
    expectReferenceEquals(u("Sub"), {{"a", ua}, {"b", ub}}, {typedTensor(DataType::UInt8, {4}, {240, 254, 198, 0})},
                          "uint8 Sub wraps");
    expectReferenceEquals(u("Mul"), {{"a", ua}, {"b", ub}}, {typedTensor(DataType::UInt8, {4}, {196, 15, 144, 49})},
                          "uint8 Mul wraps");
}

// The CPU reference (constant folding) on the integer edges the fuzzer reached: no undefined
// behaviour, wrapping as the kernels do. MIN / -1 is undefined in SPIR-V too, so only the
// reference is asked for it.
TEST(TypedBinaryOp, IntegerOverflowEdges) {
    const double kMin = std::numeric_limits<int32_t>::min();
    Tensor a = typedTensor(DataType::Int32, {4}, {kMin, kMin, 7, -7});
    Tensor b = typedTensor(DataType::Int32, {4}, {-1, 1, -1, -1});
    auto m = [&](const char* op, DataType t = DataType::Int32) { return binaryModel(op, {4}, {4}, t, t, t); };
    auto ref = cpuReference(m("Div"), {{"a", a}, {"b", b}}, "int32 MIN / -1");
    ASSERT_EQ(ref.size(), 1u);
    expectTensorNear(ref[0], typedTensor(DataType::Int32, {4}, {kMin, kMin, -7, 7}), "int32 MIN / -1 wraps to MIN");
    ref = cpuReference(m("Mod"), {{"a", a}, {"b", b}}, "int32 MIN % -1");
    ASSERT_EQ(ref.size(), 1u);
    expectTensorNear(ref[0], typedTensor(DataType::Int32, {4}, {0, 0, 0, 0}), "int32 MIN % -1 is 0");
    // uint16 products promote to int in C++ (65535 * 65535 overflows it); int32 PRelu wraps.
    Tensor u = typedTensor(DataType::UInt16, {4}, {65535, 65535, 256, 3});
    expectReferenceEquals(m("Mul", DataType::UInt16), {{"a", u}, {"b", u}},
                          {typedTensor(DataType::UInt16, {4}, {1, 1, 0, 9})}, "uint16 Mul wraps");
    Tensor x = typedTensor(DataType::Int32, {4}, {-1103971420, 5, -3, 0});
    Tensor slope = typedTensor(DataType::Int32, {4}, {-1103971420, 2, 4, 9});
    const double wrapped = static_cast<int32_t>(static_cast<uint32_t>(-1103971420) * static_cast<uint32_t>(-1103971420));
    expectReferenceEquals(m("PRelu"), {{"a", x}, {"b", slope}}, {typedTensor(DataType::Int32, {4}, {wrapped, 5, -12, 0})},
                          "int32 PRelu wraps");
}

TEST(TypedBinaryOp, Float16) {
    VKINFER_REQUIRE_GPU();
    for (const char* op : {"Add", "Mul", "Div", "Max", "Pow"}) {
        std::string what = std::string(op) + " float16";
        Tensor a = convertTensor(randomTensor({3, 8, 5}, seedOf(what), 0.5f, 2.0f), DataType::Float16);
        Tensor b = convertTensor(randomTensor({8, 1}, seedOf(what) + 1, 0.5f, 2.0f), DataType::Float16);
        expectGpuMatchesCpu(binaryModel(op, {3, 8, 5}, {8, 1}, DataType::Float16, DataType::Float16, DataType::Float16),
                            {{"a", a}, {"b", b}}, what, Tolerance{2e-3, 1e-3, true});
    }
}

TEST(TypedBinaryOp, Float64MaxMinAreExact) {
    // No float64 arithmetic on the GPU (shaderFloat64 is not enabled), but Max and Min compare
    // bit patterns exactly: values that differ beyond float32 precision, signs, infinities.
    const double inf = std::numeric_limits<double>::infinity();
    Tensor a = typedTensor(DataType::Float64, {2, 4}, {1.0 + 1e-12, -3.5, 1e300, -inf, 0.0, -1e-300, 7.0, -2.0});
    Tensor b = typedTensor(DataType::Float64, {4}, {1.0, -3.5000000001, -1e300, 5.0});
    auto m = [&](const char* op) { return binaryModel(op, {2, 4}, {4}, DataType::Float64, DataType::Float64, DataType::Float64); };
    expectReferenceEquals(m("Max"), {{"a", a}, {"b", b}},
                          {typedTensor(DataType::Float64, {2, 4}, {1.0 + 1e-12, -3.5, 1e300, 5.0, 1.0, -1e-300, 7.0, 5.0})},
                          "float64 Max", Tolerance{0, 0, false});
    expectReferenceEquals(m("Min"), {{"a", a}, {"b", b}},
                          {typedTensor(DataType::Float64, {2, 4}, {1.0, -3.5000000001, -1e300, -inf, 0.0, -3.5000000001, -1e300, -2.0})},
                          "float64 Min", Tolerance{0, 0, false});
    if (gpuAvailable())
        for (const char* op : {"Max", "Min"})
            expectGpuMatchesCpu(m(op), {{"a", a}, {"b", b}}, std::string("float64 ") + op + " bit-exact", Tolerance{0, 0, false});
    expectUnsupported(m("Add"), {{"a", a}, {"b", b}}, "float64 Add");
}

TEST(PowOp, MixedTypes) {
    VKINFER_REQUIRE_GPU();
    const Shape s = {2, 9};
    Tensor base = randomTensor(s, 3, -3.0f, 3.0f);
    for (DataType e : {DataType::Int32, DataType::Int64, DataType::UInt32, DataType::UInt64}) {
        std::string what = std::string("float ^ ") + dataTypeName(e);
        Tensor ex = randomIntTensor({9}, e, seedOf(what), 0, 4);
        expectGpuMatchesCpu(binaryModel("Pow", s, {9}, DataType::Float32, e, DataType::Float32), {{"a", base}, {"b", ex}}, what);
    }
    for (DataType b : {DataType::Int32, DataType::Int64}) {
        std::string what = std::string(dataTypeName(b)) + " ^ float";
        Tensor ib = randomIntTensor(s, b, seedOf(what), 0, 4);  // negative ^ fractional is NaN: no integer
        Tensor fe = randomTensor({9}, seedOf(what) + 1, 0.0f, 3.0f);
        expectGpuMatchesCpu(binaryModel("Pow", s, {9}, b, DataType::Float32, b), {{"a", ib}, {"b", fe}}, what);
        Tensor ie = randomIntTensor({9}, b == DataType::Int32 ? DataType::Int64 : DataType::Int32, seedOf(what) + 2, 0, 5);
        Tensor sb = randomIntTensor(s, b, seedOf(what) + 3, -4, 4);
        expectGpuMatchesCpu(binaryModel("Pow", s, {9}, b, ie.dtype(), b), {{"a", sb}, {"b", ie}}, what + " int exponent");
    }
    // Hand-computed: an integer base with a fractional exponent truncates the float result.
    Tensor ib = typedTensor(DataType::Int64, {4}, {2, 3, -2, 9});
    Tensor fe = floatTensor({4}, {3, 0.5f, 3, 0.5f});
    expectReferenceEquals(binaryModel("Pow", {4}, {4}, DataType::Int64, DataType::Float32, DataType::Int64),
                          {{"a", ib}, {"b", fe}}, {typedTensor(DataType::Int64, {4}, {8, 1, -8, 3})}, "int64 ^ float");
    Tensor fb = floatTensor({3}, {-2, 0.5f, 3});
    Tensor le = typedTensor(DataType::Int64, {3}, {3, 2, 0});
    expectReferenceEquals(binaryModel("Pow", {3}, {3}, DataType::Float32, DataType::Int64, DataType::Float32),
                          {{"a", fb}, {"b", le}}, {floatTensor({3}, {-8, 0.25f, 1})}, "float ^ int64");
}

TEST(ClipOp, TypedAndRuntimeBounds) {
    VKINFER_REQUIRE_GPU();
    // Bounds that are graph inputs, integer types, and a missing bound ("" in ONNX). (int8
    // bounds as graph inputs would be 1-byte buffers, which the runtime mishandles: see the
    // constant-bound case below.)
    struct Case {
        DataType t;
        bool hasMin, hasMax;
    };
    for (const Case& c : {Case{DataType::Float32, true, true}, Case{DataType::Int32, true, true},
                          Case{DataType::Int64, false, true}, Case{DataType::Int32, true, false},
                          Case{DataType::Float32, true, false}}) {
        std::string what = std::string("Clip ") + dataTypeName(c.t) + (c.hasMin ? " min" : "") + (c.hasMax ? " max" : "");
        OnnxBuilder m(13);
        m.input("x", {4, 9}, c.t).output("y", c.t);
        std::vector<NamedTensor> in = {{"x", convertTensor(randomTensor({4, 9}, seedOf(what), -60, 60), c.t)}};
        if (c.hasMin) {
            m.input("lo", {}, c.t);
            in.push_back({"lo", typedTensor(c.t, {}, {-20})});
        }
        if (c.hasMax) {
            m.input("hi", {}, c.t);
            in.push_back({"hi", typedTensor(c.t, {}, {25})});
        }
        m.node("Clip", {"x", c.hasMin ? "lo" : "", c.hasMax ? "hi" : ""}, {"y"});
        expectGpuMatchesCpu(m, in, what);
    }
    OnnxBuilder m(13);
    m.input("x", {4}, DataType::Int8).output("y", DataType::Int8);
    m.initializer("lo", typedTensor(DataType::Int8, {}, {-5}));
    m.initializer("hi", typedTensor(DataType::Int8, {}, {10}));
    m.node("Clip", {"x", "lo", "hi"}, {"y"});
    expectReferenceEquals(m, {{"x", typedTensor(DataType::Int8, {4}, {-128, -5, 7, 127})}},
                          {typedTensor(DataType::Int8, {4}, {-5, -5, 7, 10})}, "Clip int8 constant bounds");
}

TEST(PReluOp, SlopeBroadcast) {
    VKINFER_REQUIRE_GPU();
    for (const Shape& slope : {Shape{1}, Shape{5}, Shape{3, 1, 1}, Shape{2, 3, 4, 5}}) {
        std::string what = "PRelu slope " + shapeToString(slope);
        OnnxBuilder m;
        m.input("x", {2, 3, 4, 5}).input("s", slope).output("y");
        m.node("PRelu", {"x", "s"}, {"y"});
        expectGpuMatchesCpu(m, {{"x", randomTensor({2, 3, 4, 5}, seedOf(what), -2, 2)}, {"s", randomTensor(slope, 9, 0, 1)}},
                            what);
    }
    OnnxBuilder m;
    m.input("x", {2, 3}).output("y");
    m.initializer("s", floatTensor({3}, {0.1f, 0.2f, 0.3f}));
    m.node("PRelu", {"x", "s"}, {"y"});
    expectReferenceEquals(m, {{"x", floatTensor({2, 3}, {-1, 2, -3, 4, -5, -6})}},
                          {floatTensor({2, 3}, {-0.1f, 2, -0.9f, 4, -1.0f, -1.8f})}, "PRelu per-channel constant slope");
}

TEST(VariadicOp, BroadcastingChains) {
    VKINFER_REQUIRE_GPU();
    const std::vector<std::vector<Shape>> cases = {
        {{7}},                               // one input: a copy
        {{3, 4}, {3, 4}},                    // two, same shape
        {{2, 1, 5}, {4, 1}, {5}},            // three, every one broadcast
        {{1}, {2, 3}, {3}, {2, 1}},          // four
    };
    for (const char* op : {"Sum", "Mean", "Max", "Min"})
        for (const auto& shapes : cases) {
            std::string what = std::string(op) + " of " + std::to_string(shapes.size());
            OnnxBuilder m;
            std::vector<std::string> names;
            std::vector<NamedTensor> inputs;
            for (size_t i = 0; i < shapes.size(); ++i) {
                names.push_back("x" + std::to_string(i));
                m.input(names.back(), shapes[i]);
                inputs.push_back({names.back(), randomTensor(shapes[i], seedOf(what) + static_cast<uint32_t>(i), -2, 2)});
            }
            m.output("y");
            m.node(op, names, {"y"});
            expectGpuMatchesCpu(m, inputs, what);
        }
    for (DataType t : {DataType::Int64, DataType::Int32}) {
        OnnxBuilder m;
        m.input("a", {2, 3}, t).input("b", {3}, t).input("c", {2, 1}, t).output("y", t);
        m.node("Max", {"a", "b", "c"}, {"y"});
        expectGpuMatchesCpu(m,
                            {{"a", randomIntTensor({2, 3}, t, 1, -50, 50)},
                             {"b", randomIntTensor({3}, t, 2, -50, 50)},
                             {"c", randomIntTensor({2, 1}, t, 3, -50, 50)}},
                            std::string("Max of three ") + dataTypeName(t));
    }
    OnnxBuilder m;
    m.input("a", {3}).input("b", {3}).input("c", {1}).output("mean").output("sum").output("min");
    m.node("Mean", {"a", "b", "c"}, {"mean"});
    m.node("Sum", {"a", "b", "c"}, {"sum"});
    m.node("Min", {"a", "b", "c"}, {"min"});
    expectReferenceEquals(m, {{"a", floatTensor({3}, {3, 0, 2})}, {"b", floatTensor({3}, {1, 3, 4})}, {"c", floatTensor({1}, {2})}},
                          {floatTensor({3}, {2, 5.0f / 3, 8.0f / 3}), floatTensor({3}, {6, 5, 8}), floatTensor({3}, {1, 0, 2})},
                          "Mean/Sum/Min hand-computed");
}

}  // namespace
}  // namespace vkinfer::testing
