// Float16 precision (PlanOptions/SessionOptions::precision = Float16, passes/precision.cpp):
// every fp16-capable op runs on float16 tensors (its float16 kernel variant) and matches the
// float32 CPU reference within the fp16 tolerance below; graph inputs and outputs stay
// float32 with Casts at the boundary; ops that are not fp16-capable get Casts around them.
// Float32 remains the default and untouched.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <map>

#include "core/half.h"
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;
using nlohmann::json;

// The fp16 op tolerance: |y - ref| <= 1e-3 * max|ref| + 1e-2 * |ref|. A single op rounds its
// output (and, for multi-dispatch ops, intermediates) to float16: a relative error of
// 2^-11 = 4.9e-4 each; weights and inputs that are not float16 values add as much again.
Tolerance fp16Tolerance() { return Tolerance{1e-2, 1e-3, true}; }

// `t` rounded to float16 values (still float32): inputs the CPU reference and the float16
// GPU run see identically, for ops whose result is not continuous in the input (ArgMax,
// comparisons, Floor) and to keep errors to what the engine adds.
Tensor h(const Tensor& t) {
    Tensor r = t;
    for (int64_t i = 0; i < r.elementCount(); ++i) r.as<float>()[i] = halfToFloat(floatToHalf(r.as<float>()[i]));
    return r;
}
Tensor rnd(const Shape& s, const std::string& what, float lo = -1.0f, float hi = 1.0f) {
    return h(randomTensor(s, seedOf(what), lo, hi));
}

InputShapes shapesOf(const std::vector<NamedTensor>& inputs) {
    InputShapes shapes;
    for (const auto& in : inputs) shapes.emplace_back(in.name, in.tensor.shape());
    return shapes;
}

json fp16Plan(const Model& model, const std::vector<NamedTensor>& inputs, Precision precision = Precision::Float16) {
    PlanOptions o;
    o.precision = precision;
    auto j = planJson(model, shapesOf(inputs), o);
    if (!j.ok()) {
        ADD_FAILURE() << j.status().toString();
        return json::object();
    }
    return json::parse(*j);
}

// A float32 <-> float16 conversion: a Cast, or a copy a Cast was folded into
// (passes/cast_folding.h: pad_f32_f16, copy_strided_f16_f32, ...).
bool isConversion(const json& d) {
    const std::string k = d["kernel"];
    auto endsWith = [&](const char* s) { return k.size() >= 8 && k.compare(k.size() - 8, 8, s) == 0; };
    return k.rfind("cast_", 0) == 0 || endsWith("_f32_f16") || endsWith("_f16_f32");
}

int conversionCount(const json& plan) {
    int n = 0;
    for (const auto& d : plan["schedule"]) n += isConversion(d) ? 1 : 0;
    return n;
}

// Runs the model in float16 precision in both sync modes and expects: every output within
// `tol` of the float32 CPU reference, float32 outputs, bit-identical results in the two
// modes, no float32 kernel but the conversions, and `casts` conversions (Casts, or copies
// a Cast was folded into; -1: one per float32 graph input and output, the boundary).
void expectFp16(const OnnxBuilder& builder, const std::vector<NamedTensor>& inputs, const std::string& what,
                Tolerance tol = fp16Tolerance(), int casts = -1) {
    SCOPED_TRACE(what);
    auto model = builder.build();
    ASSERT_TRUE(model.ok()) << what << ": " << model.status().toString();

    json plan = fp16Plan(*model, inputs);
    if (casts < 0) {
        casts = 0;
        for (const auto& in : inputs) casts += in.tensor.dtype() == DataType::Float32 ? 1 : 0;
        for (const auto& o : model->outputs()) casts += o.dtype == DataType::Float32 ? 1 : 0;
    }
    EXPECT_EQ(conversionCount(plan), casts) << what;
    for (const auto& d : plan["schedule"]) {
        std::string k = d["kernel"];
        bool f32 = k.size() > 4 && k.compare(k.size() - 4, 4, "_f32") == 0;
        EXPECT_TRUE(isConversion(d) || !f32) << what << ": dispatch " << d["index"] << " (" << d["op"] << ") runs " << k;
    }

    expectGpuMatchesCpu(builder, inputs, what, tol, Precision::Float16);
}

