// The fused element-wise program (op type kPointwiseOpType, made by passes/pointwise_fusion.cpp,
// run by shaders/pointwise.comp): a node with up to kMaxInputs float inputs broadcast
// NumPy-style to one output shape, 1 or 2 outputs of that shape, and a straight-line program
// over registers. Registers: 0..3 the inputs, 4 + k the result of step k, 20 + j immediate j.
// Attributes: "steps" (encodeStep per step), "immediates" (floats), "output_registers" (one
// register per output). Not an ONNX op: the importer never writes it (its type has a dot).
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"

namespace vkinfer::ops {

inline constexpr const char* kPointwiseOpType = "vkinfer.Pointwise";
inline constexpr int kPointwiseMaxInputs = 4;
inline constexpr int kPointwiseMaxSteps = 16;
inline constexpr int kPointwiseMaxImmediates = 8;
inline constexpr int kPointwiseMaxOutputs = 2;
inline constexpr uint32_t kPointwiseStepRegister = 4;       // step k writes register 4 + k
inline constexpr uint32_t kPointwiseImmediateRegister = 20;  // immediate j is register 20 + j

// The step operations, as shaders/pointwise.comp's applyStep() numbers them. b and c are unused by
// unary steps; LeakyRelu's slope is b, HardSigmoid's alpha and beta b and c, Clip's bounds b, c.
enum class PointwiseOp : uint32_t {
    Add = 0, Sub, Mul, Div, Pow, Max, Min, Neg, Abs, Sqrt, Exp, Log, Erf, Tanh, Sigmoid, Relu, Reciprocal,
    LeakyRelu, Gelu, GeluTanh, Silu, HardSigmoid, HardSwish, Clip, Floor, Ceil,
    Count
};

struct PointwiseStep {
    PointwiseOp op = PointwiseOp::Add;
    uint32_t a = 0, b = 0, c = 0;  // register numbers
};

inline int64_t encodeStep(const PointwiseStep& s) {
    return static_cast<int64_t>(static_cast<uint32_t>(s.op) | s.a << 8 | s.b << 13 | s.c << 18);
}
inline PointwiseStep decodeStep(int64_t code) {
    const auto u = static_cast<uint32_t>(code);
    return {static_cast<PointwiseOp>(u & 255u), (u >> 8) & 31u, (u >> 13) & 31u, (u >> 18) & 31u};
}

// The value of one step on the CPU, as the kernel computes it (float arithmetic).
float applyPointwiseStep(PointwiseOp op, float a, float b, float c);

struct OpDef;
// Adds the op's entry (called by registerElementwiseOps, whose family it extends).
void registerPointwiseOps(std::vector<OpDef>& table);

}  // namespace vkinfer::ops
