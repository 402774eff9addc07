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

// Builds the model, runs it on the GPU in minimal and conservative sync modes, and expects
// every output to match the CPU reference within `tol` (and the two modes to agree bit for
// bit). `what` names the case in failure messages.
void expectGpuMatchesCpu(const OnnxBuilder& builder, const std::vector<NamedTensor>& inputs, const std::string& what,
                         Tolerance tol = opTolerance());

}  // namespace vkinfer::testing
