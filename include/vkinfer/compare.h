// Comparing outputs against reference data, and the ONNX backend-test data layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vkinfer/model.h"
#include "vkinfer/status.h"
#include "vkinfer/tensor.h"

namespace vkinfer {

// Per element: |actual - expected| <= atol + rtol * |expected|. When atolRelativeToMax is
// set, atol is scaled by max|expected| (the default: atol = 1e-4 * max|expected|).
struct Tolerance {
    double rtol = 1e-3;
    double atol = 1e-4;
    bool atolRelativeToMax = true;
};

struct Comparison {
    bool pass = false;
    std::string problem;        // why it failed when shapes/types disagree or values are NaN
    double maxAbsError = 0;     // max |actual - expected|
    double maxAbsExpected = 0;  // max |expected|
    double atolUsed = 0;        // the absolute tolerance after scaling
    int64_t mismatches = 0;     // elements outside the tolerance
    int64_t worstIndex = -1;    // flat index of the largest error relative to its bound
};

// Integer and boolean tensors must match exactly; NaN matches NaN.
Comparison compareTensors(const Tensor& actual, const Tensor& expected, const Tolerance& tol = {});

// One test_data_set_<k> folder: input_<i>.pb and output_<i>.pb (TensorProto), matched to
// the model's inputs and outputs by the name in each file or, when it is empty, by index.
struct TestDataSet {
    std::string path;
    std::vector<NamedTensor> inputs;
    std::vector<NamedTensor> outputs;
};
Result<TestDataSet> loadTestDataSet(const std::string& dir, const Model& model);

// The test_data_set_* folders of a model folder, sorted by number.
std::vector<std::string> listTestDataSets(const std::string& modelDir);

}  // namespace vkinfer
