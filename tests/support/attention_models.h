// Attention blocks as PyTorch's exporter writes them, for the attention fusion's tests
// (passes/attention_fusion.h): the in-projection as one MatMul, heads split by Reshape, Slice
// and Transpose, the scale on q and k (or on q, or after the product, or Swin V2's cosine
// attention: q and k normalized, the scores scaled per head), an added bias and mask, Softmax
// over the keys, the product with v, the heads merged back.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "support/onnx_builder.h"

namespace vkinfer::testing {

struct AttentionBlock {
    int64_t batch = 1;    // outer batch (Swin: images)
    int64_t windows = 0;  // 0: no windows; else windows per image (Swin), x is [batch*windows, S, C]
    int64_t heads = 6, seq = 197, headDim = 64;
    int64_t kvSeq = 0;  // 0: self-attention; else keys from a second input of this length
    enum class Scale { QandK, Q, Scores, CosinePerHead } scale = Scale::QandK;
    bool bias = false;  // a relative-position bias [1, heads, S, S] added to the scores
    bool mask = false;  // a shifted-window mask [1, windows, 1, S, S] (0 / -100), scores regrouped for it
    uint32_t seed = 1;
};

inline Tensor attentionScalar(float v) { return Tensor::fromVector<float>(DataType::Float32, {}, {v}); }
inline Tensor attentionShape(std::vector<int64_t> dims) {
    const int64_t n = static_cast<int64_t>(dims.size());
    return Tensor::fromVector<int64_t>(DataType::Int64, {n}, dims);
}

// The model: input "x" [B', S, C] (and "m" [B', L, C] for cross-attention), output "y" [B', S, C].
inline OnnxBuilder attentionModel(const AttentionBlock& a, std::vector<NamedTensor>* inputs) {
    const int64_t C = a.heads * a.headDim, B = a.batch * (a.windows > 0 ? a.windows : 1);
    const int64_t S = a.seq, L = a.kvSeq > 0 ? a.kvSeq : a.seq;
    OnnxBuilder b(17);
    b.input("x", {B, S, C}).output("y");
    inputs->push_back({"x", randomTensor({B, S, C}, a.seed)});
    const float wScale = 1.0f / std::sqrt(static_cast<float>(C));
    auto split = [&](const std::string& from, int64_t rows, int64_t parts, int64_t part, const std::string& name,
                     const std::vector<int64_t>& perm) {
        // [B, rows, parts*C] -> [B, rows, parts, H, Dh] -> slice part -> [B, rows, H, Dh] -> perm
        const std::string p = name + "_";
        b.initializer(p + "shape5", attentionShape({B, rows, parts, a.heads, a.headDim}));
        b.node("Reshape", {from, p + "shape5"}, {p + "r5"});
        b.initializer(p + "start", attentionShape({part})).initializer(p + "end", attentionShape({part + 1}));
        b.initializer(p + "axis", attentionShape({2}));
        b.node("Slice", {p + "r5", p + "start", p + "end", p + "axis"}, {p + "sl"});
        b.initializer(p + "shape4", attentionShape({B, rows, a.heads, a.headDim}));
        b.node("Reshape", {p + "sl", p + "shape4"}, {p + "r4"});
        attr(b.node("Transpose", {p + "r4"}, {name}), "perm", perm);
    };
    if (a.kvSeq > 0) {  // cross-attention: q from x, k and v from m
        b.input("m", {B, L, C});
        inputs->push_back({"m", randomTensor({B, L, C}, a.seed + 1)});
        b.initializer("wq", randomTensor({C, C}, a.seed + 2, -wScale, wScale));
        b.initializer("wkv", randomTensor({C, 2 * C}, a.seed + 3, -wScale, wScale));
        b.node("MatMul", {"x", "wq"}, {"qp"});
        b.node("MatMul", {"m", "wkv"}, {"kvp"});
        split("qp", S, 1, 0, "q", {0, 2, 1, 3});
        split("kvp", L, 2, 0, "kt", {0, 2, 3, 1});
        split("kvp", L, 2, 1, "v", {0, 2, 1, 3});
    } else {
        b.initializer("wqkv", randomTensor({C, 3 * C}, a.seed + 2, -wScale, wScale));
        b.node("MatMul", {"x", "wqkv"}, {"qkv"});
        split("qkv", S, 3, 0, "q", {0, 2, 1, 3});
        split("qkv", S, 3, 1, "kt", {0, 2, 3, 1});
        split("qkv", S, 3, 2, "v", {0, 2, 1, 3});
    }
    const float scale = 1.0f / std::sqrt(static_cast<float>(a.headDim));
    std::string q = "q", kt = "kt", scores = "scores";
    if (a.scale == AttentionBlock::Scale::QandK) {  // the dynamo exporter: sqrt(scale) on each
        b.initializer("root_scale", attentionScalar(std::sqrt(scale)));
        b.node("Mul", {"q", "root_scale"}, {"qs"});
        b.node("Mul", {"kt", "root_scale"}, {"ks"});
        q = "qs", kt = "ks";
    } else if (a.scale == AttentionBlock::Scale::Q) {  // Swin: q * head_dim^-0.5
        b.initializer("scale", attentionScalar(scale));
        b.node("Mul", {"q", "scale"}, {"qs"});
        q = "qs";
    } else if (a.scale == AttentionBlock::Scale::CosinePerHead) {
        // Swin V2: F.normalize(q) @ F.normalize(k)^T as the exporter writes F.normalize (the
        // L2 norm over the head dimension, at least eps, divided by), then logit_scale [H, 1, 1].
        b.initializer("eps", attentionScalar(1e-12f));
        auto normalize = [&](const std::string& x, int64_t axis) {
            auto& norm = b.node("ReduceL2", {x}, {x + "_norm"});
            attr(norm, "axes", std::vector<int64_t>{axis});
            attr(norm, "keepdims", int64_t{1});
            b.node("Max", {x + "_norm", "eps"}, {x + "_clamped"});
            b.node("Div", {x, x + "_clamped"}, {x + "_unit"});
            return x + "_unit";
        };
        q = normalize("q", 3);
        kt = normalize("kt", 2);
    }
    b.node("MatMul", {q, kt}, {"s0"});
    std::string s = "s0";
    if (a.scale == AttentionBlock::Scale::Scores) {  // scores / sqrt(head_dim)
        b.initializer("root_d", attentionScalar(std::sqrt(static_cast<float>(a.headDim))));
        b.node("Div", {s, "root_d"}, {"s1"});
        s = "s1";
    } else if (a.scale == AttentionBlock::Scale::CosinePerHead) {  // exp(min(logit_scale, log 100))
        b.initializer("logit_scale", randomTensor({a.heads, 1, 1}, a.seed + 5, 2.0f, 4.6f));
        b.node("Mul", {s, "logit_scale"}, {"s1"});
        s = "s1";
    }
    if (a.bias) {
        b.initializer("rel_bias", randomTensor({1, a.heads, S, L}, a.seed + 4, -2.0f, 2.0f));
        b.node("Add", {s, "rel_bias"}, {"s2"});
        s = "s2";
    }
    if (a.mask) {  // Swin's shifted windows: regroup by image, add the per-window mask, back
        // Odd windows straddle the shift: tokens of a 7 x 7 window fall into four regions
        // (row < 4 or not, column < 4 or not) that must not attend to each other.
        auto region = [&](int64_t w, int64_t t) { return w % 2 == 0 ? 0 : (t % 7 < 4 ? 0 : 1) + ((t / 7) % 7 < 4 ? 0 : 2); };
        std::vector<float> mask(static_cast<size_t>(a.windows * S * L));
        for (int64_t w = 0; w < a.windows; ++w)
            for (int64_t i = 0; i < S; ++i)
                for (int64_t j = 0; j < L; ++j)
                    mask[static_cast<size_t>((w * S + i) * L + j)] = region(w, i) == region(w, j) ? 0.0f : -100.0f;
        b.initializer("mask", Tensor::fromVector<float>(DataType::Float32, {1, a.windows, 1, S, L}, mask));
        b.initializer("by_image", attentionShape({a.batch, a.windows, a.heads, S, L}));
        b.node("Reshape", {s, "by_image"}, {"s3"});
        b.node("Add", {"s3", "mask"}, {"s4"});
        b.initializer("by_window", attentionShape({B, a.heads, S, L}));
        b.node("Reshape", {"s4", "by_window"}, {"s5"});
        s = "s5";
    }
    attr(b.node("Softmax", {s}, {"p"}), "axis", int64_t{-1});
    b.node("MatMul", {"p", "v"}, {"o"});
    attr(b.node("Transpose", {"o"}, {"ot"}), "perm", std::vector<int64_t>{0, 2, 1, 3});
    b.initializer("merged", attentionShape({B, S, C}));
    b.node("Reshape", {"ot", "merged"}, {"y"});
    return b;
}

}  // namespace vkinfer::testing
