// What a kernel's SPIR-V says about its interface with the host: the bytes of its push-constant
// block, its descriptor bindings and its specialization constant ids. Read from the module
// itself (decorations, types, variables), so that tests can hold the C++ side (the generated
// declarations, every planned dispatch) against the code that runs. Pure C++, no device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

namespace vkinfer::vk {

struct SpirvInterface {
    bool valid = true;
    std::string problem;           // why it is not valid
    uint32_t pushConstantBytes = 0;  // 0: no push-constant block
    std::set<uint32_t> bindings;     // descriptor binding numbers (set 0; aliases count once)
    std::set<uint32_t> specIds;      // every SpecId, local size ids included
};

SpirvInterface spirvInterface(const uint32_t* code, size_t words);

}  // namespace vkinfer::vk
