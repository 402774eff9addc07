#include "scene_pass.h"

namespace demo {

namespace {
const uint32_t kSceneFrag[] =
#include "scene.frag.inc"
    ;
struct ScenePush {
    float width, height, time;
    uint32_t cost;
};
}  // namespace

ScenePass::ScenePass(const VulkanHost& host, uint32_t maxSets, uint32_t cost)
    : pass_(host, kSceneFrag, sizeof(kSceneFrag), {}, sizeof(ScenePush), maxSets), cost_(cost) {}

void ScenePass::record(VkCommandBuffer cmd, const GpuImage& target, uint32_t frameIndex) {
    ScenePush push{static_cast<float>(target.width), static_cast<float>(target.height), static_cast<float>(frameIndex),
                   cost_};
    pass_.record(cmd, target, &push);
}

}  // namespace demo
