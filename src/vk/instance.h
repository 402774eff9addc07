// VkInstance creation, with the Khronos validation layer and synchronization validation
// when asked; validation messages are collected for the caller to turn into failures.
#pragma once

#include <vulkan/vulkan.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vkinfer/context.h"

namespace vkinfer::vk {

// Messages reported by the validation layer (thread-safe; the callback may run on any thread).
class MessageLog {
public:
    void add(std::string message);
    std::vector<std::string> take();
    bool empty();

private:
    std::mutex mutex_;
    std::vector<std::string> messages_;
};

class Instance {
public:
    // Throws Error when Vulkan is unavailable or validation was requested without the layer.
    explicit Instance(bool validate);
    ~Instance();
    Instance(const Instance&) = delete;
    Instance& operator=(const Instance&) = delete;

    VkInstance handle() const { return instance_; }
    bool validation() const { return validate_; }
    // Whether every extension vkinfer enables is known to the validation layer (true without
    // validation): Debian 12's layer (1.3.239) predates VK_KHR_cooperative_matrix (1.3.255)
    // and reports its feature structure as an error at device creation.
    bool layerKnowsKhrCooperativeMatrix() const { return layerKnowsKhrCooperativeMatrix_; }
    MessageLog& messages() { return *log_; }
    std::vector<VkPhysicalDevice> physicalDevices() const;

private:
    VkInstance instance_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    bool validate_ = false;
    bool layerKnowsKhrCooperativeMatrix_ = true;
    std::unique_ptr<MessageLog> log_;
};

// Whether the installed validation layer knows VK_KHR_cooperative_matrix: Debian 12's layer
// (1.3.239) predates it (1.3.255) and reports its feature structure as an error at device
// creation. True when the layer is absent (nothing to reject it).
bool validationLayerKnowsKhrCooperativeMatrix();
// The same for a validation layer of spec version `layerSpec` (0: absent).
bool layerSpecKnowsKhrCooperativeMatrix(uint32_t layerSpec);

// Everything DeviceInfo reports, read from the physical device.
DeviceInfo queryDeviceInfo(VkInstance instance, VkPhysicalDevice phys, uint32_t index);

// Picks per ContextOptions::deviceIndex (-1: discrete, then integrated, then first).
uint32_t pickDevice(const std::vector<DeviceInfo>& devices, int requested);

bool hasDeviceExtension(VkPhysicalDevice phys, const char* name);

}  // namespace vkinfer::vk
