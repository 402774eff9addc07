// The fused element-wise program (ops/pointwise.h): shape inference, the CPU interpreter and
// the lowering to one shaders/pointwise.comp dispatch.
#include "ops/pointwise.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/families/pointwise.h"
#include "ops/broadcast.h"
#include "ops/cpu_copy.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

float erfAsKernel(float v) { return static_cast<float>(std::erf(static_cast<double>(v))); }

float tanhOf(float v) { return std::tanh(v); }

}  // namespace

float applyPointwiseStep(PointwiseOp op, float a, float b, float c) {
    const bool nan = std::isnan(a);
    switch (op) {
        case PointwiseOp::Add: return a + b;
        case PointwiseOp::Sub: return a - b;
        case PointwiseOp::Mul: return a * b;
        case PointwiseOp::Div: return a / b;
        case PointwiseOp::Pow: return static_cast<float>(std::pow(a, b));
        case PointwiseOp::Max: return nan ? a : std::isnan(b) ? b : std::max(a, b);
        case PointwiseOp::Min: return nan ? a : std::isnan(b) ? b : std::min(a, b);
        case PointwiseOp::Neg: return -a;
        case PointwiseOp::Abs: return std::abs(a);
        case PointwiseOp::Sqrt: return std::sqrt(a);
        case PointwiseOp::Exp: return std::exp(a);
        case PointwiseOp::Log: return std::log(a);
        case PointwiseOp::Erf: return erfAsKernel(a);
        case PointwiseOp::Tanh: return tanhOf(a);
        case PointwiseOp::Sigmoid: return 1.0f / (1.0f + std::exp(-a));
        case PointwiseOp::Relu: return a < 0.0f ? 0.0f : a;
        case PointwiseOp::Reciprocal: return 1.0f / a;
        case PointwiseOp::LeakyRelu: return a >= 0.0f || nan ? a : a * b;
        case PointwiseOp::Gelu: return static_cast<float>(0.5 * a * (1.0 + std::erf(a / std::sqrt(2.0))));
        case PointwiseOp::GeluTanh: {
            const double v = a, k = std::sqrt(2.0 / 3.14159265358979323846);
            return static_cast<float>(0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v))));
        }
        case PointwiseOp::Silu: return a * (1.0f / (1.0f + std::exp(-a)));
        case PointwiseOp::HardSigmoid: return nan ? a : std::clamp(b * a + c, 0.0f, 1.0f);
        case PointwiseOp::HardSwish: return nan ? a : a * std::clamp(a / 6.0f + 0.5f, 0.0f, 1.0f);
        case PointwiseOp::Clip: return nan ? a : std::min(std::max(a, b), c);
        case PointwiseOp::Floor: return std::floor(a);
        case PointwiseOp::Ceil: return std::ceil(a);
        case PointwiseOp::Count: break;
    }
    return a;
}

namespace {

struct Program {
    std::vector<PointwiseStep> steps;
    std::vector<float> immediates;
    std::vector<int64_t> outputRegisters;
};

// The node's program, checked: every register a step reads is an input, an earlier step or
// an immediate that exists (a node from a model file is data, never trusted).
Program programOf(const Node& n) {
    Program p;
    for (int64_t code : n.attrInts("steps")) p.steps.push_back(decodeStep(code));
    p.immediates = n.attrFloats("immediates");
    p.outputRegisters = n.attrInts("output_registers");
    const size_t inputs = n.inputs.size();
    if (inputs < 1 || inputs > kPointwiseMaxInputs || p.steps.empty() || p.steps.size() > kPointwiseMaxSteps ||
        p.immediates.size() > kPointwiseMaxImmediates || p.outputRegisters.empty() ||
        p.outputRegisters.size() > kPointwiseMaxOutputs || p.outputRegisters.size() != n.outputs.size())
        shapeError(n, "malformed pointwise program ({} inputs, {} steps, {} immediates, {} outputs)", inputs,
                   p.steps.size(), p.immediates.size(), p.outputRegisters.size());
    auto readable = [&](int64_t r, size_t beforeStep) {
        if (r >= 0 && r < static_cast<int64_t>(inputs)) return true;
        if (r >= kPointwiseStepRegister && r < kPointwiseStepRegister + static_cast<int64_t>(beforeStep)) return true;
        return r >= kPointwiseImmediateRegister && r < kPointwiseImmediateRegister + static_cast<int64_t>(p.immediates.size());
    };
    for (size_t k = 0; k < p.steps.size(); ++k) {
        const auto& s = p.steps[k];
        if (s.op >= PointwiseOp::Count || !readable(s.a, k) || !readable(s.b, k) || !readable(s.c, k))
            shapeError(n, "pointwise step {} is malformed", k);
    }
    for (int64_t r : p.outputRegisters)
        if (!readable(r, p.steps.size())) shapeError(n, "pointwise output register {} is not written", r);
    return p;
}

void inferPointwise(Graph& g, const Node& n) {
    programOf(n);
    Shape out;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
        const auto& v = inputValue(g, n, i);
        if (v.dtype != DataType::Float32 && v.dtype != DataType::Float16)
            unsupported(n, "a pointwise program reads float tensors only, got {}", dataTypeName(v.dtype));
        if (v.dtype != inputValue(g, n, 0).dtype) shapeError(n, "input types differ");
        out = i == 0 ? v.shape : broadcastShapes(n, out, v.shape);
    }
    for (size_t k = 0; k < n.outputs.size(); ++k) setOutput(g, n, k, inputValue(g, n, 0).dtype, out);
}

