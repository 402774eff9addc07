// Fused attention (op type kAttentionOpType, made by passes/attention_fusion.cpp, run by
// shaders/attention.comp): y = softmax(scale * q k^T + a + c) v along the keys, per batch,
// with every operand read and the output written through strides (the head reshapes and
// transposes around attention never become copies).
// Inputs: q, k, v, then 0 to 2 added score tensors a, c (a bias, a mask). Output: y.
// Attributes: "layout" (ints, kAttentionLayoutSize of them, see AttentionLayout), "scale"
// (float), "output_shape" (ints: y's stored shape). Not an ONNX op: the importer never
// writes it (its type has a dot).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "graph/graph.h"

namespace vkinfer::ops {

inline constexpr const char* kAttentionOpType = "vkinfer.Attention";
inline constexpr int kAttentionMaxBatchDims = 3;  // shaders/attention.comp: NB0..NB2
inline constexpr int kAttentionMaxHeadDim = 128;  // its MAX_DIM
inline constexpr int kAttentionMaxBiases = 2;

// Where one tensor's elements are: element offset + batch index . batch + row index * row
// + column index * col (rows: queries for q, y and the added score tensors, keys for k and v;
// columns: the head dimension for q, k, v and y, the keys for the added tensors).
struct AttentionStrides {
    int64_t offset = 0;
    std::array<int64_t, kAttentionMaxBatchDims> batch{};
    int64_t row = 0, col = 1;
};

// The problem: batches over an index space of up to three dims (outermost first), S query
// rows, L keys, head dimensions D (q, k) and DV (v, y). Tensors in the order q, k, v, y, a, c.
struct AttentionLayout {
    int64_t S = 0, L = 0, D = 0, DV = 0;
    std::array<int64_t, kAttentionMaxBatchDims> batchDims{1, 1, 1};
    std::array<AttentionStrides, 6> tensor{};
    enum Tensor { Q = 0, K, V, Y, A, C };

    int64_t batches() const { return batchDims[0] * batchDims[1] * batchDims[2]; }
    std::vector<int64_t> encode() const;
};
inline constexpr size_t kAttentionLayoutSize = 7 + 6 * 6;

// The node's layout, checked against the stored shapes of its inputs and output (every
// element it reads or writes inside them): a node from a model file is data, never trusted.
AttentionLayout attentionLayoutOf(const graph::Node& n, const std::vector<graph::Shape>& inputShapes,
                                  const graph::Shape& outputShape);

struct OpDef;
// Adds the op's entry (ops/registry.cpp's table).
void registerAttentionOps(std::vector<OpDef>& table);

}  // namespace vkinfer::ops
