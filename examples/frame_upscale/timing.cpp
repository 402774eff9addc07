#include "timing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "vk_util.h"

namespace demo {

GpuTimer::GpuTimer(const VulkanHost& host, uint32_t slots) : host_(host) {
    if (!host.timestamps) return;
    VkQueryPoolCreateInfo ci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    ci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    ci.queryCount = slots * kPerSlot;
    DEMO_VK(vkCreateQueryPool(host.device, &ci, nullptr, &pool_));
}

GpuTimer::~GpuTimer() {
    if (pool_) vkDestroyQueryPool(host_.device, pool_, nullptr);
}

void GpuTimer::reset(VkCommandBuffer cmd, uint32_t slot) const {
    if (pool_) vkCmdResetQueryPool(cmd, pool_, first(slot), kPerSlot);
}

void GpuTimer::stamp(VkCommandBuffer cmd, uint32_t slot, uint32_t index, VkPipelineStageFlagBits stage) const {
    if (pool_) vkCmdWriteTimestamp(cmd, stage, pool_, first(slot) + index);
}

uint64_t GpuTimer::read(uint32_t query) const {
    uint64_t v = 0;
    DEMO_VK(vkGetQueryPoolResults(host_.device, pool_, query, 1, sizeof(v), &v, sizeof(v),
                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    return v;
}

double GpuTimer::ms(uint32_t slot, uint32_t a, uint32_t b, bool computeQueue) const {
    if (!pool_) return 0;
    const uint64_t mask = computeQueue ? host_.computeTimestampMask : host_.timestampMask;
    uint64_t ta = read(first(slot) + a) & mask, tb = read(first(slot) + b) & mask;
    uint64_t ticks = (tb - ta) & mask;  // wraps within the valid bits
    return static_cast<double>(ticks) * host_.limits.timestampPeriod * 1e-6;
}

void settleSync(FrameTimes& t) {
    if (!t.known) {
        t.renderMs = t.transferMs = t.inferenceMs = 0;
        t.syncMs = t.totalMs;
        return;
    }
    const double busy = t.overlapped ? std::max(t.renderMs, t.transferMs + t.inferenceMs)
                                     : t.renderMs + t.transferMs + t.inferenceMs;
    t.syncMs = std::max(0.0, t.totalMs - busy);
}

std::string formatTimes(const FrameTimes& t) {
    char buf[256];
    if (!t.known) {
        std::snprintf(buf, sizeof(buf),
                      "render n/a, transfer n/a, sync n/a, inference n/a (no timestamps), total %.3f ms "
                      "(host submit %.3f ms)",
                      t.totalMs, t.cpuMs);
    } else {
        std::snprintf(buf, sizeof(buf),
                      "render %.3f ms, transfer %.3f ms, sync %.3f ms, inference %.3f ms, total %.3f ms "
                      "(host submit %.3f ms%s)",
                      t.renderMs, t.transferMs, t.syncMs, t.inferenceMs, t.totalMs, t.cpuMs,
                      t.overlapped ? "; render beside inference" : "");
    }
    return buf;
}

FrameTimes medianTimes(const std::vector<FrameTimes>& frames) {
    FrameTimes m;
    if (frames.empty()) return m;
    auto median = [&](double FrameTimes::*field) {
        std::vector<double> v;
        for (const auto& f : frames) v.push_back(f.*field);
        std::sort(v.begin(), v.end());
        size_t n = v.size();
        return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    };
    m.renderMs = median(&FrameTimes::renderMs);
    m.transferMs = median(&FrameTimes::transferMs);
    m.inferenceMs = median(&FrameTimes::inferenceMs);
    m.syncMs = median(&FrameTimes::syncMs);
    m.cpuMs = median(&FrameTimes::cpuMs);
    m.totalMs = median(&FrameTimes::totalMs);
    m.known = std::all_of(frames.begin(), frames.end(), [](const FrameTimes& f) { return f.known; });
    m.overlapped = std::all_of(frames.begin(), frames.end(), [](const FrameTimes& f) { return f.overlapped; });
    return m;
}

}  // namespace demo