OnnxBuilder unaryModel(const std::string& op, const Shape& x, int64_t opset = 13) {
    OnnxBuilder b(opset);
    b.input("x", x).output("y");
    b.node(op, {"x"}, {"y"});
    return b;
}

void addConv(OnnxBuilder& b, const std::string& in, const std::string& out, int64_t c, int64_t m,
             const std::string& seed, int64_t k = 3, int64_t group = 1, bool bias = true) {
    b.initializer(out + "_w", rnd({m, c / group, k, k}, seed + "w"));
    std::vector<std::string> ins{in, out + "_w"};
    if (bias) {
        b.initializer(out + "_b", rnd({m}, seed + "b"));
        ins.push_back(out + "_b");
    }
    auto& n = b.node("Conv", ins, {out});
    attr(n, "pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
    if (group != 1) attr(n, "group", group);
}

// ---- plan structure (no GPU needed) ----

TEST(Fp16Plan, BoundaryCastsAndFloat32Interface) {
    OnnxBuilder b;
    b.input("x", {1, 3, 8, 8}).output("y");
    addConv(b, "x", "c", 3, 8, "plan");
    b.node("Relu", {"c"}, {"y"});
    auto model = b.build();
    ASSERT_TRUE(model.ok()) << model.status().toString();
    std::vector<NamedTensor> in{{"x", Tensor(DataType::Float32, {1, 3, 8, 8})}};

    json fp32 = fp16Plan(*model, in, Precision::Float32);
    json fp16 = fp16Plan(*model, in);
    // Float32 (the default) is untouched: one fused Conv+Relu in float32, no Cast.
    ASSERT_EQ(fp32["schedule"].size(), 1u);
    const std::string fp32Kernel = fp32["schedule"][0]["kernel"];
    EXPECT_TRUE(fp32Kernel.starts_with("conv2d_") && fp32Kernel.ends_with("_f32")) << fp32Kernel;
    EXPECT_EQ(conversionCount(fp32), 0);
    auto defaults = planJson(*model, shapesOf(in));
    ASSERT_TRUE(defaults.ok());
    EXPECT_EQ(json::parse(*defaults)["schedule"], fp32["schedule"]);

    // Float16: input cast, the float16 Conv+Relu, output cast.
    ASSERT_EQ(fp16["schedule"].size(), 3u);
    EXPECT_EQ(fp16["schedule"][0]["kernel"], "cast_f32_f16");
    EXPECT_EQ(fp16["schedule"][1]["kernel"], "conv2d_t16x128_f16");
    EXPECT_EQ(fp16["schedule"][1]["op"], "Conv+Relu");
    EXPECT_EQ(fp16["schedule"][2]["kernel"], "cast_f16_f32");
    // The graph's input and output keep their names and float32 sizes.
    EXPECT_EQ(fp16["inputs"], fp32["inputs"]);
    EXPECT_EQ(fp16["outputs"], fp32["outputs"]);
    for (const auto& a : fp16["allocations"]) {
        if (a["kind"] == "input") {
            EXPECT_EQ(a["bytes"].get<int64_t>(), 3 * 8 * 8 * 4);
        }
        if (a["kind"] == "output") {
            EXPECT_EQ(a["bytes"].get<int64_t>(), 8 * 8 * 8 * 4);
        }
    }
    EXPECT_EQ(fp16["schedule"][0]["reads"][0]["tensor"], "x");
    EXPECT_EQ(fp16["schedule"][2]["writes"][0]["tensor"], "y");
    // Weights in float16: half the bytes (each tensor padded to the alignment).
    EXPECT_LT(fp16["weight_bytes"].get<int64_t>(), fp32["weight_bytes"].get<int64_t>());
}

// A graph output that another node also reads: one Cast for the output, the float16 reader
// reads the float16 tensor; an input read by a float16 node and a float32 one (Cast): one
// Cast to float16, the Cast node reads the input itself.
TEST(Fp16Plan, SharedOutputsAndInputs) {
    OnnxBuilder b;
    b.input("x", {1, 4, 6, 6}).output("c").output("r").output("d");
    addConv(b, "x", "c", 4, 4, "shared");
    b.node("Relu", {"c"}, {"r"});
    auto& cast = b.node("Cast", {"x"}, {"d"});
    attr(cast, "to", static_cast<int64_t>(DataType::Float64));
    auto model = b.build();
    ASSERT_TRUE(model.ok()) << model.status().toString();
    json plan = fp16Plan(*model, {{"x", Tensor(DataType::Float32, {1, 4, 6, 6})}});
    // x -> float16, Conv, c -> float32, Relu, r -> float32, and the model's Cast to float64.
    EXPECT_EQ(plan["schedule"].size(), 6u);
    EXPECT_EQ(conversionCount(plan), 4);
    const auto& s = plan["schedule"];
    ASSERT_EQ(s.size(), 6u);
    std::map<std::string, std::vector<std::string>> reads;  // kernel -> tensors it reads
    for (const auto& d : s)
        for (const auto& r : d["reads"]) reads[d["kernel"]].push_back(r["tensor"]);
    EXPECT_EQ(reads["cast_f32_f64"], std::vector<std::string>{"x"});  // the float32 reader reads x itself
    EXPECT_EQ(reads["cast_f32_f16"], std::vector<std::string>{"x"});  // one Cast of x to float16
    // Relu reads the Conv's float16 output, which a Cast also writes to the graph output c.
    EXPECT_EQ(reads["unary_f16"], std::vector<std::string>{"c_float16"});
    auto& castBack = reads["cast_f16_f32"];
    EXPECT_NE(std::find(castBack.begin(), castBack.end(), "c_float16"), castBack.end());
}

// ---- ops: float16 GPU against the float32 CPU reference ----

TEST(Fp16Op, Conv) {
    VKINFER_REQUIRE_GPU();
    for (int64_t m : {8, 40}) {  // the 16x128 and 64x64 tiles
        for (bool bias : {true, false}) {
            std::string what = "Conv M=" + std::to_string(m) + (bias ? " bias" : " no bias");
            OnnxBuilder b;
            b.input("x", {1, 6, 11, 13}).output("y");
            addConv(b, "x", "y", 6, m, what, 3, 1, bias);
            expectFp16(b, {{"x", rnd({1, 6, 11, 13}, what + "x")}}, what);
        }
        // Fused residual Add and Relu (the _res variants).
        std::string what = "Conv+Add+Relu M=" + std::to_string(m);
        OnnxBuilder b;
        b.input("x", {1, 6, 9, 9}).input("r", {1, m, 9, 9}).output("y");
        addConv(b, "x", "c", 6, m, what);
        b.node("Add", {"c", "r"}, {"s"});
        b.node("Relu", {"s"}, {"y"});
        expectFp16(b, {{"x", rnd({1, 6, 9, 9}, what + "x")}, {"r", rnd({1, m, 9, 9}, what + "r")}}, what);
    }
    // Depthwise (conv2d_depthwise), with and without a residual.
    for (bool residual : {false, true}) {
        std::string what = std::string("depthwise Conv") + (residual ? "+Add" : "");
        OnnxBuilder b;
        b.input("x", {2, 8, 10, 10}).output("y");
        addConv(b, "x", residual ? "c" : "y", 8, 8, what, 3, 8);
        if (residual) b.node("Add", {"c", "x"}, {"y"});
        expectFp16(b, {{"x", rnd({2, 8, 10, 10}, what)}}, what);
    }
    // Inputs that are not float16 values: the boundary Cast rounds them.
    OnnxBuilder b;
    b.input("x", {1, 3, 16, 16}).output("y");
    addConv(b, "x", "c1", 3, 16, "chain1");
    b.node("Relu", {"c1"}, {"r1"});
    addConv(b, "r1", "y", 16, 4, "chain2");
    expectFp16(b, {{"x", randomTensor({1, 3, 16, 16}, 7)}}, "Conv->Relu->Conv, float32 input");
}

TEST(Fp16Op, ConvTranspose) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder b;
    b.input("x", {1, 4, 5, 5}).output("y");
    b.initializer("w", rnd({4, 3, 3, 3}, "ctw")).initializer("b", rnd({3}, "ctb"));
    auto& n = b.node("ConvTranspose", {"x", "w", "b"}, {"y"});
    attr(n, "strides", std::vector<int64_t>{2, 2});
    expectFp16(b, {{"x", rnd({1, 4, 5, 5}, "ctx")}}, "ConvTranspose stride 2");
}

