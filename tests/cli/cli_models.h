// Small model folders (ONNX backend-test layout) for the CLI tests, with reference outputs
// from the CPU reference implementation.
#pragma once

#include <vkinfer/vkinfer.h>

#include <filesystem>
#include <string>

#include "io/io_test_util.h"
#include "passes/cpu_reference.h"
#include "runtime/model_data.h"
#include "support/onnx_builder.h"

namespace vkinfer::testing {

// x[1,3,8,8] -> Conv 3x3 (4 channels, pad 1) -> Relu -> MaxPool 2x2 -> y[1,4,4,4]
inline OnnxBuilder smallConvModel() {
    OnnxBuilder b(13);
    b.input("x", {1, 3, 8, 8});
    b.initializer("w", randomTensor({4, 3, 3, 3}, 101, -0.5f, 0.5f));
    b.initializer("bias", randomTensor({4}, 102, -0.1f, 0.1f));
    auto& conv = b.node("Conv", {"x", "w", "bias"}, {"c"}, "conv");
    attr(conv, "kernel_shape", std::vector<int64_t>{3, 3});
    attr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
    b.node("Relu", {"c"}, {"r"}, "relu");
    auto& pool = b.node("MaxPool", {"r"}, {"y"}, "pool");
    attr(pool, "kernel_shape", std::vector<int64_t>{2, 2});
    attr(pool, "strides", std::vector<int64_t>{2, 2});
    b.output("y");
    return b;
}

// A model the engine cannot run: an unknown operator.
inline OnnxBuilder unsupportedModel() {
    OnnxBuilder b(13);
    b.input("x", {1, 4});
    b.node("FrobnicateOp", {"x"}, {"y"}, "frob");
    b.output("y");
    return b;
}

// Writes dir/model.onnx and dir/test_data_set_<k>/{input_<i>,output_<i>}.pb for `sets`
// random inputs; the outputs come from passes::runOnCpu.
inline void writeModelFolder(const std::filesystem::path& dir, const OnnxBuilder& b, int sets, uint32_t seed = 1) {
    std::filesystem::create_directories(dir);
    std::string bytes = b.serialize();
    writeFile((dir / "model.onnx").string(), bytes);
    auto model = Model::fromBytes(bytes.data(), bytes.size(), "cli test model");
    if (!model.ok()) return;  // unsupported models get no reference data (it could not be computed)
    for (int k = 0; k < sets; ++k) {
        auto setDir = dir / ("test_data_set_" + std::to_string(k));
        std::filesystem::create_directories(setDir);
        std::vector<NamedTensor> inputs;
        for (const auto& d : model->inputs())
            inputs.push_back({d.name, randomTensor(d.shape, seed + static_cast<uint32_t>(k) * 7919u)});
        std::vector<Tensor> outputs = passes::runOnCpu(model->data()->graph, inputs);
        for (size_t i = 0; i < inputs.size(); ++i)
            if (!saveTensorProto((setDir / ("input_" + std::to_string(i) + ".pb")).string(), inputs[i].tensor,
                                 inputs[i].name)
                     .ok())
                throw std::runtime_error("cannot write input");
        for (size_t i = 0; i < outputs.size(); ++i)
            if (!saveTensorProto((setDir / ("output_" + std::to_string(i) + ".pb")).string(), outputs[i],
                                 model->outputs()[i].name)
                     .ok())
                throw std::runtime_error("cannot write output");
    }
}

}  // namespace vkinfer::testing
