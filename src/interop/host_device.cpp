// wrapHostDevice: a context on the host's VkDevice (interleaved execution), and
// queryDeviceRequirements: what a host should enable for vkinfer before creating it.
#include <algorithm>

#include "core/error.h"
#include "runtime/context_impl.h"
#include "vk/device_requirements.h"
#include "vk/instance.h"
#include "vkinfer/interop.h"

namespace vkinfer {

namespace {

bool has(const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
}

// Fails naming why `phys` cannot run vkinfer at all.
void checkRunnable(VkPhysicalDevice phys, const DeviceInfo& info, std::vector<std::string>* missing) {
    if (info.apiVersion < VK_API_VERSION_1_2)
        missing->push_back(fmt::format("a Vulkan 1.2 device ('{}' reports {})", info.name, info.apiVersionString));
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, families.data());
    if (std::none_of(families.begin(), families.end(), [](const auto& f) { return f.queueFlags & VK_QUEUE_COMPUTE_BIT; }))
        missing->push_back(fmt::format("a queue family with compute ('{}' has none)", info.name));
}

[[noreturn]] void failMissing(const std::vector<std::string>& missing, const char* who) {
    std::string text;
    for (const auto& m : missing) text += (text.empty() ? "" : "; ") + m;
    fail(ErrorCode::Unsupported, "{} cannot run vkinfer: it needs {}", who, text);
}

}  // namespace

struct DeviceRequirements::Impl {
    vk::EnablePlan plan;
    std::vector<DeviceRequirement> items;
    std::vector<const char*> extensionNames;
};

