// Which queue inference runs on (vk/queue_choice.h, chooseAsyncComputeQueue in context.h),
// from described queue families: the H200's, an AMD-like GPU's, lavapipe's and a few that
// only exist to reach each rule.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "vk/queue_choice.h"

namespace vkinfer {
namespace {

using vk::assignContextQueues;
using vk::assignHostQueues;
using vk::chooseContextQueues;

QueueFamilyInfo family(bool graphics, bool compute, bool transfer, uint32_t count, uint32_t timestampBits = 64) {
    return {graphics, compute, transfer, count, timestampBits};
}

// NVIDIA H200 (driver 580): graphics+compute x16, transfer x2, compute x8, video families.
const std::vector<QueueFamilyInfo> kH200 = {family(true, true, true, 16), family(false, false, true, 2),
                                            family(false, true, true, 8), family(false, false, false, 1, 0)};
// An AMD-like GPU: one graphics queue, four compute queues, two transfer queues.
const std::vector<QueueFamilyInfo> kAmd = {family(true, true, true, 1), family(false, true, true, 4),
                                           family(false, false, true, 2)};
// lavapipe: one family, one queue.
const std::vector<QueueFamilyInfo> kLavapipe = {family(true, true, true, 1)};
// Integrated GPUs with one family but several queues.
const std::vector<QueueFamilyInfo> kOneFamilyTwoQueues = {family(true, true, true, 2)};
// Two graphics families (no compute-only one).
const std::vector<QueueFamilyInfo> kTwoGraphicsFamilies = {family(true, true, true, 1), family(true, true, false, 1)};
// A compute-only family without timestamps beside a graphics family with them.
const std::vector<QueueFamilyInfo> kComputeWithoutTimestamps = {family(true, true, true, 1), family(false, true, true, 2, 0)};

AsyncQueueChoice asyncChoice(const std::vector<QueueFamilyInfo>& families, uint32_t graphics) {
    auto c = chooseAsyncComputeQueue(families, graphics);
    EXPECT_TRUE(c.ok()) << c.status().toString();
    return c.ok() ? *c : AsyncQueueChoice{};
}

TEST(QueueChoice, AsyncComputeTakesTheComputeOnlyFamily) {
    AsyncQueueChoice h200 = asyncChoice(kH200, 0);
    EXPECT_EQ(h200.kind, AsyncQueueKind::ComputeFamily);
    EXPECT_EQ(h200.family, 2u);
    EXPECT_EQ(h200.queueIndex, 0u);
    EXPECT_NE(h200.description.find("queue family 2 (compute, transfer; no graphics)"), std::string::npos)
        << h200.description;
    AsyncQueueChoice amd = asyncChoice(kAmd, 0);
    EXPECT_EQ(amd.kind, AsyncQueueKind::ComputeFamily);
    EXPECT_EQ(amd.family, 1u);
}

TEST(QueueChoice, AsyncComputePrefersTimestampsButTakesAComputeFamilyWithout) {
    std::vector<QueueFamilyInfo> both = kComputeWithoutTimestamps;
    both.push_back(family(false, true, false, 1, 36));
    EXPECT_EQ(asyncChoice(both, 0).family, 2u) << "the compute family with timestamps";
    AsyncQueueChoice c = asyncChoice(kComputeWithoutTimestamps, 0);
    EXPECT_EQ(c.kind, AsyncQueueKind::ComputeFamily) << "overlap matters more than timestamps";
    EXPECT_EQ(c.family, 1u);
}

TEST(QueueChoice, AsyncComputeFallsBackToASecondQueueThenTheSameQueue) {
    AsyncQueueChoice two = asyncChoice(kOneFamilyTwoQueues, 0);
    EXPECT_EQ(two.kind, AsyncQueueKind::SecondQueue);
    EXPECT_EQ(two.family, 0u);
    EXPECT_EQ(two.queueIndex, 1u);
    AsyncQueueChoice other = asyncChoice(kTwoGraphicsFamilies, 0);
    EXPECT_EQ(other.kind, AsyncQueueKind::SecondQueue);
    EXPECT_EQ(other.family, 1u);
    EXPECT_EQ(other.queueIndex, 0u);
    AsyncQueueChoice lavapipe = asyncChoice(kLavapipe, 0);
    EXPECT_EQ(lavapipe.kind, AsyncQueueKind::SameQueue);
    EXPECT_EQ(lavapipe.family, 0u);
    EXPECT_EQ(lavapipe.queueIndex, 0u);
    EXPECT_NE(lavapipe.description.find("shares the renderer's queue"), std::string::npos) << lavapipe.description;
}

TEST(QueueChoice, AsyncComputeRefusesWhatCannotWork) {
    auto bad = chooseAsyncComputeQueue(kH200, 7);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status().code(), ErrorCode::InvalidArgument);
    EXPECT_NE(bad.status().message().find("graphics family 7 does not exist (4 families)"), std::string::npos)
        << bad.status().toString();
    auto none = chooseAsyncComputeQueue({family(true, false, true, 1), family(false, false, true, 1)}, 0);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.status().code(), ErrorCode::Unsupported);
    EXPECT_NE(none.status().message().find("no queue family has compute"), std::string::npos)
        << none.status().toString();
}

