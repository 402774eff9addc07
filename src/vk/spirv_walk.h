// One walk over a SPIR-V module's instructions, for the readers that take facts from a
// kernel's code (spirvNeeds, spirvInterface, spirvSharedMemoryBytes): the header check and
// the bounds of every instruction in one place. Pure C++, no device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace vkinfer::vk {

struct SpirvInstruction {
    uint32_t op = 0;                     // the opcode (low half of the first word)
    const uint32_t* operands = nullptr;  // the words after the first
    size_t count = 0;                    // how many operands
    size_t at = 0;                       // the first word's index in the module
};

// Calls visit(const SpirvInstruction&) for each instruction after the 5-word header, in
// order, until visit returns false or the module ends. Returns the empty string, or why the
// module is not one: "not a SPIR-V module" (no code, too short, wrong magic number) or
// "truncated instruction at word N" (a word count of 0, or one past the end).
template <class Visit>
std::string forEachSpirvInstruction(const uint32_t* code, size_t words, Visit&& visit) {
    constexpr uint32_t kMagic = 0x07230203;
    constexpr size_t kHeaderWords = 5;
    if (!code || words < kHeaderWords || code[0] != kMagic) return "not a SPIR-V module";
    for (size_t at = kHeaderWords; at < words;) {
        const uint32_t count = code[at] >> 16;
        if (count == 0 || at + count > words) return fmt::format("truncated instruction at word {}", at);
        if (!visit(SpirvInstruction{code[at] & 0xffffu, code + at + 1, count - 1u, at})) break;
        at += count;
    }
    return {};
}

}  // namespace vkinfer::vk
