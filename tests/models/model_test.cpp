// Model tests over the shared models (../shared/models, ONNX backend-test layout): every
// data set passes against its reference with the default tolerance, minimal and
// conservative sync give bit-identical outputs, and repeated runs are bit-identical. Run
// under validation with synchronization validation (ctest sets VKINFER_VALIDATE=1).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "models/reference_checks.h"
#include "support/gpu_context.h"

namespace vkinfer::testing {
namespace {

// Models expected to pass here; tiny_vit needs operators of a later milestone.
const char* const kModels[] = {"resnet18_half", "mobilenet_v2", "squeezenet1_1", "espcn_x2", "unet_small"};

class SharedModel : public ::testing::TestWithParam<const char*> {};

TEST_P(SharedModel, MatchesReferenceDeterministicallyInBothSyncModes) {
    VKINFER_REQUIRE_GPU();
    std::string root = modelsDir();
    if (root.empty())
        GTEST_SKIP() << "shared models not found (set VKINFER_MODELS_DIR or see README: Test models)";
    std::string dir = root + "/" + GetParam();
    auto model = Model::load(dir + "/model.onnx");
    ASSERT_TRUE(model.ok()) << model.status().toString();
    auto sets = listTestDataSets(dir);
    ASSERT_FALSE(sets.empty()) << dir;

    SessionOptions minimal, conservative;
    conservative.sync = SyncMode::Conservative;
    auto fast = Session::create(gpuContext(), *model, minimal);
    auto safe = Session::create(gpuContext(), *model, conservative);
    ASSERT_TRUE(fast.ok() && safe.ok());

    for (size_t k = 0; k < sets.size(); ++k) {
        auto ds = loadTestDataSet(sets[k], *model);
        ASSERT_TRUE(ds.ok()) << ds.status().toString();
        auto first = fast->run(ds->inputs);
        ASSERT_TRUE(first.ok()) << sets[k] << ": " << first.status().toString();
        expectMatchesReferences(*first, ds->outputs, Tolerance{}, sets[k]);
        auto other = safe->run(ds->inputs);
        ASSERT_TRUE(other.ok()) << other.status().toString();
        EXPECT_TRUE(sameBytes(*first, *other)) << sets[k] << ": minimal and conservative sync differ";
        if (k == 0) {  // three runs, bit-identical
            for (int rep = 0; rep < 2; ++rep) {
                auto again = fast->run(ds->inputs);
                ASSERT_TRUE(again.ok()) << again.status().toString();
                EXPECT_TRUE(sameBytes(*first, *again)) << sets[k] << ": run " << rep + 2 << " differs from run 1";
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Models, SharedModel, ::testing::ValuesIn(kModels),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

// A session re-plans when input shapes change and reuses the earlier plan when they come
// back (espcn_x2 and unet_small have dynamic batch, height and width).
TEST(DynamicShapes, ReplansPerShapeAndReusesPlans) {
    VKINFER_REQUIRE_GPU();
    std::string root = modelsDir();
    if (root.empty()) GTEST_SKIP() << "shared models not found";
    auto model = Model::load(root + "/espcn_x2/model.onnx");
    ASSERT_TRUE(model.ok()) << model.status().toString();
    auto session = Session::create(gpuContext(), *model);
    ASSERT_TRUE(session.ok());
    Tensor a(DataType::Float32, {1, 3, 9, 11}), b(DataType::Float32, {2, 3, 5, 7});
    for (int64_t i = 0; i < a.elementCount(); ++i) a.as<float>()[i] = static_cast<float>(i % 13) / 13.0f;
    for (int64_t i = 0; i < b.elementCount(); ++i) b.as<float>()[i] = static_cast<float>(i % 7) / 7.0f;
    RunStats s1, s2, s3;
    auto r1 = session->run({{"input", a}}, &s1);
    auto r2 = session->run({{"input", b}}, &s2);
    auto r3 = session->run({{"input", a}}, &s3);
    ASSERT_TRUE(r1.ok() && r2.ok() && r3.ok()) << r1.status().toString() << r2.status().toString();
    EXPECT_TRUE(s1.planned);
    EXPECT_TRUE(s2.planned);
    EXPECT_FALSE(s3.planned) << "the plan for the first shape should have been reused";
    EXPECT_EQ((*r1)[0].tensor.shape(), (std::vector<int64_t>{1, 3, 18, 22}));
    EXPECT_EQ((*r2)[0].tensor.shape(), (std::vector<int64_t>{2, 3, 10, 14}));
    EXPECT_TRUE(sameBytes(*r1, *r3));
}

}  // namespace
}  // namespace vkinfer::testing