TEST(Fp16Op, GemmAndMatMul) {
    VKINFER_REQUIRE_GPU();
    for (int64_t m : {3, 40}) {
        std::string what = "Gemm transB C M=" + std::to_string(m);
        OnnxBuilder b;
        b.input("a", {m, 20}).output("y");
        b.initializer("w", rnd({12, 20}, what + "w")).initializer("c", rnd({12}, what + "c"));
        auto& n = b.node("Gemm", {"a", "w", "c"}, {"y"});
        attr(n, "transB", int64_t{1});
        attr(n, "alpha", 0.5f);
        attr(n, "beta", 2.0f);
        expectFp16(b, {{"a", rnd({m, 20}, what)}}, what);
    }
    OnnxBuilder b;
    b.input("a", {2, 3, 5, 7}).input("b", {7, 4}).output("y");
    b.node("MatMul", {"a", "b"}, {"y"});
    expectFp16(b, {{"a", rnd({2, 3, 5, 7}, "mma")}, {"b", rnd({7, 4}, "mmb")}}, "MatMul broadcast batch");
}

TEST(Fp16Op, Pooling) {
    VKINFER_REQUIRE_GPU();
    for (const char* op : {"MaxPool", "AveragePool"}) {
        OnnxBuilder b;
        b.input("x", {1, 3, 12, 12}).output("y");
        auto& n = b.node(op, {"x"}, {"y"});
        attr(n, "kernel_shape", std::vector<int64_t>{3, 3});
        attr(n, "strides", std::vector<int64_t>{2, 2});
        attr(n, "pads", std::vector<int64_t>{1, 1, 1, 1});
        if (std::string(op) == "AveragePool") attr(n, "count_include_pad", int64_t{1});
        expectFp16(b, {{"x", rnd({1, 3, 12, 12}, op)}}, op);
    }
    {  // 3-D (pool_nd)
        OnnxBuilder b;
        b.input("x", {1, 2, 5, 6, 7}).output("y");
        auto& n = b.node("AveragePool", {"x"}, {"y"});
        attr(n, "kernel_shape", std::vector<int64_t>{2, 2, 2});
        expectFp16(b, {{"x", rnd({1, 2, 5, 6, 7}, "pool3d")}}, "AveragePool 3-D");
    }
    {  // Indices output (pool_nd_idx)
        OnnxBuilder b;
        b.input("x", {1, 2, 6, 6}).output("y").output("i", DataType::Int64);
        auto& n = b.node("MaxPool", {"x"}, {"y", "i"});
        attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
        attr(n, "strides", std::vector<int64_t>{2, 2});
        expectFp16(b, {{"x", rnd({1, 2, 6, 6}, "poolidx")}}, "MaxPool with Indices");
    }
    for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"})
        expectFp16(unaryModel(op, {2, 5, 7, 9}), {{"x", rnd({2, 5, 7, 9}, op)}}, op);
}