// Runs the program per element in float (float16 tensors in float32, as the kernel does).
void evalPointwise(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const Program p = programOf(n);
    std::array<Tensor, kPointwiseMaxInputs> x;
    std::array<Shape, kPointwiseMaxInputs> shapes;
    for (size_t i = 0; i < kPointwiseMaxInputs; ++i) {
        x[i] = toFloat32(*in[i < in.size() ? i : 0]);
        shapes[i] = x[i].shape();
    }
    std::vector<Tensor> y;
    for (auto& o : out) y.emplace_back(DataType::Float32, o.shape());
    float r[32] = {};
    for (size_t j = 0; j < p.immediates.size(); ++j) r[kPointwiseImmediateRegister + j] = p.immediates[j];
    broadcastWalk<kPointwiseMaxInputs>(out[0].shape(), shapes, [&](int64_t i, const std::array<int64_t, kPointwiseMaxInputs>& off) {
        for (size_t k = 0; k < kPointwiseMaxInputs; ++k) r[k] = x[k].as<float>()[off[k]];
        for (size_t k = 0; k < p.steps.size(); ++k) {
            const auto& s = p.steps[k];
            r[kPointwiseStepRegister + k] = applyPointwiseStep(s.op, r[s.a], r[s.b], r[s.c]);
        }
        for (size_t k = 0; k < y.size(); ++k) y[k].as<float>()[i] = r[p.outputRegisters[k]];
    });
    for (size_t k = 0; k < out.size(); ++k) out[k] = narrowFromFloat32(y[k], out[k].dtype());
}

uint32_t floatBits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

void lowerPointwise(LowerContext& ctx, const Node& n) {
    const Program p = programOf(n);
    std::vector<int> inputs(n.inputs.begin(), n.inputs.end());
    const DataType type = floatKernelType(ctx, n, inputs[0]);
    for (int v : inputs)
        if (ctx.value(v).dtype != type) unsupported(n, "its inputs must all be {}", dataTypeName(type));
    for (int v : n.outputs)
        if (v < 0 || ctx.value(v).dtype != type) unsupported(n, "its outputs must all be {}", dataTypeName(type));
    const Shape shape = ctx.value(n.outputs[0]).shape;
    std::array<Shape, kPointwiseMaxInputs> shapes;
    for (size_t i = 0; i < kPointwiseMaxInputs; ++i) shapes[i] = i < inputs.size() ? ctx.value(inputs[i]).shape : Shape{};
    const auto push = broadcastPush<kernels::pointwise::Push>(n, shape, shapes);
    const auto outs = n.outputs.size() == 1 ? kernels::pointwise::Outs::o1 : kernels::pointwise::Outs::o2;
    Dispatch& d = ctx.emit(typedKernel(n, kernels::pointwise::variant(outs, type), "pointwise", type));
    using namespace kernels::pointwise;
    d.setSpec(kNumInputs, static_cast<uint32_t>(inputs.size()));
    d.setSpec(kNumSteps, static_cast<uint32_t>(p.steps.size()));
    d.setSpec(kOut0, static_cast<uint32_t>(p.outputRegisters[0]));
    d.setSpec(kOut1, static_cast<uint32_t>(p.outputRegisters.size() > 1 ? p.outputRegisters[1] : 0));
    for (size_t k = 0; k < p.steps.size(); ++k)
        d.setSpec(kStep0 + static_cast<uint32_t>(k), static_cast<uint32_t>(encodeStep(p.steps[k])));
    for (size_t j = 0; j < p.immediates.size(); ++j) d.setSpec(kImm0 + static_cast<uint32_t>(j), floatBits(p.immediates[j]));
    d.setPush(push);
    setLaunch1d(d, push.count);
    for (int v : n.outputs) d.bindings.push_back(writeOf(v));
    // Unused input bindings read input 0 (the kernel never loads them: NUM_INPUTS).
    for (size_t i = 0; i < kPointwiseMaxInputs; ++i) d.bindings.push_back(readOf(inputs[i < inputs.size() ? i : 0]));
}

}  // namespace

void registerPointwiseOps(std::vector<OpDef>& t) {
    t.push_back(withFp16({kPointwiseOpType, 1, 1000, inferPointwise, evalPointwise, lowerPointwise}));
}

}  // namespace vkinfer::ops
