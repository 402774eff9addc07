// Models the benchmarks run: the shared test models when present, else the bundled one.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace vkinfer::bench {

struct BenchModel {
    std::string name;
    std::string path;
};

inline std::vector<BenchModel> benchModels() {
    const char* env = std::getenv("VKINFER_MODELS_DIR");
    std::string dir = env && *env ? env : VKINFER_MODELS_DIR;
    std::vector<BenchModel> out;
    for (const char* m : {"resnet18_half", "mobilenet_v2", "squeezenet1_1", "espcn_x2", "unet_small"}) {
        std::string p = dir + "/" + m + "/model.onnx";
        if (std::filesystem::exists(p)) out.push_back({m, p});
    }
    if (out.empty()) out.push_back({"espcn_x2", std::string(VKINFER_DATA_DIR) + "/espcn_x2/model.onnx"});
    return out;
}

// A declared shape with its dynamic dimensions filled: batch 1, spatial 224.
inline std::vector<int64_t> concreteShape(std::vector<int64_t> shape) {
    for (size_t i = 0; i < shape.size(); ++i)
        if (shape[i] < 0) shape[i] = i == 0 ? 1 : 224;
    return shape;
}

}  // namespace vkinfer::bench
