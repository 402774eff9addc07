// The SPIR-V of every kernel variant, compiled at build time (cmake/Shaders.cmake,
// shaders/kernels.cmake) and embedded. Lowering asks which variants exist (a typed kernel
// for a data type the build does not provide is reported as unsupported); the Vulkan layer
// creates shader modules from the code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace vkinfer::kernels {

struct KernelBlob {
    std::string_view name;
    const uint32_t* code;
    size_t words;
};

const std::vector<KernelBlob>& table();
// Null if no variant has this name.
const KernelBlob* find(std::string_view name);

}  // namespace vkinfer::kernels
