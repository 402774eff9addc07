// What a semaphore hop costs the shared-resources pattern, without vkinfer: a chain of
// submissions, each a one-word vkCmdFillBuffer that waits on the previous one's timeline value
// and signals the next,
//   two_devices_hop_ms  alternating between two VkDevices on the same GPU (the renderer's and
//                       a separate context's), each device's timeline semaphore exported as an
//                       opaque fd and imported by the other: one hop per submission;
//   two_devices_binary_hop_ms  the same with binary semaphores (exported and imported once,
//                       signaled and waited in turn): whether the driver crosses faster
//                       without timelines;
//   one_device_step_ms  the same chain on one device and queue (no hop: what a submission
//                       costs on its own).
// Wall time of the whole chain, submitted up front and waited on the host, over its length;
// the median of --rounds rounds of --steps submissions. The difference is the floor that
// the shared pattern's two hops a frame (render -> inference -> composite) stand on
// (docs/BENCHMARKS.md, docs/INTEGRATION.md). Run on the GPU machine from the bundle
// (scripts/gpu-bundle.sh); refuses, exit status 2, where the device cannot export semaphores
// as fds (lavapipe).
#include <vkinfer/context.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "interop/support/shared_util.h"

namespace {

using vkinfer::testing::shared::HostGpu;
using vkinfer::testing::shared::HostOptions;
using Clock = std::chrono::steady_clock;

void check(VkResult r, const char* what) {
    if (r != VK_SUCCESS) throw std::runtime_error(std::string(what) + " failed: VkResult " + std::to_string(r));
}

// One device's part of the chain: a command buffer filling one word of its own buffer.
struct Station {
    HostGpu& gpu;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;

