#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/environment.h"
#include "core/error.h"
#include "runtime/context_impl.h"

namespace vkinfer {

namespace detail {

void ContextImpl::checkValidation(const char* during) {
    if (!instance) return;
    auto messages = instance->messages().take();
    if (messages.empty()) return;
    std::string text = fmt::format("the validation layer reported {} message{} during {}:", messages.size(),
                                   messages.size() == 1 ? "" : "s", during);
    for (const auto& m : messages) text += "\n  " + m;
    fail(ErrorCode::ValidationError, "{}", text);
}

bool ContextImpl::lost() const {
    std::lock_guard<std::mutex> lock(lostMutex);
    return !lostDuring.empty();
}

void ContextImpl::markLost(const std::string& call, const std::string& message) {
    std::lock_guard<std::mutex> lock(lostMutex);
    if (lostDuring.empty()) lostDuring = call + ": " + message;
}

void ContextImpl::throwIfLost(const char* call) const {
    std::lock_guard<std::mutex> lock(lostMutex);
    if (!lostDuring.empty())
        throw Error(Status(ErrorCode::DeviceLost,
                           fmt::format("{}: device '{}' was lost earlier ({}); create a new Context", call, info.name,
                                       lostDuring),
                           static_cast<int32_t>(VK_ERROR_DEVICE_LOST)));
}

uint32_t ContextImpl::planAlignment(uint32_t requested) const {
    return static_cast<uint32_t>(std::max<uint64_t>(requested, info.minStorageBufferOffsetAlignment));
}

}  // namespace detail

Result<std::vector<DeviceInfo>> listDevices() {
    return guardResult<std::vector<DeviceInfo>>([] {
        vk::Instance instance(false);
        std::vector<DeviceInfo> out;
        auto phys = instance.physicalDevices();
        for (uint32_t i = 0; i < phys.size(); ++i) out.push_back(vk::queryDeviceInfo(instance.handle(), phys[i], i));
        return out;
    });
}

Result<Context> Context::create(const ContextOptions& options) {
    return guardResult<Context>([&] {
        auto impl = std::make_shared<detail::ContextImpl>();
        impl->instance = std::make_unique<vk::Instance>(env::validate(options.validate));
        auto phys = impl->instance->physicalDevices();
        std::vector<DeviceInfo> infos;
        for (uint32_t i = 0; i < phys.size(); ++i)
            infos.push_back(vk::queryDeviceInfo(impl->instance->handle(), phys[i], i));
        // The UUID takes precedence over deviceIndex (context.h): the index is not even checked
        // then, so that a stale index next to a valid UUID does not fail.
        uint32_t chosen = 0;
        if (options.deviceUuid) {
            auto it = std::find_if(infos.begin(), infos.end(),
                                   [&](const DeviceInfo& d) { return d.deviceUuid == *options.deviceUuid; });
            if (it == infos.end()) fail(ErrorCode::NotFound, "no Vulkan device has the requested UUID");
            chosen = it->index;
        } else {
            chosen = vk::pickDevice(infos, options.deviceIndex);
        }
        impl->info = infos[chosen];
        if (VK_API_VERSION_MINOR(impl->info.apiVersion) < 2 && VK_API_VERSION_MAJOR(impl->info.apiVersion) == 1)
            fail(ErrorCode::Unsupported, "device '{}' supports Vulkan {}; vkinfer needs 1.2", impl->info.name,
                 impl->info.apiVersionString);
        impl->device =
            std::make_unique<vk::Device>(phys[chosen], impl->info, impl->instance->layerKnowsKhrCooperativeMatrix());
        impl->pipelines = std::make_unique<vk::PipelineCache>(*impl->device, impl->validation());
        impl->checkValidation("device creation");
        return Context(std::move(impl));
    });
}

const DeviceInfo& Context::device() const { return impl_->info; }
const QueueInfo& Context::queue(SessionQueue which) const { return impl_->device->queue(which).info; }

MemoryStats Context::memoryStats() const {
    const vk::MemoryCounters& m = impl_->device->memory();
    auto bytes = [&](auto get) {
        DeviceMemoryBytes b;
        b.weights = get(vk::MemoryKind::Weights);
        b.arena = get(vk::MemoryKind::Arena);
        b.io = get(vk::MemoryKind::InputOutput);
        b.staging = get(vk::MemoryKind::Staging);
        b.other = get(vk::MemoryKind::Other);
        return b;
    };
    MemoryStats s;
    s.current = bytes([&](vk::MemoryKind k) { return m.current(k); });
    s.peak = bytes([&](vk::MemoryKind k) { return m.peak(k); });
    s.peakTotal = m.peakTotal();
    return s;
}

void Context::resetPeakMemory() { impl_->device->memory().resetPeaks(); }
bool Context::deviceLost() const { return impl_->lost(); }
bool Context::validationEnabled() const { return impl_->validation(); }
std::vector<std::string> Context::takeValidationMessages() {
    return impl_->instance ? impl_->instance->messages().take() : std::vector<std::string>{};
}

}  // namespace vkinfer
