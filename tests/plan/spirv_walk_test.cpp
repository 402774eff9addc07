// vk::forEachSpirvInstruction, the walk under the three SPIR-V readers: what it visits, where
// it stops, and what it says of what is not a whole module (the readers pass its words on).
#include <gtest/gtest.h>

#include <vector>

#include "vk/device_features.h"
#include "vk/spirv_interface.h"
#include "vk/spirv_shared_memory.h"
#include "vk/spirv_walk.h"

namespace vkinfer::vk {
namespace {

constexpr uint32_t kMagic = 0x07230203;
uint32_t word(uint32_t count, uint32_t op) { return count << 16 | op; }

TEST(SpirvWalk, VisitsEachInstructionWithItsOperands) {
    // Header, OpCapability Shader (2 words), OpNop (1), OpDecorate %7 SpecId 3 (4).
    const std::vector<uint32_t> m = {kMagic, 0x10000, 0, 10, 0, word(2, 17), 1, word(1, 0), word(4, 71), 7, 1, 3};
    std::vector<uint32_t> ops;
    std::vector<size_t> counts, at;
    const std::string problem = forEachSpirvInstruction(m.data(), m.size(), [&](const SpirvInstruction& in) {
        ops.push_back(in.op);
        counts.push_back(in.count);
        at.push_back(in.at);
        return true;
    });
    EXPECT_EQ(problem, "");
    EXPECT_EQ(ops, (std::vector<uint32_t>{17, 0, 71}));
    EXPECT_EQ(counts, (std::vector<size_t>{1, 0, 3}));
    EXPECT_EQ(at, (std::vector<size_t>{5, 7, 8}));
}

TEST(SpirvWalk, StopsWhereTheVisitorSays) {
    const std::vector<uint32_t> m = {kMagic, 0x10000, 0, 10, 0, word(2, 17), 1, word(2, 17), 9, word(1, 0)};
    int seen = 0;
    // A truncated instruction after the stop is never read.
    std::vector<uint32_t> cut = m;
    cut.back() = word(5, 0);
    const std::string problem = forEachSpirvInstruction(cut.data(), cut.size(), [&](const SpirvInstruction& in) {
        ++seen;
        return in.operands[0] != 9;
    });
    EXPECT_EQ(problem, "");
    EXPECT_EQ(seen, 2);
}

TEST(SpirvWalk, NamesWhatIsNotAModule) {
    const auto walk = [](const std::vector<uint32_t>& m) {
        return forEachSpirvInstruction(m.data(), m.size(), [](const SpirvInstruction&) { return true; });
    };
    EXPECT_EQ(forEachSpirvInstruction(nullptr, 0, [](const SpirvInstruction&) { return true; }), "not a SPIR-V module");
    EXPECT_EQ(walk({kMagic, 0x10000, 0, 10}), "not a SPIR-V module");
    EXPECT_EQ(walk({0x03022307, 0x10000, 0, 10, 0}), "not a SPIR-V module");
    EXPECT_EQ(walk({kMagic, 0x10000, 0, 10, 0, word(2, 17), 1, word(3, 17), 1}), "truncated instruction at word 7");
    EXPECT_EQ(walk({kMagic, 0x10000, 0, 10, 0, word(0, 17)}), "truncated instruction at word 5");
}

TEST(SpirvWalk, EveryReaderRefusesATruncatedModule) {
    const std::vector<uint32_t> m = {kMagic, 0x10000, 0, 10, 0, word(2, 17), 1, word(3, 17), 1};
    EXPECT_FALSE(spirvNeeds(m.data(), m.size()).valid);
    const SpirvInterface i = spirvInterface(m.data(), m.size());
    EXPECT_FALSE(i.valid);
    EXPECT_EQ(i.problem, "truncated instruction at word 7");
    EXPECT_EQ(spirvSharedMemoryBytes(m.data(), m.size(), {}).error, "truncated instruction at word 7");
}

}  // namespace
}  // namespace vkinfer::vk
