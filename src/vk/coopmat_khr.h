#pragma once
// SPV_NV_cooperative_matrix -> SPV_KHR_cooperative_matrix, on SPIR-V binaries.
//
// Debian 12's glslc compiles GL_NV_cooperative_matrix but not GL_KHR_cooperative_matrix, and
// NVIDIA's driver runs the KHR form of the same kernels 1-7% faster on the H200's models
// (docs/BENCHMARKS.md); devices that offer only KHR get the tensor-core kernels at all. The two extensions describe the same operations; what KHR adds is a
// "use" (A, B or accumulator) in every matrix type, which NV leaves to the multiply-add that
// consumes it. The translation infers each value's use from the data flow: values, variables,
// access chains, loads, stores and phis that must share a type form one class, the operands
// of a multiply-add fix their classes' uses, classes no multiply-add touches are accumulators,
// and each NV type (and pointer or array built on it) is split into one KHR type per use.
// Loads and stores take a layout constant instead of the column-major boolean.
//
// It handles what glslc emits for vkinfer's kernels; modules with cooperative matrices in
// function parameters, OpCooperativeMatrixLengthNV, a non-constant column-major flag or one
// constant needed in two uses are refused with a message rather than translated wrongly.

#include <cstdint>
#include <string>
#include <vector>

namespace vkinfer::vk {

struct CoopmatTranslation {
    std::vector<uint32_t> words;  // the KHR module; empty when refused
    std::string error;            // why it was refused
};

// True when the module declares the CooperativeMatrixNV capability.
bool usesCooperativeMatrixNv(const uint32_t* code, size_t words);

// The module with every NV cooperative-matrix type and instruction in its KHR form (modules
// without them come back unchanged).
CoopmatTranslation translateCoopmatNvToKhr(const uint32_t* code, size_t words);

}  // namespace vkinfer::vk
