// A dispatch: one vkCmdDispatch of one compute kernel, with the tensors it reads and writes.
// Lowering produces these from graph nodes; the planners and the runtime consume them.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/kernel_ids.h"

namespace vkinfer::ops {

enum class Access : uint8_t { Read, Write };

// A byte range of a graph value. size -1 means "to the end of the value".
struct TensorRef {
    int value = -1;
    int64_t offset = 0;
    int64_t size = -1;
};

// One storage-buffer binding; bindings[i] is GLSL binding i.
struct Binding {
    TensorRef ref;
    Access access = Access::Read;
};

using kernels::kMaxPushConstantBytes;  // the minimum every Vulkan device guarantees

struct Dispatch {
    kernels::KernelId kernel = kernels::KernelId::none;  // the variant (kernels/families/*.h)
    std::array<uint32_t, 3> localSize{64, 1, 1};  // specialization constants 0, 1, 2
    std::vector<uint32_t> spec;              // specialization constants 3, 4, ... (uint or float bits)
    std::vector<uint8_t> push;               // push-constant bytes
    std::array<uint32_t, 3> groups{1, 1, 1};
    std::vector<Binding> bindings;
    int node = -1;                           // the graph node it implements
    std::string label;                       // sub-step of a multi-dispatch op, if any

    template <class T>
    void setPush(const T& block) {
        static_assert(std::is_trivially_copyable_v<T>);
        static_assert(sizeof(T) <= kMaxPushConstantBytes, "push constants exceed the 128 bytes every device offers");
        push.resize(sizeof(T));
        std::memcpy(push.data(), &block, sizeof(T));
    }
    // Specialization constant `id` (6 or more: a family's own, kernels/families/*.h SpecId);
    // constants between the last one set and `id` are 0, every kernel's default.
    void setSpec(uint32_t id, uint32_t value) {
        if (spec.size() < id - 2) spec.resize(id - 2, 0);
        spec[id - 3] = value;
    }
    void addSpecFloat(float f) {
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        spec.push_back(bits);
    }
};

inline uint32_t ceilDiv(int64_t a, int64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

}  // namespace vkinfer::ops
