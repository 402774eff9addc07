#include "runtime/index_status.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "core/error.h"

namespace vkinfer::rt {

void checkIndexStatus(const plan::CompiledPlan& plan, FrameSlot& s) {
    if (plan.statusAlloc < 0) return;
    auto* base = static_cast<std::byte*>(s.owned[plan.statusAlloc].mapped());
    std::optional<std::string> report;
    for (const auto& check : plan.indexChecks) {
        uint32_t words[4];
        std::memcpy(words, base + check.offset, sizeof words);
        if (words[0] == 0 || report) continue;
        int64_t index = static_cast<int64_t>((static_cast<uint64_t>(words[2]) << 32) | words[1]);
        const int64_t extent = words[3];
        std::string valid = extent ? fmt::format("valid: {} to {}", -extent, extent - 1) : "no index is valid";
        report = fmt::format("{}: index {} in '{}' is out of range for an axis of extent {} ({}); the frame's outputs "
                             "are not returned",
                             check.node, index, check.indices, extent, valid);
    }
    if (!report) return;
    std::fill(s.outputStaged.begin(), s.outputStaged.end(), 0);  // readOutputs returns none of them
    // Coherent memory: these host writes are visible to the slot's next submission.
    std::memset(base, 0, static_cast<size_t>(plan.allocations[plan.statusAlloc].size));
    fail(ErrorCode::InvalidArgument, "{}", *report);
}

}  // namespace vkinfer::rt
