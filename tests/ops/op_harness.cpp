#include "ops/op_harness.h"

#include <cstring>

#include "passes/cpu_reference.h"
#include "runtime/model_data.h"

namespace vkinfer::testing {

void expectGpuMatchesCpu(const OnnxBuilder& builder, const std::vector<NamedTensor>& inputs, const std::string& what,
                         Tolerance tol) {
    auto model = builder.build();
    ASSERT_TRUE(model.ok()) << what << ": " << model.status().toString();
    std::vector<Tensor> expected;
    try {
        expected = passes::runOnCpu(model->data()->graph, inputs);
    } catch (const std::exception& e) {
        FAIL() << what << ": CPU reference failed: " << e.what();
    }
    std::vector<std::vector<NamedTensor>> results;
    for (SyncMode mode : {SyncMode::Minimal, SyncMode::Conservative}) {
        SessionOptions opts;
        opts.sync = mode;
        auto session = Session::create(gpuContext(), *model, opts);
        ASSERT_TRUE(session.ok()) << what << ": " << session.status().toString();
        auto out = session->run(inputs);
        ASSERT_TRUE(out.ok()) << what << " (" << syncModeName(mode) << "): " << out.status().toString();
        ASSERT_EQ(out->size(), expected.size()) << what;
        for (size_t i = 0; i < expected.size(); ++i) {
            Comparison c = compareTensors((*out)[i].tensor, expected[i], tol);
            EXPECT_TRUE(c.pass) << what << " (" << syncModeName(mode) << ") output " << i << ": "
                                << (c.problem.empty() ? "" : c.problem + "; ") << c.mismatches << " mismatches, max error "
                                << c.maxAbsError << " (max |ref| " << c.maxAbsExpected << ", worst index " << c.worstIndex
                                << ")";
        }
        results.push_back(std::move(out).value());
    }
    for (size_t i = 0; i < expected.size(); ++i) {
        const Tensor& a = results[0][i].tensor;
        const Tensor& b = results[1][i].tensor;
        ASSERT_EQ(a.byteSize(), b.byteSize());
        EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.byteSize()))
            << what << ": minimal and conservative sync differ in output " << i;
    }
}

}  // namespace vkinfer::testing
