#include "runtime/plan_timestamps.h"

#include <vector>

namespace vkinfer::rt {

void TimestampLayout::readGpuTimes(const detail::ContextImpl& ctx, VkQueryPool pool, RunStats& stats) const {
    stats.gpuMs = stats.transferGpuMs = -1;
    stats.dispatchMs.clear();
    stats.dispatchStartMs.clear();
    stats.dispatchEndMs.clear();
    // Every run reads its timestamps: no allocation unless profiling.
    uint64_t fixed[kFirstDispatchQuery] = {};
    std::vector<uint64_t> perDispatch(profile_ ? count() : 0);
    uint64_t* ts = profile_ ? perDispatch.data() : fixed;
    if (enabled_ && vkGetQueryPoolResults(ctx.device->handle(), pool, 0, count(), count() * sizeof(uint64_t), ts,
                                          sizeof(uint64_t), VK_QUERY_RESULT_64_BIT) == VK_SUCCESS) {
        uint32_t bits = validBits_;
        uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
        auto ms = [&](size_t a, size_t b) {
            return static_cast<double>((ts[b] - ts[a]) & mask) * ctx.info.timestampPeriodNs * 1e-6;
        };
        stats.gpuMs = ms(kBeforeDispatches, kAfterDispatches);
        stats.transferGpuMs = ms(kBeforeUploads, kBeforeDispatches) + ms(kAfterDispatches, kAfterReadback);
        if (profile_) {
            for (size_t i = 0; i < dispatchCount_; ++i) {
                stats.dispatchMs.push_back(ms(i == 0 ? kBeforeDispatches : endQuery(i - 1), endQuery(i)));
                stats.dispatchStartMs.push_back(ms(kBeforeDispatches, startQuery(i)));
                stats.dispatchEndMs.push_back(ms(kBeforeDispatches, endQuery(i)));
            }
        }
    }
}

}  // namespace vkinfer::rt
