// The SPIR-V of every kernel variant, compiled at build time (cmake/Shaders.cmake,
// shaders/kernels.cmake).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace vkinfer::vk {

struct ShaderBlob {
    std::string_view name;
    const uint32_t* code;
    size_t words;
};

const std::vector<ShaderBlob>& shaderTable();
// Null if no variant has this name.
const ShaderBlob* findShader(std::string_view name);

}  // namespace vkinfer::vk
