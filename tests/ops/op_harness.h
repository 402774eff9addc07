// Op tests: run a small model on the GPU (with validation, in both sync modes) and compare
// it against the CPU reference (the ops' naive implementations, see passes/cpu_reference.h).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/gpu_context.h"
#include "support/onnx_builder.h"

namespace vkinfer::testing {

// Tolerance for op tests: float32 kernels against double-accumulating references.
inline Tolerance opTolerance() { return Tolerance{1e-4, 1e-5, true}; }
// Tolerance for checking the CPU reference against hand-computed values.
inline Tolerance exactTolerance() { return Tolerance{1e-5, 1e-6, true}; }

// Builds the model, runs it on the GPU in minimal and conservative sync modes at `precision`,
// and expects every output to match the CPU reference within `tol`, with the reference's type
// (and the two modes to agree bit for bit). `what` names the case in failure messages.
void expectGpuMatchesCpu(const OnnxBuilder& builder, const std::vector<NamedTensor>& inputs, const std::string& what,
                         Tolerance tol = opTolerance(), Precision precision = Precision::Float32);
// The same with every session option given (its sync mode is set to each of the two).
void expectGpuMatchesCpuWith(const OnnxBuilder& builder, const std::vector<NamedTensor>& inputs,
                             const std::string& what, Tolerance tol, const SessionOptions& options);

// Output 0 of the model run on the GPU with `options` in minimal sync, after expecting the
// conservative run to give it bit for bit; records a test failure and returns an empty
// tensor when the model does not build or run.
Tensor runInBothSyncModes(const OnnxBuilder& builder, const std::vector<NamedTensor>& inputs, SessionOptions options);

// The CPU reference outputs (the ops' unfused naive evaluate functions); records a test
// failure and returns an empty vector when the model does not build or run.
std::vector<Tensor> cpuReference(const OnnxBuilder& builder, const std::vector<NamedTensor>& inputs,
                                 const std::string& what);

// Checks the CPU reference itself against hand-computed outputs (so it is not just
// trusted), then, where a GPU exists, the GPU against the reference.
void expectReferenceEquals(const OnnxBuilder& builder, const std::vector<NamedTensor>& inputs,
                           const std::vector<Tensor>& expected, const std::string& what,
                           Tolerance tol = exactTolerance());

// Expects `actual` to match `expected` (shape, type and values within `tol`).
void expectTensorNear(const Tensor& actual, const Tensor& expected, const std::string& what,
                      Tolerance tol = exactTolerance());

// Dispatches in the compiled plan for these inputs' shapes (to check that a fusion fired or
// an in-place Concat needed no copy), by default as planned for no device in particular (a
// CPU's kernels); -1 (and a test failure) when planning fails.
int64_t planDispatches(const OnnxBuilder& builder, const std::vector<NamedTensor>& inputs,
                       const PlanOptions& options = {});

// Expects the model to build but its session to fail with Unsupported (an attribute
// combination the engine rejects instead of computing it wrong).
void expectUnsupported(const OnnxBuilder& builder, const std::vector<NamedTensor>& inputs, const std::string& what);

// 0, 1, 2, ... (times `step`, plus `start`) in row-major order.
Tensor iotaTensor(const std::vector<int64_t>& shape, float start = 0.0f, float step = 1.0f);

// A seed derived from a case name, so that every case gets different data.
uint32_t seedOf(const std::string& what);

// Deterministic pseudo-random integers in [lo, hi] stored as `type` (an integer type, or
// bool for lo = 0, hi = 1).
Tensor randomIntTensor(const std::vector<int64_t>& shape, DataType type, uint32_t seed, int64_t lo, int64_t hi);
// A float32 tensor converted to `type`: float16 (round to nearest even), float64, or an
// integer type or bool (truncation toward zero, x != 0), as ONNX Cast does.
Tensor convertTensor(const Tensor& f32, DataType type);
// Values given as doubles, stored as `type` (through convertTensor's rules).
Tensor typedTensor(DataType type, const std::vector<int64_t>& shape, const std::vector<double>& values);

}  // namespace vkinfer::testing
