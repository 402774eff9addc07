// Normalization over the channel axis alone, which no ONNX operator expresses: NAFNet's
// LayerNorm2d (each pixel's C values to zero mean and unit variance, then a scale and bias
// per channel), exported op by op and found by passes/pointwise_fusion.cpp
// (fuseLayerNormPattern). Inputs: x [N, C, ...] (rank >= 3), scale [C], optional bias [C];
// attribute "epsilon". Runs on shaders/norm.comp with strided rows (ops/normalization.cpp).
// Not an ONNX op: the importer never writes it (its type has a dot).
#pragma once

namespace vkinfer::ops {

inline constexpr const char* kChannelNormOpType = "vkinfer.ChannelNorm";

}  // namespace vkinfer::ops
