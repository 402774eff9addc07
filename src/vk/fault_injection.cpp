#include "vk/fault_injection.h"

#include <atomic>
#include <mutex>
#include <vector>

namespace vkinfer::vk {

namespace {

struct Armed {
    std::string call;
    VkResult result;
    int skip;
};

std::atomic<bool> anyArmed{false};
std::mutex mutex;
std::vector<Armed> armed;

}  // namespace

void injectFailure(const std::string& call, VkResult result, int skip) {
    std::lock_guard<std::mutex> lock(mutex);
    armed.push_back({call, result, skip});
    anyArmed = true;
}

void clearInjectedFailures() {
    std::lock_guard<std::mutex> lock(mutex);
    armed.clear();
    anyArmed = false;
}

VkResult injectedResult(const char* call) {
    if (!anyArmed.load(std::memory_order_relaxed)) return VK_SUCCESS;
    std::lock_guard<std::mutex> lock(mutex);
    for (auto it = armed.begin(); it != armed.end(); ++it) {
        if (it->call != call) continue;
        if (it->skip-- > 0) return VK_SUCCESS;
        VkResult r = it->result;
        armed.erase(it);
        anyArmed = !armed.empty();
        return r;
    }
    return VK_SUCCESS;
}

}  // namespace vkinfer::vk
