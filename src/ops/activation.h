// The CPU twin of shaders/common.glsl activate(): the reference for fused activations.
#pragma once

#include <algorithm>
#include <cmath>

#include "graph/graph.h"

namespace vkinfer::ops {

inline float applyActivation(const graph::Activation& a, float x) {
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
    }
    return x;
}

}  // namespace vkinfer::ops