TEST(QueueChoice, OwnDeviceKeepsItsChoiceAndAddsTheComputeFamily) {
    vk::ContextQueuePlan h200 = chooseContextQueues(kH200, "H200");
    EXPECT_EQ(h200.main, 2u);
    ASSERT_TRUE(h200.async.has_value());
    EXPECT_EQ(*h200.async, 2u);
    vk::ContextQueuePlan lavapipe = chooseContextQueues(kLavapipe, "llvmpipe");
    EXPECT_EQ(lavapipe.main, 0u);
    EXPECT_FALSE(lavapipe.async.has_value());
    // Timestamps decide the context's queue (RunStats::gpuMs); async compute takes the other.
    vk::ContextQueuePlan split = chooseContextQueues(kComputeWithoutTimestamps, "split");
    EXPECT_EQ(split.main, 0u);
    ASSERT_TRUE(split.async.has_value());
    EXPECT_EQ(*split.async, 1u);
    try {
        chooseContextQueues({family(true, false, true, 1)}, "raster-only");
        ADD_FAILURE() << "a device without compute was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.status().code(), ErrorCode::Unsupported);
        EXPECT_NE(e.status().message().find("'raster-only' has no compute queue"), std::string::npos);
    }
}

TEST(QueueChoice, OwnDeviceReportsTheFallback) {
    vk::QueueAssignment h200 = assignContextQueues(kH200, chooseContextQueues(kH200, "NVIDIA H200"), "NVIDIA H200");
    EXPECT_TRUE(h200.context.computeOnly);
    EXPECT_TRUE(h200.async.computeOnly);
    EXPECT_FALSE(h200.async.fellBack);
    EXPECT_EQ(h200.async.description,
              "queue family 2 (compute, transfer; no graphics) of 'NVIDIA H200', the context's queue");
    vk::QueueAssignment lavapipe =
        assignContextQueues(kLavapipe, chooseContextQueues(kLavapipe, "llvmpipe"), "llvmpipe");
    EXPECT_FALSE(lavapipe.context.fellBack);
    EXPECT_TRUE(lavapipe.async.fellBack);
    EXPECT_EQ(lavapipe.async.family, 0u);
    EXPECT_EQ(lavapipe.async.description,
              "'llvmpipe' has no compute queue family without graphics: asynchronous compute falls back to the "
              "context's queue, queue family 0 (graphics, compute, transfer)");
}

TEST(QueueChoice, HostDeviceUsesTheComputeQueueItNamed) {
    vk::QueueAssignment named = assignHostQueues(kH200, 0, 2u, false, "NVIDIA H200");
    EXPECT_EQ(named.context.family, 0u);
    EXPECT_TRUE(named.context.hostQueue);
    EXPECT_EQ(named.async.family, 2u);
    EXPECT_TRUE(named.async.computeOnly);
    EXPECT_FALSE(named.async.hostQueue);
    EXPECT_FALSE(named.async.fellBack);
    vk::QueueAssignment unnamed = assignHostQueues(kH200, 0, std::nullopt, false, "NVIDIA H200");
    EXPECT_TRUE(unnamed.async.fellBack);
    EXPECT_EQ(unnamed.async.family, 0u);
    EXPECT_NE(unnamed.async.description.find("HostDevice::computeQueueFamilyIndex"), std::string::npos);
    // lavapipe's host hands over its own queue: the path runs, reported as a fallback.
    vk::QueueAssignment same = assignHostQueues(kLavapipe, 0, 0u, true, "llvmpipe");
    EXPECT_TRUE(same.async.fellBack);
    EXPECT_TRUE(same.async.hostQueue);
    EXPECT_NE(same.async.description.find("is the host's own queue"), std::string::npos) << same.async.description;
}

TEST(QueueChoice, HostDeviceFamiliesAreChecked) {
    auto message = [](auto&& f) {
        try {
            f();
        } catch (const Error& e) {
            return e.status().toString();
        }
        return std::string();
    };
    EXPECT_NE(message([] { assignHostQueues(kH200, 0, 9u, false, "H200"); })
                  .find("HostDevice::computeQueueFamilyIndex: queue family 9 does not exist on 'H200' (4 queue families)"),
              std::string::npos);
    EXPECT_NE(message([] { assignHostQueues(kH200, 0, 1u, false, "H200"); })
                  .find("queue family 1 of 'H200' has no compute (queue family 1 (transfer))"),
              std::string::npos);
    EXPECT_NE(message([] { assignHostQueues(kH200, 3, std::nullopt, false, "H200"); })
                  .find("HostDevice::queueFamilyIndex: queue family 3 of 'H200' has no compute"),
              std::string::npos);
}

}  // namespace
}  // namespace vkinfer
