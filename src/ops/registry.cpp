#include "ops/registry.h"

#include <algorithm>

#include "core/error.h"
#include "ops/attention.h"
#include "vkinfer/model.h"

namespace vkinfer::ops {


const std::vector<OpDef>& opTable() {
    static const std::vector<OpDef> t = [] {
        std::vector<OpDef> v;
        for (auto* family : {registerConvOps, registerPoolOps, registerElementwiseOps, registerGemmOps, registerLayoutOps, registerConcatOps,
                             registerResizeOps, registerUnaryOps, registerCompareOps, registerCastOps, registerReduceOps,
                             registerSoftmaxOps, registerNormalizationOps, registerSliceOps, registerGatherOps,
                             registerPadOps, registerExpandOps, registerShapeOps, registerConvTransposeOps,
                             registerGridSampleOps, registerTriluOps, registerCumSumOps,
                             registerTopKOps, registerAttentionOps, registerEinsumOps})
            family(v);
        return v;
    }();
    return t;
}

const OpDef* findOp(std::string_view type, int64_t opset) {
    for (const auto& d : opTable())
        if (d.type == type && opset >= d.minOpset && opset <= d.maxOpset) return &d;
    return nullptr;
}

const OpDef* findOpAnyOpset(std::string_view type) {
    for (const auto& d : opTable())
        if (d.type == type) return &d;
    return nullptr;
}

namespace {

// How many inputs and outputs an operator takes from an opset on (ONNX's schemas).
struct Arity {
    std::string_view op;
    int since, minInputs, maxInputs, minOutputs, maxOutputs;
};
constexpr Arity kArity[] = {
#include "ops/arity_table.inc"
};

const Arity* arityOf(std::string_view op, int64_t opset) {
    const Arity* best = nullptr;
    for (const Arity& a : kArity)
        if (a.op == op && a.since <= opset && (!best || a.since > best->since)) best = &a;
    return best;
}

std::string countText(int lo, int hi, const char* what) {
    const std::string plural = std::string(what) + "s";
    if (hi >= 2147483647) return fmt::format("{} or more {}", lo, lo == 1 ? what : plural.c_str());
    if (lo == hi) return fmt::format("{} {}", lo, lo == 1 ? what : plural.c_str());
    return fmt::format("{} to {} {}", lo, hi, plural);
}

// A node with more inputs or outputs than its operator has, or without a required one, is a
// malformed model: said so in those words, before any op reads an input that is not there.
void checkArity(const graph::Node& n, int64_t opset) {
    const Arity* a = arityOf(n.opType, opset);
    if (!a) return;
    const auto given = [](const std::vector<int>& v) { return static_cast<int>(v.size()); };
    if (given(n.inputs) > a->maxInputs || given(n.inputs) < a->minInputs)
        fail(ErrorCode::ParseError, "{}: {} takes {} at opset {}, the node has {}", n.describe(), n.opType,
             countText(a->minInputs, a->maxInputs, "input"), opset, given(n.inputs));
    for (int i = 0; i < a->minInputs; ++i)
        if (n.inputs[i] < 0) fail(ErrorCode::ParseError, "{}: input {} of {} is required but empty", n.describe(), i, n.opType);
    if (given(n.outputs) > a->maxOutputs || given(n.outputs) < a->minOutputs)
        fail(ErrorCode::ParseError, "{}: {} has {} at opset {}, the node has {}", n.describe(), n.opType,
             countText(a->minOutputs, a->maxOutputs, "output"), opset, given(n.outputs));
    for (int i = 0; i < a->minOutputs; ++i)
        if (n.outputs[i] < 0)
            fail(ErrorCode::ParseError, "{}: output {} of {} is required but empty", n.describe(), i, n.opType);
}

}  // namespace

void checkSupported(const graph::Graph& g) {
    // Every op's entry covers opsets up to kNewestOpset or stops where its semantics change
    // in a way vkinfer does not implement; what a later opset changes is unknown.
    if (g.opset > Model::kNewestOpset)
        fail(ErrorCode::Unsupported,
             "the model imports opset {} of the default ONNX domain; vkinfer implements opsets up to {}", g.opset,
             Model::kNewestOpset);
    for (const auto& n : g.nodes) {
        if (n.removed) continue;
        if (!n.domain.empty())
            fail(ErrorCode::Unsupported, "{}: domain '{}' is not supported (only the default ONNX domain)", n.describe(),
                 n.domain);
        if (findOp(n.opType, g.opset)) {
            checkArity(n, g.opset);
            continue;
        }
        if (findOpAnyOpset(n.opType))
            fail(ErrorCode::Unsupported, "{}: operator {} is not supported at opset {}", n.describe(), n.opType, g.opset);
        fail(ErrorCode::Unsupported, "{}: operator {} (opset {}) is not supported", n.describe(), n.opType, g.opset);
    }
}

}  // namespace vkinfer::ops
