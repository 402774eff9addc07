// Normalizations the pattern fusions make that no ONNX operator (at the model's opset)
// expresses. Normalization over the channel axis alone: NAFNet's
// LayerNorm2d (each pixel's C values to zero mean and unit variance, then a scale and bias
// per channel), exported op by op and found by passes/pointwise_fusion.cpp
// (fuseLayerNormPattern). Inputs: x [N, C, ...] (rank >= 3), scale [C], optional bias [C];
// attribute "epsilon". Runs on shaders/norm.comp with strided rows (ops/normalization.cpp).
// Not an ONNX op: the importer never writes it (its type has a dot).
#pragma once

#include <cstdint>

namespace vkinfer::ops {

inline constexpr const char* kChannelNormOpType = "vkinfer.ChannelNorm";

// GroupNormalization with a scale and bias per channel (opset 21's meaning) at any opset:
// what passes/pointwise_fusion.cpp (fuseGroupNormPattern) makes of the exporters' GroupNorm,
// Reshape [N, G, -1] -> InstanceNormalization (unit scale, zero bias) -> Reshape back -> Mul
// -> Add. Inputs x [N, C, ...], scale [C], bias [C]; attributes "num_groups", "epsilon".
inline constexpr const char* kGroupNormOpType = "vkinfer.GroupNorm";

// Chunks per row for `rows` contiguous rows of `len` elements (Layer-, Instance-,
// GroupNormalization): 1 runs norm.comp, a workgroup per row; more, where the rows are few
// (under 512) and long (16 Ki elements or more: a feature map normalized whole), runs
// norm_split.comp's two dispatches over (chunk, row) workgroups, about 1024 of them, chunks
// of at least 4 Ki elements, at most 256 per row. A pure function of the sizes.
int64_t normChunks(int64_t rows, int64_t len);

}  // namespace vkinfer::ops
