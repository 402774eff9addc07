// The SPIR-V of every kernel variant, compiled at build time from the declarations in
// shaders/kernels/*.toml (cmake/kernel_declarations.py, cmake/Shaders.cmake) and embedded,
// indexed by kernels::KernelId. Lowering names variants by id (kernels/families/<family>.h);
// the Vulkan layer creates shader modules from the code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "kernels/kernel_ids.h"

namespace vkinfer::kernels {

struct KernelBlob {
    std::string_view name;
    const uint32_t* code;
    size_t words;
};

const KernelBlob& blob(KernelId id);

// A variant's interface as its family's declaration states it: whether it states one (push
// block or specialization constants), the push-constant bytes, and the ids of its own
// specialization constants (beyond the shared 0-5).
struct KernelInterface {
    bool declared = false;
    uint32_t pushBytes = 0;
    std::vector<uint32_t> specIds;
};
const KernelInterface& declaredInterface(KernelId id);
// Every variant, in KernelId order.
std::span<const KernelBlob> table();

}  // namespace vkinfer::kernels