    explicit Station(HostGpu& g) : gpu(g) {
        VkDevice d = gpu.device();
        VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pi.queueFamilyIndex = gpu.queueFamily();
        check(vkCreateCommandPool(d, &pi, nullptr, &pool), "vkCreateCommandPool");
        VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = pool;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        check(vkAllocateCommandBuffers(d, &ai, &cmd), "vkAllocateCommandBuffers");
        VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        bi.size = 256;
        bi.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        check(vkCreateBuffer(d, &bi, nullptr, &buffer), "vkCreateBuffer");
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(d, buffer, &req);
        VkPhysicalDeviceMemoryProperties mp;
        vkGetPhysicalDeviceMemoryProperties(gpu.physical(), &mp);
        uint32_t type = 0;
        while (type < mp.memoryTypeCount && !(req.memoryTypeBits & (1u << type))) ++type;
        VkMemoryAllocateInfo mi{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        mi.allocationSize = req.size;
        mi.memoryTypeIndex = type;
        check(vkAllocateMemory(d, &mi, nullptr, &memory), "vkAllocateMemory");
        check(vkBindBufferMemory(d, buffer, memory, 0), "vkBindBufferMemory");
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        begin.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;  // pending many times in one chain
        check(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
        vkCmdFillBuffer(cmd, buffer, 0, 4, 0x3f800000u);
        check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    }
    ~Station() {
        VkDevice d = gpu.device();
        vkDeviceWaitIdle(d);
        vkDestroyBuffer(d, buffer, nullptr);
        vkFreeMemory(d, memory, nullptr);
        vkDestroyCommandPool(d, pool, nullptr);
    }

    // The fill, after `wait` reaches waitValue (none for a null semaphore), then `signal` =
    // signalValue (none for a null one) and `fence`.
    void submit(VkSemaphore wait, uint64_t waitValue, VkSemaphore signal, uint64_t signalValue,
                VkFence fence = VK_NULL_HANDLE) {
        VkTimelineSemaphoreSubmitInfo ti{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
        const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.pNext = &ti;
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        if (wait) {
            si.waitSemaphoreCount = 1;
            si.pWaitSemaphores = &wait;
            si.pWaitDstStageMask = &stage;
            ti.waitSemaphoreValueCount = 1;
            ti.pWaitSemaphoreValues = &waitValue;
        }
        if (signal) {
            si.signalSemaphoreCount = 1;
            si.pSignalSemaphores = &signal;
            ti.signalSemaphoreValueCount = 1;
            ti.pSignalSemaphoreValues = &signalValue;
        }
        check(vkQueueSubmit(gpu.queue(), 1, &si, fence), "vkQueueSubmit");
    }
};

void waitValue(VkDevice device, VkSemaphore s, uint64_t value) {
    VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    wi.semaphoreCount = 1;
    wi.pSemaphores = &s;
    wi.pValues = &value;
    check(vkWaitSemaphores(device, &wi, 10'000'000'000ull), "vkWaitSemaphores");
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

int run(uint32_t steps, uint32_t rounds) {
    auto ctx = vkinfer::Context::create();
    if (!ctx.ok()) throw std::runtime_error("no Vulkan device: " + ctx.status().toString());
    HostOptions o;
    o.deviceUuid = ctx->device().deviceUuid;
    o.externalSemaphoreFd = true;
    HostGpu a(o), b(o);
    if (!a.hasExternalSemaphoreFd()) {
        std::printf("{\"refused\": \"'%s' cannot export semaphores as fds\"}\n", ctx->device().name.c_str());
        return 2;
    }
    Station sa(a), sb(b);
    // Each device signals its own timeline; the other imports it.
    VkSemaphore ownA = a.createExportableSemaphore(true), ownB = b.createExportableSemaphore(true);
    VkSemaphore aInB = b.importSemaphoreFd(a.exportSemaphoreFd(ownA), true);
    VkSemaphore bInA = a.importSemaphoreFd(b.exportSemaphoreFd(ownB), true);

    VkSemaphore binA = a.createExportableSemaphore(false), binB = b.createExportableSemaphore(false);
    VkSemaphore binAInB = b.importSemaphoreFd(a.exportSemaphoreFd(binA), false);
    VkSemaphore binBInA = a.importSemaphoreFd(b.exportSemaphoreFd(binB), false);
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fenceA = VK_NULL_HANDLE, fenceB = VK_NULL_HANDLE;
    check(vkCreateFence(a.device(), &fi, nullptr, &fenceA), "vkCreateFence");
    check(vkCreateFence(b.device(), &fi, nullptr, &fenceB), "vkCreateFence");

    uint64_t value = 0;  // the chain's last value, across rounds: timelines only grow
    std::vector<double> hop, binaryHop, step;
    for (uint32_t r = 0; r < rounds + 1; ++r) {  // the first round warms up
        // Two devices: odd steps on A (waiting on B's previous value), even ones on B.
        Clock::time_point t = Clock::now();
        for (uint32_t k = 0; k < steps; ++k) {
            ++value;
            if (value % 2) sa.submit(value > 1 ? bInA : VK_NULL_HANDLE, value - 1, ownA, value);
            else sb.submit(aInB, value - 1, ownB, value);
        }
        waitValue(value % 2 ? a.device() : b.device(), value % 2 ? ownA : ownB, value);
        const double twoDevices = msSince(t) / steps;
        // Binary: A signals binA (B's next wait), B signals binB (A's next wait); the last step
        // signals a fence instead, so that no binary semaphore is left signaled for the next round.
        t = Clock::now();
        VkFence done = VK_NULL_HANDLE;
        for (uint32_t k = 0; k < steps; ++k) {
            const bool onA = k % 2 == 0, last = k + 1 == steps;
            Station& st = onA ? sa : sb;
            VkSemaphore wait = k == 0 ? VK_NULL_HANDLE : onA ? binBInA : binAInB;
            if (last) {
                done = onA ? fenceA : fenceB;
                st.submit(wait, 0, VK_NULL_HANDLE, 0, done);
            } else {
                st.submit(wait, 0, onA ? binA : binB, 0);
            }
        }
        VkDevice doneDevice = steps % 2 ? a.device() : b.device();
        check(vkWaitForFences(doneDevice, 1, &done, VK_TRUE, 10'000'000'000ull), "vkWaitForFences");
        check(vkResetFences(doneDevice, 1, &done), "vkResetFences");
        const double binary = msSince(t) / steps;
        // One device: the same chain on A's queue and A's timeline.
        uint64_t base = 0;
        VkSemaphore own = a.createExportableSemaphore(true);
        t = Clock::now();
        for (uint32_t k = 0; k < steps; ++k, ++base) sa.submit(base ? own : VK_NULL_HANDLE, base, own, base + 1);
        waitValue(a.device(), own, base);
        const double oneDevice = msSince(t) / steps;
        a.destroy(own);
        if (r > 0) {
            hop.push_back(twoDevices);
            binaryHop.push_back(binary);
            step.push_back(oneDevice);
        }
    }
    std::printf("{\"device\": \"%s\", \"steps\": %u, \"rounds\": %u, \"two_devices_hop_ms\": %.4f, "
                "\"two_devices_binary_hop_ms\": %.4f, \"one_device_step_ms\": %.4f}\n",
                ctx->device().name.c_str(), steps, rounds, median(hop), median(binaryHop), median(step));
    vkDeviceWaitIdle(a.device());
    vkDeviceWaitIdle(b.device());
    a.destroy(bInA);
    b.destroy(aInB);
    a.destroy(binBInA);
    b.destroy(binAInB);
    a.destroy(binA);
    b.destroy(binB);
    vkDestroyFence(a.device(), fenceA, nullptr);
    vkDestroyFence(b.device(), fenceB, nullptr);
    a.destroy(ownA);
    b.destroy(ownB);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    uint32_t steps = 200, rounds = 5;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "--steps" || arg == "--rounds") && i + 1 < argc) {
            const long v = std::strtol(argv[++i], nullptr, 10);
            if (v < 1 || v > 100000) {
                std::fprintf(stderr, "%s takes 1 to 100000\n", arg.c_str());
                return 1;
            }
            (arg == "--steps" ? steps : rounds) = static_cast<uint32_t>(v);
        } else {
            std::fprintf(stderr,
                         "usage: semaphore_hop_bench [--steps N] [--rounds N]\n"
                         "  A chain of N one-word fills alternating between two VkDevices on one GPU\n"
                         "  through timeline semaphores shared as opaque fds, against the same chain\n"
                         "  on one device; prints the median time per submission of each as JSON.\n");
            return arg == "--help" ? 0 : 1;
        }
    }
    try {
        return run(steps, rounds);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "semaphore_hop_bench: %s\n", e.what());
        return 1;
    }
}