TEST(Fp16Op, Elementwise) {
    VKINFER_REQUIRE_GPU();
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "PRelu", "Max", "Min"}) {
        std::string what = std::string(op) + " broadcast";
        OnnxBuilder b;
        b.input("a", {2, 3, 4, 5}).input("b", {3, 1, 5}).output("y");
        b.node(op, {"a", "b"}, {"y"});
        bool positive = std::string(op) == "Pow" || std::string(op) == "Div";
        expectFp16(b, {{"a", rnd({2, 3, 4, 5}, what + "a", positive ? 0.5f : -2.0f, 2.0f)},
                       {"b", rnd({3, 1, 5}, what + "b", positive ? 0.5f : -2.0f, 2.0f)}},
                   what);
    }
    {  // Variadic Sum and Mean, Mod (fmod), a constant operand, Add->Relu fused
        OnnxBuilder b;
        b.input("a", {4, 6}).input("b", {6}).input("c", {4, 1}).output("s").output("m").output("f").output("r");
        b.initializer("k", rnd({4, 6}, "k", 0.5f, 1.5f));
        b.node("Sum", {"a", "b", "c"}, {"s"});
        b.node("Mean", {"a", "b", "c"}, {"m"});
        attr(b.node("Mod", {"a", "k"}, {"f"}), "fmod", int64_t{1});
        b.node("Add", {"a", "k"}, {"t"});
        b.node("Relu", {"t"}, {"r"});
        expectFp16(b, {{"a", rnd({4, 6}, "va", -3, 3)}, {"b", rnd({6}, "vb")}, {"c", rnd({4, 1}, "vc")}},
                   "Sum, Mean, Mod, Add+Relu");
    }
}

