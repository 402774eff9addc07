// Float16 precision on the shared models (../shared/models): every data set matches its
// float32 reference within the tolerance measured for that model (the fp16 accuracy rows of
// docs/BENCHMARKS.md's lavapipe table, asserted here with 1.5x headroom), identically in both sync
// modes; graph inputs and outputs stay float32; float32 stays the default. A device without 16-bit storage or float16 arithmetic refuses Float16 by name.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <vkinfer/interop.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstring>
#include <ostream>

#include "models/reference_checks.h"
#include "support/gpu_context.h"

namespace vkinfer::testing {
namespace {

struct Fp16Case {
    const char* model;
    double rtol;
    double atol;  // relative to max|ref| of each output (vkinfer check's default)
};

// Measured on lavapipe with `vkinfer --precision fp16 check ../shared/models/<model> --rtol 1e-2
// --atol A`: the smallest A (2 significant digits) at which both data sets pass
// (docs/BENCHMARKS.md), asserted times 1.5, and at least 1e-4 (float32's default atol:
// unet_small passes on rtol alone).
const Fp16Case kCases[] = {
    {"resnet18_half", 1e-2, 1.5 * 1.2e-3},
    {"mobilenet_v2", 1e-2, 1.5 * 1.4e-2},
    {"squeezenet1_1", 1e-2, 1.5 * 1.3e-4},
    {"espcn_x2", 1e-2, 1.5 * 4.7e-4},
    {"unet_small", 1e-2, 1e-4},
    {"tiny_vit", 1e-2, 1.5 * 1.1e-4},  // Gelu and bias in the GEMM epilogue: a near-zero logit off by 1.2e-3
};

void PrintTo(const Fp16Case& c, std::ostream* os) { *os << c.model << " rtol " << c.rtol << " atol " << c.atol; }

class Fp16Model : public ::testing::TestWithParam<Fp16Case> {};

TEST_P(Fp16Model, MatchesReferenceWithinMeasuredTolerance) {
    VKINFER_REQUIRE_GPU();
    const Fp16Case& c = GetParam();
    std::string root = modelsDir();
    if (root.empty()) GTEST_SKIP() << "shared models not found (set VKINFER_MODELS_DIR)";
    std::string dir = root + "/" + c.model;
    auto model = Model::load(dir + "/model.onnx");
    ASSERT_TRUE(model.ok()) << model.status().toString();
    auto sets = listTestDataSets(dir);
    ASSERT_FALSE(sets.empty()) << dir;

    SessionOptions fast, safe;
    fast.precision = safe.precision = Precision::Float16;
    safe.sync = SyncMode::Conservative;
    auto a = Session::create(gpuContext(), *model, fast);
    auto b = Session::create(gpuContext(), *model, safe);
    ASSERT_TRUE(a.ok() && b.ok());
    Tolerance tol{c.rtol, c.atol, true};
    for (size_t k = 0; k < sets.size(); ++k) {
        auto ds = loadTestDataSet(sets[k], *model);
        ASSERT_TRUE(ds.ok()) << ds.status().toString();
        auto out = a->run(ds->inputs);
        ASSERT_TRUE(out.ok()) << sets[k] << ": " << out.status().toString();
        // Outputs stay float32; float16 is really in use: the max error is above float32's
        // (~1e-6 relative on these models).
        for (const Comparison& cmp : expectMatchesReferences(*out, ds->outputs, tol, sets[k]))
            EXPECT_GT(cmp.maxAbsError, 1e-5 * cmp.maxAbsExpected) << sets[k] << ": suspiciously exact for float16";
        if (k > 0) continue;  // (runs under validation are slow: one data set is enough here)
        auto other = b->run(ds->inputs);
        ASSERT_TRUE(other.ok()) << other.status().toString();
        EXPECT_TRUE(sameBytes(*out, *other)) << sets[k] << ": minimal and conservative sync differ";
    }
}

INSTANTIATE_TEST_SUITE_P(Models, Fp16Model, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Fp16Case>& i) { return std::string(i.param.model); });

// The plan of a model in float16, its Casts unfolded: one Cast per graph input and output,
// every other dispatch a float16 kernel, float32 input and output buffers, about half the
// weight bytes.
TEST(Fp16ModelPlan, CastsOnlyAtTheBoundary) {
    std::string root = modelsDir();
    if (root.empty()) GTEST_SKIP() << "shared models not found";
    for (const char* name : {"resnet18_half", "mobilenet_v2", "squeezenet1_1", "espcn_x2", "unet_small", "tiny_vit"}) {
        SCOPED_TRACE(name);
        auto model = Model::load(root + "/" + name + "/model.onnx");
        ASSERT_TRUE(model.ok()) << model.status().toString();
        auto ds = loadTestDataSet(listTestDataSets(root + "/" + name).at(0), *model);
        ASSERT_TRUE(ds.ok());
        InputShapes shapes;
        for (const auto& in : ds->inputs) shapes.emplace_back(in.name, in.tensor.shape());
        // Both on the portable conv tiles, so that the two plans differ by precision alone (a
        // CPU's float32 default takes the register-direct kernel, float16 the portable one).
        PlanOptions o32;
        o32.kernels.convTiles = ConvTiles::Small;
        // The Casts as Casts: folded, a copy or conv next to one converts instead (ESPCN's
        // output Cast goes into its DepthToSpace copy: tests/ops/cast_folding_test.cpp).
        o32.kernels.foldCasts = false;
        PlanOptions o16 = o32;
        o16.precision = Precision::Float16;
        auto j32 = planJson(*model, shapes, o32), j16 = planJson(*model, shapes, o16);
        ASSERT_TRUE(j32.ok() && j16.ok()) << j16.status().toString();
        auto p32 = nlohmann::json::parse(*j32), p16 = nlohmann::json::parse(*j16);
        size_t casts = 0;
        for (const auto& d : p16["schedule"]) {
            std::string k = d["kernel"];
            if (k.rfind("cast_", 0) == 0) {
                ++casts;
                continue;
            }
            EXPECT_TRUE(k.size() < 4 || k.compare(k.size() - 4, 4, "_f32") != 0) << k;
        }
        for (const auto& d : p32["schedule"]) EXPECT_EQ(std::string(d["kernel"]).rfind("cast_", 0), std::string::npos);
        EXPECT_EQ(casts, ds->inputs.size() + model->outputs().size());
        EXPECT_EQ(p16["schedule"].size(), p32["schedule"].size() + casts);
        EXPECT_EQ(p16["inputs"], p32["inputs"]);
        EXPECT_EQ(p16["outputs"], p32["outputs"]);
        for (const auto& a : p16["allocations"])
            for (const auto& b : p32["allocations"])
                if (a["name"] == b["name"] && (a["kind"] == "input" || a["kind"] == "output")) {
                    EXPECT_EQ(a["bytes"], b["bytes"]) << a["name"];
                }
        double ratio = p16["weight_bytes"].get<double>() / p32["weight_bytes"].get<double>();
        EXPECT_GT(ratio, 0.45);
        EXPECT_LT(ratio, 0.6);
    }
}

// A device without storageBuffer16BitAccess / shaderFloat16 (a host device created without
// them) runs float32 but refuses float16 with Unsupported naming the feature.
TEST(Fp16Device, RequiresSixteenBitFeatures) {
    VKINFER_REQUIRE_GPU();
    std::string root = modelsDir();
    if (root.empty()) GTEST_SKIP() << "shared models not found";
    auto model = Model::load(root + "/espcn_x2/model.onnx");
    ASSERT_TRUE(model.ok());

    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    VkInstance instance = VK_NULL_HANDLE;
    ASSERT_EQ(vkCreateInstance(&ici, nullptr, &instance), VK_SUCCESS);
    uint32_t count = 1;
    VkPhysicalDevice phys = VK_NULL_HANDLE;
    vkEnumeratePhysicalDevices(instance, &count, &phys);
    ASSERT_NE(phys, VK_NULL_HANDLE);
    uint32_t families = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &families, nullptr);
    std::vector<VkQueueFamilyProperties> props(families);
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &families, props.data());
    uint32_t family = 0;
    while (family < families && !(props[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
    ASSERT_LT(family, families);
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &priority;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;  // no features, no extensions
    VkDevice device = VK_NULL_HANDLE;
    ASSERT_EQ(vkCreateDevice(phys, &dci, nullptr, &device), VK_SUCCESS);
    VkQueue queue = VK_NULL_HANDLE;
    vkGetDeviceQueue(device, family, 0, &queue);
    {
        HostDevice host;
        host.instance = instance;
        host.physicalDevice = phys;
        host.device = device;
        host.queueFamilyIndex = family;
        host.queue = queue;
        host.apiVersion = VK_API_VERSION_1_2;
        auto ctx = wrapHostDevice(host);
        ASSERT_TRUE(ctx.ok()) << ctx.status().toString();
        InputShapes shapes{{"input", {1, 3, 8, 8}}};
        auto fp32 = Session::create(*ctx, *model);
        ASSERT_TRUE(fp32.ok()) << fp32.status().toString();
        EXPECT_TRUE(fp32->prepare(shapes).ok());
        SessionOptions o;
        o.precision = Precision::Float16;
        auto fp16 = Session::create(*ctx, *model, o);
        ASSERT_TRUE(fp16.ok()) << fp16.status().toString();
        Status s = fp16->prepare(shapes);
        EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
        EXPECT_NE(s.message().find("storageBuffer16BitAccess"), std::string::npos) << s.toString();
    }
    vkDestroyDevice(device, nullptr);
    vkDestroyInstance(instance, nullptr);
}

}  // namespace
}  // namespace vkinfer::testing
