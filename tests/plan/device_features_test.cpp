// What kernels need from a device, read from their SPIR-V, and what vkinfer tells hosts to
// enable (vk/device_features.h, vk/device_requirements.h): pure functions, no GPU.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/kernel_table.h"
#include "vk/device_features.h"
#include "vk/device_requirements.h"

namespace vkinfer::vk {
namespace {

bool endsWith(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

TEST(KernelFeatures, EveryEmbeddedKernelIsReadAndKnown) {
    ASSERT_FALSE(kernels::table().empty());
    for (const auto& k : kernels::table()) {
        KernelNeeds n = spirvNeeds(k.code, k.words);
        EXPECT_TRUE(n.valid) << k.name;
        // A capability the table does not map would let a kernel through the check unseen.
        EXPECT_TRUE(n.unknownCapabilities.empty()) << k.name << " declares capability " << n.unknownCapabilities[0];
    }
}

TEST(KernelFeatures, TypedVariantsNeedTheirTypesFeatures) {
    int checked = 0;
    for (const auto& k : kernels::table()) {
        KernelNeeds n = spirvNeeds(k.code, k.words);
        if (endsWith(k.name, "_i64") || endsWith(k.name, "_u64")) {
            EXPECT_TRUE(n.features.has(Feature::ShaderInt64)) << k.name;
            ++checked;
        }
        if (endsWith(k.name, "_u8") || endsWith(k.name, "_i8")) {
            EXPECT_TRUE(n.features.has(Feature::StorageBuffer8BitAccess)) << k.name;
            ++checked;
        }
        if (endsWith(k.name, "_f16")) {
            EXPECT_TRUE(n.features.has(Feature::StorageBuffer16BitAccess)) << k.name;
            ++checked;
        }
    }
    EXPECT_GT(checked, 20);
    const auto* f32 = &kernels::blob(kernels::KernelId::binary_f32);
    KernelNeeds plain = spirvNeeds(f32->code, f32->words);
    EXPECT_EQ(plain.features, FeatureSet{}) << "a float32 kernel needs no optional feature";
}

// Every feature a kernel may need is one vkinfer enables on its own device and lists for hosts.
TEST(KernelFeatures, RequirementsListCoversEveryKernelFeature) {
    FeatureSet listed;
    for (const auto& use : featureUses()) {
        Feature f;
        if (featureOfUse(use, &f)) listed.set(f);
        else EXPECT_EQ(use.name, "timelineSemaphore") << "a use that names no Feature";
        EXPECT_FALSE(use.enables.empty()) << use.name;
    }
    for (const auto& k : kernels::table()) {
        std::vector<Feature> missing = listed.missing(spirvNeeds(k.code, k.words).features);
        EXPECT_TRUE(missing.empty()) << k.name << " needs " << featureName(missing[0]) << ", which is not listed";
    }
}

TEST(KernelFeatures, MalformedCodeIsNotValid) {
    const uint32_t bad[] = {0x12345678, 0, 0, 0, 0, (2u << 16) | 17u, 11};
    EXPECT_FALSE(spirvNeeds(bad, 7).valid);
    const uint32_t truncated[] = {0x07230203, 0x10000, 0, 10, 0, (3u << 16) | 17u};  // says 3 words, has 1
    EXPECT_FALSE(spirvNeeds(truncated, 6).valid);
    const uint32_t int64[] = {0x07230203, 0x10000, 0, 10, 0, (2u << 16) | 17u, 11, (2u << 16) | 17u, 4448};
    KernelNeeds n = spirvNeeds(int64, 9);
    EXPECT_TRUE(n.valid);
    EXPECT_TRUE(n.features.has(Feature::ShaderInt64));
    EXPECT_TRUE(n.features.has(Feature::StorageBuffer8BitAccess));
    EXPECT_FALSE(n.features.has(Feature::ShaderInt16));
}

TEST(KernelFeatures, MissingListsWhatIsNeededAndAbsentInOrder) {
    FeatureSet have, need;
    have.set(Feature::ShaderInt64);
    need.set(Feature::ShaderInt64);
    need.set(Feature::StorageBuffer8BitAccess);
    need.set(Feature::ShaderInt16);
    auto missing = have.missing(need);
    ASSERT_EQ(missing.size(), 2u);
    EXPECT_EQ(missing[0], Feature::ShaderInt16);
    EXPECT_EQ(missing[1], Feature::StorageBuffer8BitAccess);
    EXPECT_EQ(describeFeature(Feature::CooperativeMatrixNV),
              "cooperativeMatrix (VkPhysicalDeviceCooperativeMatrixFeaturesNV, VK_NV_cooperative_matrix)");
}

// A host's pNext chain, with structures vkinfer does not know in between, read as it declares.
TEST(KernelFeatures, FeaturesAreReadFromAHostsChain) {
    VkPhysicalDeviceFeatures2 core{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkPhysicalDeviceRobustness2FeaturesEXT unrelated{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT};
    VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    VkPhysicalDeviceTimelineSemaphoreFeatures timeline{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
    core.features.shaderInt64 = VK_TRUE;
    unrelated.robustBufferAccess2 = VK_TRUE;
    storage16.storageBuffer16BitAccess = VK_TRUE;
    timeline.timelineSemaphore = VK_TRUE;
    core.pNext = &unrelated;
    unrelated.pNext = &storage16;
    storage16.pNext = &timeline;
    bool hasTimeline = false;
    FeatureSet f = featuresInChain(&core, &hasTimeline);
    EXPECT_TRUE(f.has(Feature::ShaderInt64));
    EXPECT_TRUE(f.has(Feature::StorageBuffer16BitAccess));
    EXPECT_FALSE(f.has(Feature::ShaderFloat16));
    EXPECT_TRUE(hasTimeline);
    EXPECT_EQ(featuresInChain(nullptr), FeatureSet{});
}

// A host enabling VK_KHR_cooperative_matrix (its structure spelled out in
// vk/device_requirements.h, as Debian 12's headers lack it), with or without the NV one, and
// the chain vkinfer builds for itself.
TEST(KernelFeatures, CooperativeMatrixFeaturesOfBothExtensions) {
    CooperativeMatrixFeaturesKhr khr;
    khr.cooperativeMatrix = VK_TRUE;
    VkPhysicalDeviceCooperativeMatrixFeaturesNV nv{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
    FeatureSet f = featuresInChain(&khr);
    EXPECT_TRUE(f.has(Feature::CooperativeMatrixKHR));
    EXPECT_FALSE(f.has(Feature::CooperativeMatrixNV));
    nv.cooperativeMatrix = VK_TRUE;
    nv.pNext = &khr;
    khr.cooperativeMatrix = VK_FALSE;
    f = featuresInChain(&nv);
    EXPECT_TRUE(f.has(Feature::CooperativeMatrixNV));
    EXPECT_FALSE(f.has(Feature::CooperativeMatrixKHR));

    FeatureChainStorage chain;
    chain.coopKhr.cooperativeMatrix = VK_TRUE;
    chain.link(false, true);
    EXPECT_EQ(chain.v12.pNext, &chain.coopKhr);
    EXPECT_TRUE(featuresInChain(&chain.core).has(Feature::CooperativeMatrixKHR));
    chain.link(true, true);
    EXPECT_EQ(chain.v12.pNext, &chain.coopNv);
    EXPECT_EQ(chain.coopNv.pNext, &chain.coopKhr);
    EXPECT_EQ(chain.coopKhr.pNext, nullptr);
    chain.link(false, false);
    EXPECT_EQ(chain.v12.pNext, nullptr);
}

// docs/INTEGRATION.md's table lists exactly the uses in the code, with the same structures.
TEST(KernelFeatures, IntegrationGuideTableMatchesTheCode) {
    std::ifstream in(VKINFER_SOURCE_DIR "/docs/INTEGRATION.md");
    ASSERT_TRUE(in) << "docs/INTEGRATION.md";
    std::stringstream text;
    text << in.rdbuf();
    std::string doc = text.str();
    size_t from = doc.find("### What to enable on your device"), to = doc.find("### Wrapping your device");
    ASSERT_NE(from, std::string::npos);
    ASSERT_NE(to, std::string::npos);
    std::string table = doc.substr(from, to - from);
    size_t rows = 0;
    for (size_t at = table.find("\n| `"); at != std::string::npos; at = table.find("\n| `", at + 1)) ++rows;
    std::vector<Use> uses = featureUses();
    uses.insert(uses.end(), extensionUses().begin(), extensionUses().end());
    EXPECT_EQ(rows, uses.size()) << "table rows vs uses in vk/device_requirements.cpp";
    for (const auto& use : uses) {
        std::string where = use.where == "device extension" ? use.where : "`" + use.where + "`";
        EXPECT_NE(table.find("| `" + use.name + "` | " + where + " |"), std::string::npos) << use.name;
    }
}

}  // namespace
}  // namespace vkinfer::vk