TEST(Fp16Op, Activations) {
    VKINFER_REQUIRE_GPU();
    for (const char* op : {"Relu", "Sigmoid", "Tanh", "LeakyRelu"})
        expectFp16(unaryModel(op, {3, 50}), {{"x", rnd({3, 50}, op, -4, 4)}}, op);
    {  // ReLU6: constant float32 bounds, read on the CPU
        OnnxBuilder b(13);
        b.input("x", {3, 40}).output("y");
        b.initializer("lo", floatTensor({}, {0.0f})).initializer("hi", floatTensor({}, {0.3f}));
        b.node("Clip", {"x", "lo", "hi"}, {"y"});
        expectFp16(b, {{"x", rnd({3, 40}, "clip")}}, "Clip constant bounds");
    }
    {  // bounds as graph inputs (sessions bind them by value: constants again)
        OnnxBuilder b(13);
        b.input("x", {3, 40}).input("lo", {}).input("hi", {}).output("y");
        b.node("Clip", {"x", "lo", "hi"}, {"y"});
        expectFp16(b,
                   {{"x", rnd({3, 40}, "clip2")}, {"lo", floatTensor({}, {-0.25f})}, {"hi", floatTensor({}, {0.5f})}},
                   "Clip bounds as inputs");
    }
    for (const char* op : {"Exp", "Erf", "Abs", "Neg", "Sqrt", "Floor"}) {
        bool positive = std::string(op) == "Sqrt";
        expectFp16(unaryModel(op, {4, 30}), {{"x", rnd({4, 30}, op, positive ? 0.0f : -2.0f, 2.0f)}}, op);
    }
}

TEST(Fp16Op, SoftmaxAndReductions) {
    VKINFER_REQUIRE_GPU();
    for (const char* op : {"Softmax", "LogSoftmax"}) {
        expectFp16(unaryModel(op, {4, 300}), {{"x", rnd({4, 300}, op, -5, 5)}}, std::string(op) + " long rows");
        expectFp16(unaryModel(op, {40, 7}), {{"x", rnd({40, 7}, op, -5, 5)}}, std::string(op) + " short rows");
    }
    for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceL2"}) {
        OnnxBuilder b(13);
        b.input("x", {3, 4, 50}).output("y");
        attr(b.node(op, {"x"}, {"y"}), "axes", std::vector<int64_t>{2});
        expectFp16(b, {{"x", rnd({3, 4, 50}, op)}}, op);
    }
    OnnxBuilder b;
    b.input("x", {5, 9}).output("y", DataType::Int64);
    attr(b.node("ArgMax", {"x"}, {"y"}), "axis", int64_t{1});
    expectFp16(b, {{"x", rnd({5, 9}, "argmax")}}, "ArgMax");
}

