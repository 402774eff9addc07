#pragma once
// The workgroup (shared) memory a compute kernel's SPIR-V declares, with its specialization
// constants applied: the sizes a kernel selection computes by hand from a shader's
// declarations (ops/attention_select.h) are checked against it, and every dispatch that planning
// emits for a described device against the device's maxComputeSharedMemorySize
// (tests/plan/kernel_interface_test.cpp); vk::PipelineCache refuses, by name, a pipeline whose
// declarations exceed the device's (drivers need not report it: lavapipe creates it). Pure
// C++, no device.

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace vkinfer::vk {

struct SharedMemoryBytes {
    std::optional<uint64_t> bytes;  // the sum over the module's Workgroup variables
    std::string error;              // why there is no sum: what this reader does not evaluate
};

// `spec[i]` is the value of specialization constant i (as vk::PipelineCache passes them: ids
// 0 .. spec.size() - 1); constants past the span keep the module's defaults. Array lengths may
// be specialization constants or OpSpecConstantOp expressions of integer arithmetic,
// comparisons and selects; element types are scalars, vectors, arrays and structs (members
// packed without padding, as every declaration in shaders/ is laid out).
SharedMemoryBytes spirvSharedMemoryBytes(const uint32_t* code, size_t words, std::span<const uint32_t> spec);

}  // namespace vkinfer::vk
