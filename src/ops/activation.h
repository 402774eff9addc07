// The CPU twin of shaders/common.glsl activate(): the reference for fused activations.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "graph/graph.h"

namespace vkinfer::ops {

// `channel`: the output channel of x (PRelu's slope; other kinds ignore it).
inline float applyActivation(const graph::Activation& a, float x, int64_t channel = 0) {
    switch (a.kind) {
        case graph::ActKind::None: return x;
        // NaN stays NaN, as in PyTorch and NumPy (std::max and std::min keep it only as their
        // first argument).
        case graph::ActKind::Relu: return x < 0.0f ? 0.0f : x;
        case graph::ActKind::Clip: return std::isnan(x) ? x : std::min(std::max(x, a.alpha), a.beta);
        case graph::ActKind::Sigmoid: return 1.0f / (1.0f + std::exp(-x));
        case graph::ActKind::Tanh: return std::tanh(x);
        case graph::ActKind::LeakyRelu: return x >= 0 ? x : x * a.alpha;
        case graph::ActKind::Silu: return x * (1.0f / (1.0f + std::exp(-x)));
        case graph::ActKind::Gelu: return static_cast<float>(0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))));
        case graph::ActKind::GeluTanh: {
            const double v = x, k = std::sqrt(2.0 / 3.14159265358979323846);
            return static_cast<float>(0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v))));
        }
        case graph::ActKind::HardSigmoid:
            return std::isnan(x) ? x : std::clamp(a.alpha * x + a.beta, 0.0f, 1.0f);
        case graph::ActKind::HardSwish: return std::isnan(x) ? x : x * std::clamp(x / 6.0f + 0.5f, 0.0f, 1.0f);
        case graph::ActKind::PRelu:
            if (a.slopes.empty()) fail(ErrorCode::Internal, "a fused PRelu without slopes");
            return x >= 0.0f ? x : x * a.slopes[static_cast<size_t>(channel) % a.slopes.size()];
    }
    return x;
}

// The activation of a standalone node that its attributes alone define (Relu, Sigmoid, Tanh,
// LeakyRelu, Gelu); false for other ops (Clip's bounds are inputs: its callers read them).
// Throws Unsupported for a Gelu approximation ONNX does not define.
inline bool attributeActivation(const graph::Node& n, graph::Activation* a) {
    using graph::ActKind;
    if (n.opType == "Relu") {
        a->kind = ActKind::Relu;
    } else if (n.opType == "Sigmoid") {
        a->kind = ActKind::Sigmoid;
    } else if (n.opType == "Tanh") {
        a->kind = ActKind::Tanh;
    } else if (n.opType == "LeakyRelu") {
        a->kind = ActKind::LeakyRelu;
        a->alpha = n.attrFloat("alpha", 0.01f);
    } else if (n.opType == "HardSigmoid") {
        a->kind = ActKind::HardSigmoid;
        a->alpha = n.attrFloat("alpha", 0.2f);
        a->beta = n.attrFloat("beta", 0.5f);
    } else if (n.opType == "HardSwish") {
        a->kind = ActKind::HardSwish;
    } else if (n.opType == "Gelu") {
        const std::string approximate = n.attrString("approximate", "none");
        if (approximate != "none" && approximate != "tanh")
            fail(ErrorCode::Unsupported, "{}: Gelu approximation '{}' is not defined (\"none\" or \"tanh\")",
                 n.describe(), approximate);
        a->kind = approximate == "tanh" ? ActKind::GeluTanh : ActKind::Gelu;
    } else {
        return false;
    }
    return true;
}

}  // namespace vkinfer::ops