TEST(Fp16Op, Normalization) {
    VKINFER_REQUIRE_GPU();
    for (bool stats : {false, true}) {
        OnnxBuilder b(17);
        b.input("x", {2, 5, 64}).output("y");
        b.initializer("scale", rnd({64}, "lns", 0.5f, 1.5f)).initializer("bias", rnd({1}, "lnb"));  // broadcast bias
        std::vector<std::string> outs{"y"};
        if (stats) {
            b.output("mean").output("inv_std");
            outs.insert(outs.end(), {"mean", "inv_std"});
        }
        attr(b.node("LayerNormalization", {"x", "scale", "bias"}, outs), "axis", int64_t{-1});
        expectFp16(b, {{"x", rnd({2, 5, 64}, "ln", -3, 3)}},
                   stats ? "LayerNormalization with statistics" : "LayerNormalization");
    }
    {
        OnnxBuilder b;
        b.input("x", {2, 3, 7, 9}).output("y");
        b.initializer("s", rnd({3}, "ins", 0.5f, 1.5f)).initializer("b", rnd({3}, "inb"));
        b.node("InstanceNormalization", {"x", "s", "b"}, {"y"});
        expectFp16(b, {{"x", rnd({2, 3, 7, 9}, "in", -3, 3)}}, "InstanceNormalization");
    }
    {  // standalone BatchNormalization (after Relu: nothing to fold into), folded to channel_affine
        OnnxBuilder b;
        b.input("x", {2, 5, 6, 7}).output("y");
        b.initializer("s", rnd({5}, "bns", 0.5f, 2.0f)).initializer("b", rnd({5}, "bnb"));
        b.initializer("m", rnd({5}, "bnm")).initializer("v", randomTensor({5}, 3, 1e-4f, 2.0f));
        b.node("Relu", {"x"}, {"r"});
        b.node("BatchNormalization", {"r", "s", "b", "m", "v"}, {"y"});
        expectFp16(b, {{"x", rnd({2, 5, 6, 7}, "bn")}}, "BatchNormalization folded");
    }
    {  // statistics as graph inputs (batchnorm kernel)
        OnnxBuilder b;
        b.input("x", {2, 5, 6, 7}).input("s", {5}).input("b", {5}).input("m", {5}).input("v", {5}).output("y");
        b.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"});
        expectFp16(b, {{"x", rnd({2, 5, 6, 7}, "bn2")}, {"s", rnd({5}, "bn2s", 0.5f, 2.0f)}, {"b", rnd({5}, "bn2b")},
                       {"m", rnd({5}, "bn2m")}, {"v", rnd({5}, "bn2v", 0.1f, 2.0f)}},
                   "BatchNormalization with statistics inputs");
    }
}

TEST(Fp16Op, Resize) {
    VKINFER_REQUIRE_GPU();
    for (const char* mode : {"nearest", "linear", "cubic"}) {
        OnnxBuilder b(13);
        b.input("x", {1, 2, 5, 6}).output("y");
        b.initializer("scales", floatTensor({4}, {1, 1, 2, 1.5f}));
        attr(b.node("Resize", {"x", "", "scales"}, {"y"}), "mode", std::string(mode));
        expectFp16(b, {{"x", rnd({1, 2, 5, 6}, mode)}}, std::string("Resize ") + mode);
    }
}

