// wrapHostDevice: a context on the host's VkDevice (interleaved execution).
#include <algorithm>

#include "core/error.h"
#include "runtime/context_impl.h"
#include "vk/instance.h"
#include "vkinfer/interop.h"

namespace vkinfer {

namespace {

bool has(const std::vector<std::string>& list, const char* name) {
    return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

Result<Context> wrapHostDevice(const HostDevice& host) {
    return guardResult<Context>([&] {
        if (!host.instance || !host.physicalDevice || !host.device)
            fail(ErrorCode::InvalidArgument, "HostDevice needs instance, physicalDevice and device");
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
        if (!missing.empty()) {
            std::string text;
            for (const auto& m : missing) text += (text.empty() ? "" : "; ") + m;
            fail(ErrorCode::Unsupported, "the host device cannot run vkinfer: it needs {}", text);
        }

        vk::AdoptedDevice adopted;
        adopted.physical = host.physicalDevice;
        adopted.device = host.device;
        adopted.queueFamily = host.queueFamilyIndex;
        adopted.queue = host.queue;
        auto& e = adopted.enabled;
        e.timelineSemaphore = host.features12.timelineSemaphore;
        e.storage16Bit = host.features11.storageBuffer16BitAccess;
        e.float16 = host.features12.shaderFloat16;
        e.storage8Bit = host.features12.storageBuffer8BitAccess;
        e.int8 = host.features12.shaderInt8;
        e.int64 = host.features.shaderInt64;
        e.storageImageWriteWithoutFormat = host.features.shaderStorageImageWriteWithoutFormat;
        e.externalMemoryFd = has(host.enabledExtensions, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
        e.externalSemaphoreFd = has(host.enabledExtensions, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
        e.dmaBuf = has(host.enabledExtensions, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME);

        auto impl = std::make_shared<detail::ContextImpl>();
        impl->info = info;
        impl->device = std::make_unique<vk::Device>(adopted, info);  // checks the queue family
        impl->pipelines = std::make_unique<vk::PipelineCache>(*impl->device);
        return Context(std::move(impl));
    });
}

}  // namespace vkinfer
