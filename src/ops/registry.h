// The operator table: for each ONNX op type, how to infer its output shapes, evaluate it on
// the CPU (constant folding, and the reference the op tests compare against) and lower it
// to dispatches.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "ops/dispatch.h"

namespace vkinfer::ops {

class LowerContext;

// CPU evaluation: inputs[i] is null for an omitted optional input; outputs arrive allocated
// with the inferred dtype and shape.
using EvalFn = void (*)(const graph::Node& node, std::span<const Tensor* const> inputs, std::span<Tensor> outputs);
// Sets dtype and shape of the node's outputs; may read constant inputs. Throws ShapeError.
using InferFn = void (*)(graph::Graph& g, const graph::Node& node);
using LowerFn = void (*)(LowerContext& ctx, const graph::Node& node);
// Where output `output` of the node lives inside input 0 when it can share its bytes (a Slice
// or Split taking a contiguous run of them): its element offset there, or -1.
using ViewOffsetFn = int64_t (*)(const graph::Graph& g, const graph::Node& node, size_t output);
// The multiply-adds evaluating the node on the CPU takes (a product's outputs x its reduction
// length), for constant folding's work budget (passes/specialize.cpp), once its outputs'
// shapes are inferred. Saturates at INT64_MAX.
using FoldWorkFn = int64_t (*)(const graph::Graph& g, const graph::Node& node);

struct OpDef {
    std::string_view type;
    // The opset range whose semantics this entry implements. maxOpset ends it where a later
    // opset changes the op in a way the entry does not implement and does not refuse per
    // node; 1000 means "still current": models are limited to Model::kNewestOpset anyway,
    // and ops/*.cpp were audited against ONNX's Changelog up to it (docs/ARCHITECTURE.md).
    int minOpset = 1;
    int maxOpset = 1000;
    InferFn infer = nullptr;
    EvalFn evaluate = nullptr;
    LowerFn lower = nullptr;   // null: the op is a view (output aliases input 0) or CPU-only
    bool isView = false;       // output 0 shares input 0's bytes (Reshape, Flatten, ...)
    // Set for ops that are views for some nodes only: the plan makes the node a view when every
    // output has an offset (aligned for binding, plan/compile.cpp), else lowers it.
    ViewOffsetFn viewOffset = nullptr;
    // The lowering runs the node with float16 tensors in place of float32 ones (every float
    // operand and output float16, arithmetic in float32), so PlanOptions::precision = Float16
    // keeps the node's float tensors in float16 (passes/precision.cpp); other nodes get casts.
    bool fp16 = false;
    // Null for the ops whose evaluation costs about one operation per output element.
    FoldWorkFn foldWork = nullptr;
};

// `d` marked fp16-capable (OpDef::fp16).
inline OpDef withFp16(OpDef d) {
    d.fp16 = true;
    return d;
}

// `d` with its folding work (OpDef::foldWork).
inline OpDef withFoldWork(OpDef d, FoldWorkFn work) {
    d.foldWork = work;
    return d;
}

// Every entry (an op type appears once per opset range).
const std::vector<OpDef>& opTable();
// The entry for (op type, opset), or null.
const OpDef* findOp(std::string_view type, int64_t opset);
// The entry for the op type at any opset (to tell "unknown op" from "unsupported opset").
const OpDef* findOpAnyOpset(std::string_view type);

// Throws Error(Unsupported) when the model's default-domain opset is newer than
// Model::kNewestOpset, or naming the first node whose op, domain or opset is not in the table.
void checkSupported(const graph::Graph& g);

// Registration, one function per operator family (source file in src/ops/).
void registerConvOps(std::vector<OpDef>& table);
void registerPoolOps(std::vector<OpDef>& table);
void registerElementwiseOps(std::vector<OpDef>& table);
void registerGemmOps(std::vector<OpDef>& table);
void registerLayoutOps(std::vector<OpDef>& table);
void registerConcatOps(std::vector<OpDef>& table);         // concat.cpp
void registerResizeOps(std::vector<OpDef>& table);
void registerUnaryOps(std::vector<OpDef>& table);          // unary.cpp: Exp, Log, Erf, Elu, ...
void registerCompareOps(std::vector<OpDef>& table);        // compare.cpp: Equal, Less, Greater, Not, Where
void registerCastOps(std::vector<OpDef>& table);           // cast.cpp
void registerReduceOps(std::vector<OpDef>& table);         // reduce.cpp: Reduce*, ArgMax
void registerSoftmaxOps(std::vector<OpDef>& table);        // softmax.cpp: Softmax, LogSoftmax
void registerNormalizationOps(std::vector<OpDef>& table);  // normalization.cpp: Instance/LayerNormalization
void registerSliceOps(std::vector<OpDef>& table);          // slice.cpp: Slice, Split
void registerGatherOps(std::vector<OpDef>& table);         // gather.cpp
void registerPadOps(std::vector<OpDef>& table);            // pad.cpp
void registerExpandOps(std::vector<OpDef>& table);         // expand.cpp: Tile, Expand
void registerShapeOps(std::vector<OpDef>& table);          // shape_ops.cpp: Shape, Size, ConstantOfShape, Range
void registerGridSampleOps(std::vector<OpDef>& table);     // grid_sample.cpp
void registerConvTransposeOps(std::vector<OpDef>& table);  // conv/transpose.cpp
void registerTriluOps(std::vector<OpDef>& table);          // trilu.cpp
void registerCumSumOps(std::vector<OpDef>& table);         // cumsum.cpp
void registerEinsumOps(std::vector<OpDef>& table);         // einsum.cpp
void registerTopKOps(std::vector<OpDef>& table);           // topk.cpp

}  // namespace vkinfer::ops