TEST(Fp16Op, DataMovement) {
    VKINFER_REQUIRE_GPU();
    {  // Concat in place (the convolutions write their slices) and by copies, Transpose, DepthToSpace
        OnnxBuilder b;
        b.input("x", {1, 4, 6, 6}).output("cat").output("t").output("d2s");
        addConv(b, "x", "c1", 4, 8, "cat1");
        addConv(b, "x", "c2", 4, 8, "cat2");
        attr(b.node("Concat", {"c1", "c2"}, {"cat"}), "axis", int64_t{1});
        attr(b.node("Transpose", {"c1"}, {"t"}), "perm", std::vector<int64_t>{0, 2, 3, 1});
        attr(b.node("DepthToSpace", {"c2"}, {"d2s"}), "blocksize", int64_t{2});
        expectFp16(b, {{"x", rnd({1, 4, 6, 6}, "mv")}}, "Concat, Transpose, DepthToSpace");
    }
    {  // Slice, Split, Gather, Tile, Expand, Reshape/Flatten views, Concat of graph inputs
        OnnxBuilder b;
        b.input("x", {2, 6, 8}).input("z", {2, 3, 8}).output("sl").output("s1").output("s2").output("g").output("ti");
        b.output("ex").output("fl").output("cc");
        b.initializer("starts", int64Tensor({1}, {1})).initializer("ends", int64Tensor({1}, {7}));
        b.initializer("axes", int64Tensor({1}, {2})).initializer("steps", int64Tensor({1}, {2}));
        b.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"sl"});
        attr(b.node("Split", {"x"}, {"s1", "s2"}), "axis", int64_t{1});
        b.initializer("idx", int64Tensor({3}, {5, 0, 2}));
        attr(b.node("Gather", {"x", "idx"}, {"g"}), "axis", int64_t{1});
        b.initializer("reps", int64Tensor({3}, {1, 2, 1}));
        b.node("Tile", {"z", "reps"}, {"ti"});
        b.initializer("shape", int64Tensor({4}, {2, 2, 3, 8}));
        b.node("Expand", {"z", "shape"}, {"ex"});
        b.initializer("rs", int64Tensor({2}, {12, 8}));
        b.node("Reshape", {"x", "rs"}, {"r"});
        b.node("Flatten", {"r"}, {"fl"});
        attr(b.node("Concat", {"x", "z"}, {"cc"}), "axis", int64_t{1});
        expectFp16(b, {{"x", rnd({2, 6, 8}, "dmx")}, {"z", rnd({2, 3, 8}, "dmz")}},
                   "Slice, Split, Gather, Tile, Expand, views");
    }
    for (const char* mode : {"constant", "reflect"}) {  // Pad: the float32 constant value narrowed to float16
        OnnxBuilder b(13);
        b.input("x", {1, 2, 4, 5}).output("y");
        b.initializer("pads", int64Tensor({8}, {0, 0, 1, 2, 0, 0, 2, 1}));
        b.initializer("value", floatTensor({}, {0.7f}));
        attr(b.node("Pad", {"x", "pads", "value"}, {"y"}), "mode", std::string(mode));
        expectFp16(b, {{"x", rnd({1, 2, 4, 5}, mode)}}, std::string("Pad ") + mode);
    }
    {  // comparisons and Where
        OnnxBuilder b;
        b.input("a", {3, 8}).input("b", {3, 8}).output("w").output("eq", DataType::Bool);
        b.node("Less", {"a", "b"}, {"lt"});
        b.node("Where", {"lt", "a", "b"}, {"w"});
        b.node("Equal", {"a", "b"}, {"eq"});
        Tensor a = rnd({3, 8}, "wa"), bb = rnd({3, 8}, "wb");
        for (int i = 0; i < 8; ++i) bb.as<float>()[i] = a.as<float>()[i];  // some equal elements
        expectFp16(b, {{"a", a}, {"b", bb}}, "Less, Where, Equal");
    }
}

// A node that is not fp16-capable (Cast) between float16 ones: Casts around it.
TEST(Fp16Op, NonCapableOpBetweenFloat16Ops) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder b;
    b.input("x", {1, 3, 8, 8}).output("y");
    addConv(b, "x", "c", 3, 8, "noncap");
    attr(b.node("Cast", {"c"}, {"d"}), "to", static_cast<int64_t>(DataType::Float64));
    attr(b.node("Cast", {"d"}, {"f"}), "to", static_cast<int64_t>(DataType::Float32));
    b.node("Relu", {"f"}, {"y"});
    std::vector<NamedTensor> in{{"x", rnd({1, 3, 8, 8}, "noncap")}};
    // x -> f16, Conv (f16), c -> f32, Cast f64, Cast f32, f -> f16, Relu (f16), y -> f32.
    expectFp16(b, in, "Conv -> Cast -> Cast -> Relu", fp16Tolerance(), 6);
    auto model = b.build();
    ASSERT_TRUE(model.ok());
    json plan = fp16Plan(*model, in);
    std::vector<std::string> kernels;
    for (const auto& d : plan["schedule"]) kernels.push_back(d["kernel"]);
    EXPECT_EQ(kernels, (std::vector<std::string>{"cast_f32_f16", "conv2d_t16x128_f16", "cast_f16_f32", "cast_f32_f64",
                                                 "cast_f64_f32", "cast_f32_f16", "unary_f16", "cast_f16_f32"}));
}

}  // namespace
}  // namespace vkinfer::testing
