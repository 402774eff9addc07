// vk::spirvSharedMemoryBytes on the embedded kernels and on what is not a whole module. The
// sizes it reads are held against the kernel selections' own sums in kernel_interface_test.cpp.
#include <gtest/gtest.h>

#include <vector>

#include "core/kernel_table.h"
#include "kernels/families/attention_cm.h"
#include "vk/spirv_shared_memory.h"

namespace vkinfer::vk {
namespace {

namespace acm = kernels::attention_cm;

SharedMemoryBytes sharedOf(kernels::KernelId id, const std::vector<uint32_t>& spec) {
    const kernels::KernelBlob& b = kernels::blob(id);
    return spirvSharedMemoryBytes(b.code, b.words, spec);
}

TEST(SpirvSharedMemory, SpecializationConstantsSizeTheArrays) {
    const kernels::KernelId id = acm::variant(acm::Dv::dv64, acm::Mode::nv);
    // Defaults (no constants given): one warp, d 16, one key group.
    const SharedMemoryBytes defaults = sharedOf(id, {});
    ASSERT_TRUE(defaults.bytes) << defaults.error;
    std::vector<uint32_t> spec(acm::kKsplit + 1, 0);
    spec[0] = 32, spec[1] = spec[2] = 1;
    spec[acm::kWarps] = 1, spec[acm::kDp] = 16, spec[acm::kKsplit] = 1;
    EXPECT_EQ(sharedOf(id, spec).bytes, defaults.bytes) << "the defaults, given explicitly";
    // Each key group adds its staging of k and v (32 keys x (16 + 8) and x (64 + 8) halves), a
    // warp's probabilities (16 x 40 halves), its Cs tile (16 x 20 floats) and 32 exchange floats.
    spec[acm::kKsplit] = 3;
    const SharedMemoryBytes three = sharedOf(id, spec);
    ASSERT_TRUE(three.bytes) << three.error;
    const uint64_t perGroup = 2 * (32 * 24 + 32 * 72) + 2 * 16 * 40 + 4 * 16 * 20 + 4 * 32;
    EXPECT_EQ(*three.bytes, *defaults.bytes + 2 * perGroup);
    // Constants past the span keep their defaults: only the local size given.
    EXPECT_EQ(sharedOf(id, {96, 1, 1}).bytes, defaults.bytes);
}

TEST(SpirvSharedMemory, NotAModuleIsAnErrorNotASize) {
    const std::vector<uint32_t> garbage = {1, 2, 3, 4, 5, 6};
    SharedMemoryBytes r = spirvSharedMemoryBytes(garbage.data(), garbage.size(), {});
    EXPECT_FALSE(r.bytes);
    EXPECT_NE(r.error.find("not a SPIR-V module"), std::string::npos) << r.error;
    r = spirvSharedMemoryBytes(nullptr, 0, {});
    EXPECT_FALSE(r.bytes);
    // A real module cut inside an instruction.
    const kernels::KernelBlob& b = kernels::blob(acm::variant(acm::Dv::dv16, acm::Mode::emu));
    std::vector<uint32_t> cut(b.code, b.code + 40);
    cut.push_back(0x00ff0000u | 43u);  // OpConstant claiming 255 words
    r = spirvSharedMemoryBytes(cut.data(), cut.size(), {});
    EXPECT_FALSE(r.bytes);
    EXPECT_NE(r.error.find("truncated"), std::string::npos) << r.error;
}

TEST(SpirvSharedMemory, KernelsWithoutSharedMemoryTakeNone) {
    // Every embedded kernel is read; the element-wise ones declare nothing shared.
    size_t read = 0, none = 0;
    for (const kernels::KernelBlob& b : kernels::table()) {
        const SharedMemoryBytes r = spirvSharedMemoryBytes(b.code, b.words, {});
        EXPECT_TRUE(r.bytes) << b.name << ": " << r.error;
        if (!r.bytes) continue;
        ++read;
        none += *r.bytes == 0;
    }
    EXPECT_EQ(read, kernels::table().size());
    EXPECT_GT(none, 0u);
    EXPECT_LT(none, read);
}

}  // namespace
}  // namespace vkinfer::vk
