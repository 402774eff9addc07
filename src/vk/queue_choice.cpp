#include "vk/queue_choice.h"

#include <functional>

#include "core/error.h"

namespace vkinfer::vk {

namespace {

using Families = std::vector<QueueFamilyInfo>;

bool computeOnly(const QueueFamilyInfo& f) { return f.compute && !f.graphics; }

// The first family that `accept` takes, in index order.
std::optional<uint32_t> firstWhere(const Families& families, const std::function<bool(const QueueFamilyInfo&)>& accept) {
    for (uint32_t i = 0; i < families.size(); ++i)
        if (families[i].queueCount > 0 && accept(families[i])) return i;
    return std::nullopt;
}

std::optional<uint32_t> computeOnlyFamily(const Families& families) {
    if (auto f = firstWhere(families, [](const auto& q) { return computeOnly(q) && q.timestampValidBits > 0; })) return f;
    return firstWhere(families, computeOnly);
}

void checkFamily(const Families& families, uint32_t family, const char* what, const std::string& device) {
    if (family >= families.size())
        fail(ErrorCode::InvalidArgument, "{} {} does not exist on '{}' ({} queue famil{})", what, family, device,
             families.size(), families.size() == 1 ? "y" : "ies");
    if (!families[family].compute)
        fail(ErrorCode::Unsupported, "{} {} of '{}' has no compute ({})", what, family, device,
             describeQueueFamily(families, family));
}

QueueInfo infoFor(const Families& families, uint32_t family, const std::string& device) {
    QueueInfo q;
    q.family = family;
    q.computeOnly = computeOnly(families[family]);
    q.description = describeQueueFamily(families, family) + " of '" + device + "'";
    return q;
}

}  // namespace

std::string describeQueueFamily(const Families& families, uint32_t family) {
    if (family >= families.size()) return fmt::format("queue family {} (not on the device)", family);
    const QueueFamilyInfo& f = families[family];
    std::string has;
    for (auto [on, name] : {std::pair{f.graphics, "graphics"}, {f.compute, "compute"}, {f.transfer, "transfer"}})
        if (on) has += (has.empty() ? "" : ", ") + std::string(name);
    return fmt::format("queue family {} ({}{})", family, has.empty() ? "nothing" : has,
                       f.graphics || !f.compute ? "" : "; no graphics");
}

ContextQueuePlan chooseContextQueues(const Families& families, const std::string& device) {
    auto stamped = [](const QueueFamilyInfo& q) { return q.compute && q.timestampValidBits > 0; };
    std::optional<uint32_t> main = firstWhere(families, [&](const auto& q) { return stamped(q) && !q.graphics; });
    if (!main) main = firstWhere(families, stamped);
    if (!main) main = firstWhere(families, computeOnly);
    if (!main) main = firstWhere(families, [](const auto& q) { return q.compute; });
    if (!main) fail(ErrorCode::Unsupported, "device '{}' has no compute queue", device);
    return {*main, computeOnlyFamily(families)};
}

QueueAssignment assignContextQueues(const Families& families, const ContextQueuePlan& plan, const std::string& device) {
    QueueAssignment a;
    a.context = infoFor(families, plan.main, device);
    if (plan.async) {
        a.async = infoFor(families, *plan.async, device);
        if (*plan.async == plan.main) a.async.description += ", the context's queue";
    } else {
        a.async = a.context;
        a.async.fellBack = true;
        a.async.description = fmt::format("'{}' has no compute queue family without graphics: asynchronous compute "
                                          "falls back to the context's queue, {}",
                                          device, describeQueueFamily(families, plan.main));
    }
    return a;
}

QueueAssignment assignHostQueues(const Families& families, uint32_t hostFamily, std::optional<uint32_t> computeFamily,
                                 bool sameQueue, const std::string& device) {
    checkFamily(families, hostFamily, "HostDevice::queueFamilyIndex: queue family", device);
    QueueAssignment a;
    a.context = infoFor(families, hostFamily, device);
    a.context.hostQueue = true;
    a.context.description = "the host's " + a.context.description;
    if (!computeFamily) {
        a.async = a.context;
        a.async.fellBack = true;
        a.async.description = fmt::format("the host named no compute queue (HostDevice::computeQueueFamilyIndex): "
                                          "asynchronous compute falls back to the host's {}",
                                          describeQueueFamily(families, hostFamily));
        return a;
    }
    checkFamily(families, *computeFamily, "HostDevice::computeQueueFamilyIndex: queue family", device);
    a.async = infoFor(families, *computeFamily, device);
    a.async.hostQueue = *computeFamily == hostFamily;
    if (a.async.computeOnly) {
        a.async.description = "the host's compute queue, " + a.async.description;
    } else {
        a.async.fellBack = true;
        a.async.description = fmt::format("the host's compute queue is in {}, which has graphics{}: nothing "
                                          "guarantees that inference runs beside the rendering",
                                          describeQueueFamily(families, *computeFamily),
                                          sameQueue ? " and is the host's own queue" : "");
    }
    return a;
}

}  // namespace vkinfer::vk

namespace vkinfer {

Result<AsyncQueueChoice> chooseAsyncComputeQueue(const std::vector<QueueFamilyInfo>& families, uint32_t graphicsFamily) {
    return guardResult<AsyncQueueChoice>([&] {
        if (graphicsFamily >= families.size())
            fail(ErrorCode::InvalidArgument, "chooseAsyncComputeQueue: graphics family {} does not exist ({} famil{})",
                 graphicsFamily, families.size(), families.size() == 1 ? "y" : "ies");
        AsyncQueueChoice c;
        auto describe = [&](uint32_t f) { return vk::describeQueueFamily(families, f); };
        if (auto f = vk::computeOnlyFamily(families)) {
            c.kind = AsyncQueueKind::ComputeFamily;
            c.family = *f;
            c.description = "asynchronous compute on " + describe(*f);
            return c;
        }
        const QueueFamilyInfo& g = families[graphicsFamily];
        if (g.compute && g.queueCount >= 2) {
            c.kind = AsyncQueueKind::SecondQueue;
            c.family = graphicsFamily;
            c.queueIndex = 1;
            c.description = "no compute queue family without graphics: a second queue of " + describe(graphicsFamily);
            return c;
        }
        auto other = [&](const QueueFamilyInfo& q) { return q.compute && &q != &g; };
        for (uint32_t i = 0; i < families.size(); ++i)
            if (families[i].queueCount > 0 && other(families[i])) {
                c.kind = AsyncQueueKind::SecondQueue;
                c.family = i;
                c.description = "no compute queue family without graphics: the queue of " + describe(i);
                return c;
            }
        if (!g.compute || g.queueCount == 0)
            fail(ErrorCode::Unsupported, "no queue family has compute (the graphics family is {})",
                 describe(graphicsFamily));
        c.kind = AsyncQueueKind::SameQueue;
        c.family = graphicsFamily;
        c.description = "no compute queue family without graphics and one queue in " + describe(graphicsFamily) +
                        ": inference shares the renderer's queue (ordered by semaphores, not overlapping)";
        return c;
    });
}

}  // namespace vkinfer