DeviceRequirements::DeviceRequirements() = default;
DeviceRequirements::~DeviceRequirements() = default;
DeviceRequirements::DeviceRequirements(DeviceRequirements&&) noexcept = default;
DeviceRequirements& DeviceRequirements::operator=(DeviceRequirements&&) noexcept = default;
DeviceRequirements::DeviceRequirements(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

const std::vector<DeviceRequirement>& DeviceRequirements::items() const { return impl_->items; }
std::vector<std::string> DeviceRequirements::extensions() const { return impl_->plan.extensions; }
const std::vector<const char*>& DeviceRequirements::extensionNames() const { return impl_->extensionNames; }
VkPhysicalDeviceFeatures2* DeviceRequirements::featureChain() { return &impl_->plan.chain->core; }
VkPhysicalDeviceVulkan11Features& DeviceRequirements::features11() { return impl_->plan.chain->v11; }
VkPhysicalDeviceVulkan12Features& DeviceRequirements::features12() { return impl_->plan.chain->v12; }

Result<DeviceRequirements> queryDeviceRequirements(VkPhysicalDevice physicalDevice,
                                                   const DeviceRequirementsOptions& options) {
    return guardResult<DeviceRequirements>([&] {
        if (!physicalDevice) fail(ErrorCode::InvalidArgument, "queryDeviceRequirements: the physical device is null");
        DeviceInfo info = vk::queryDeviceInfo(VK_NULL_HANDLE, physicalDevice, 0);
        std::vector<std::string> missing;
        checkRunnable(physicalDevice, info, &missing);
        if (!missing.empty()) failMissing(missing, fmt::format("device '{}'", info.name).c_str());

        auto impl = std::make_unique<DeviceRequirements::Impl>();
        impl->plan = vk::planDeviceFeatures(
            physicalDevice, !options.validationLayerEnabled || vk::validationLayerKnowsKhrCooperativeMatrix());
        const auto& plan = impl->plan;
        for (const auto& use : vk::featureUses()) {
            DeviceRequirement r{use.name, use.where, use.required, false, false, use.enables};
            vk::Feature f;
            if (vk::featureOfUse(use, &f)) {
                r.supported = plan.supported.has(f);
                r.enable = plan.features.has(f);
            } else if (use.name == "timelineSemaphore") {
                r.supported = info.timelineSemaphore;
                r.enable = plan.timelineSemaphore;
            }
            impl->items.push_back(std::move(r));
        }
        for (const auto& use : vk::extensionUses())
            impl->items.push_back({use.name, use.where, use.required, has(plan.supportedExtensions, use.name),
                                   has(plan.extensions, use.name), use.enables});
        for (const auto& e : plan.extensions) impl->extensionNames.push_back(e.c_str());
        return DeviceRequirements(std::move(impl));
    });
}

Result<Context> wrapHostDevice(const HostDevice& host) {
    return guardResult<Context>([&] {
        if (!host.instance || !host.physicalDevice || !host.device)
            fail(ErrorCode::InvalidArgument, "HostDevice needs instance, physicalDevice and device");
        if (host.apiVersion == 0)
            fail(ErrorCode::InvalidArgument, "HostDevice::apiVersion is not set: give the VkApplicationInfo::apiVersion "
                                             "the instance was created with (vkinfer needs VK_API_VERSION_1_2 or later)");
        std::vector<std::string> missing;
        if (host.apiVersion < VK_API_VERSION_1_2)
            missing.push_back(fmt::format("an instance created for Vulkan 1.2 or later (apiVersion is {}.{})",
                                          VK_API_VERSION_MAJOR(host.apiVersion), VK_API_VERSION_MINOR(host.apiVersion)));
        // The physical device's index is only for DeviceInfo; find it among the instance's.
        uint32_t n = 0;
        vkEnumeratePhysicalDevices(host.instance, &n, nullptr);
        std::vector<VkPhysicalDevice> phys(n);
        vkEnumeratePhysicalDevices(host.instance, &n, phys.data());
        auto at = std::find(phys.begin(), phys.end(), host.physicalDevice);
        uint32_t index = at == phys.end() ? 0 : static_cast<uint32_t>(at - phys.begin());
        DeviceInfo info = vk::queryDeviceInfo(host.instance, host.physicalDevice, index);
        if (info.apiVersion < VK_API_VERSION_1_2)
            missing.push_back(fmt::format("a Vulkan 1.2 device ('{}' reports {})", info.name, info.apiVersionString));
        if (!missing.empty()) failMissing(missing, "the host device");

        vk::AdoptedDevice adopted;
        adopted.physical = host.physicalDevice;
        adopted.device = host.device;
        adopted.queueFamily = host.queueFamilyIndex;
        adopted.queue = host.queue;
        if (host.computeQueueFamilyIndex != VK_QUEUE_FAMILY_IGNORED) {
            adopted.computeFamily = host.computeQueueFamilyIndex;
            adopted.computeQueue = host.computeQueue;
        } else if (host.computeQueue) {
            fail(ErrorCode::InvalidArgument, "HostDevice::computeQueue is given without computeQueueFamilyIndex");
        }
        auto& e = adopted.enabled;
        bool chainTimeline = false;
        vk::FeatureSet f = vk::featuresInChain(host.enabledFeatureChain, &chainTimeline);
        for (const vk::FeatureSet& more :
             {vk::featuresOf(host.features), vk::featuresOf(host.features11), vk::featuresOf(host.features12)})
            for (size_t i = 0; i < vk::kFeatureCount; ++i)
                if (more.has(static_cast<vk::Feature>(i))) f.set(static_cast<vk::Feature>(i));
        // An extension's feature counts only with the extension enabled too.
        for (size_t i = 0; i < vk::kFeatureCount; ++i) {
            auto feature = static_cast<vk::Feature>(i);
            const char* ext = vk::featureExtension(feature);
            if (ext && !has(host.enabledExtensions, ext)) f.set(feature, false);
        }
        e.features = f;
        e.timelineSemaphore = host.features12.timelineSemaphore || chainTimeline;
        e.externalMemoryFd = has(host.enabledExtensions, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
        e.externalSemaphoreFd = has(host.enabledExtensions, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
        e.dmaBuf = has(host.enabledExtensions, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME);
        e.externalFenceFd = has(host.enabledExtensions, VK_KHR_EXTERNAL_FENCE_FD_EXTENSION_NAME);

        auto impl = std::make_shared<detail::ContextImpl>();
        impl->info = info;
        impl->device = std::make_unique<vk::Device>(adopted, info);  // checks the queue family
        impl->pipelines = std::make_unique<vk::PipelineCache>(*impl->device);
        return Context(std::move(impl));
    });
}

}  // namespace vkinfer
