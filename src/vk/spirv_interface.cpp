#include "vk/spirv_interface.h"

#include <algorithm>
#include <map>
#include <vector>

#include "vk/spirv_walk.h"

namespace vkinfer::vk {

namespace {

// Opcodes, decorations and storage classes of the SPIR-V specification that this reads.
enum : uint32_t {
    kOpTypeInt = 21, kOpTypeFloat = 22, kOpTypeVector = 23, kOpTypeArray = 28, kOpTypeStruct = 30,
    kOpTypePointer = 32, kOpConstant = 43, kOpVariable = 59, kOpDecorate = 71, kOpMemberDecorate = 72,
};
enum : uint32_t { kSpecId = 1, kArrayStride = 6, kBinding = 33, kOffset = 35 };
constexpr uint32_t kPushConstant = 9;

struct Type {
    uint32_t op = 0;
    std::vector<uint32_t> operands;  // after the result id
};

}  // namespace

SpirvInterface spirvInterface(const uint32_t* code, size_t words) {
    SpirvInterface out;
    std::map<uint32_t, Type> types;
    std::map<uint32_t, uint32_t> constants, arrayStride;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> memberOffset;
    std::map<uint32_t, uint32_t> bindingOf;
    std::vector<uint32_t> pushVariableTypes;
    out.problem = forEachSpirvInstruction(code, words, [&](const SpirvInstruction& in) {
        const uint32_t* w = in.operands;
        const size_t n = in.count;
        switch (in.op) {
            case kOpTypeInt:
            case kOpTypeFloat:
            case kOpTypeVector:
            case kOpTypeArray:
            case kOpTypeStruct:
            case kOpTypePointer:
                if (n >= 1) types[w[0]] = {in.op, std::vector<uint32_t>(w + 1, w + n)};
                break;
            case kOpConstant:
                if (n >= 3) constants[w[1]] = w[2];
                break;
            case kOpVariable:
                if (n >= 3 && w[2] == kPushConstant) pushVariableTypes.push_back(w[0]);
                break;
            case kOpDecorate:
                if (n >= 3 && w[1] == kSpecId) out.specIds.insert(w[2]);
                if (n >= 3 && w[1] == kBinding) bindingOf[w[0]] = w[2];
                if (n >= 3 && w[1] == kArrayStride) arrayStride[w[0]] = w[2];
                break;
            case kOpMemberDecorate:
                if (n >= 4 && w[2] == kOffset) memberOffset[{w[0], w[1]}] = w[3];
                break;
            default: break;
        }
        return true;
    });
    if (!out.problem.empty()) {
        out.valid = false;
        return out;
    }
    for (const auto& [var, binding] : bindingOf) out.bindings.insert(binding);

    // Bytes of a type as laid out in the block (std430 offsets as decorated).
    std::map<uint32_t, uint32_t> memo;
    auto sizeOf = [&](auto&& self, uint32_t id, int depth) -> uint32_t {
        if (depth > 16) return 0;
        if (auto m = memo.find(id); m != memo.end()) return m->second;
        auto t = types.find(id);
        if (t == types.end()) return 0;
        const auto& o = t->second.operands;
        uint32_t size = 0;
        switch (t->second.op) {
            case kOpTypeInt:
            case kOpTypeFloat: size = o.empty() ? 0 : o[0] / 8; break;
            case kOpTypeVector: size = o.size() < 2 ? 0 : o[1] * self(self, o[0], depth + 1); break;
            case kOpTypeArray: {
                const uint32_t length = o.size() < 2 ? 0 : constants[o[1]];
                const uint32_t stride = arrayStride.count(id) ? arrayStride[id] : self(self, o[0], depth + 1);
                size = length * stride;
                break;
            }
            case kOpTypeStruct:
                for (uint32_t m = 0; m < o.size(); ++m)
                    size = std::max(size, memberOffset[{id, m}] + self(self, o[m], depth + 1));
                break;
            default: break;
        }
        memo[id] = size;
        return size;
    };
    for (uint32_t pointer : pushVariableTypes) {
        auto p = types.find(pointer);
        if (p == types.end() || p->second.op != kOpTypePointer || p->second.operands.size() < 2) continue;
        out.pushConstantBytes = std::max(out.pushConstantBytes, sizeOf(sizeOf, p->second.operands[1], 0));
    }
    return out;
}

}  // namespace vkinfer::vk
