// vk::PipelineCache refuses a kernel whose shared-memory declarations, with the constants asked
// for, exceed the device's (vk::spirvSharedMemoryBytes), naming the kernel and both sizes,
// instead of handing the driver invalid usage it need not report; and creates the same kernel
// with constants that fit.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "kernels/families/attention_cm.h"
#include "runtime/context_impl.h"
#include "support/gpu_context.h"

namespace vkinfer::testing {
namespace {

namespace acm = kernels::attention_cm;

std::vector<uint32_t> attentionSpec(uint32_t paddedD, uint32_t keyGroups) {
    std::vector<uint32_t> spec(acm::kKsplit + 1 - 3, 0);  // ids 3 on (0-2: the local size)
    spec[acm::kWarps - 3] = 1, spec[acm::kDp - 3] = paddedD, spec[acm::kKsplit - 3] = keyGroups;
    return spec;
}

TEST(PipelineLimits, SharedMemoryPastTheDevicesIsRefusedByName) {
    VKINFER_REQUIRE_GPU();
    vk::PipelineCache& cache = *gpuContext().impl()->pipelines;
    const uint32_t limit = gpuContext().impl()->info.sharedMemoryBytes;
    const kernels::KernelId kernel = acm::variant(acm::Dv::dv128, acm::Mode::emu);
    // Four key groups with heads of 128: about 80 KiB, more than lavapipe's 32 or NVIDIA's 48.
    ASSERT_LT(limit, 80u * 1024) << "a device with this much shared memory would take it";
    try {
        cache.get(kernel, 6, {128, 1, 1}, attentionSpec(128, 4));
        FAIL() << "created";
    } catch (const Error& e) {
        const std::string m = e.status().message();
        EXPECT_NE(m.find("attention_cm_dv128_emu"), std::string::npos) << m;
        EXPECT_NE(m.find("declares"), std::string::npos) << m;
        EXPECT_NE(m.find(std::to_string(limit)), std::string::npos) << m;
    }
    // One group of one warp with heads of 16 fits every device.
    EXPECT_NE(cache.get(kernel, 6, {32, 1, 1}, attentionSpec(16, 1)).pipeline, VK_NULL_HANDLE);
}

}  // namespace
}  // namespace vkinfer::testing
