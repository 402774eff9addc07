#include "ops/registry.h"

#include <algorithm>

#include "core/error.h"
#include "vkinfer/model.h"

namespace vkinfer::ops {


namespace {

const std::vector<OpDef>& table() {
    static const std::vector<OpDef> t = [] {
        std::vector<OpDef> v;
        for (auto* family : {registerConvOps, registerPoolOps, registerElementwiseOps, registerGemmOps, registerLayoutOps,
                             registerResizeOps, registerUnaryOps, registerCompareOps, registerCastOps, registerReduceOps,
                             registerSoftmaxOps, registerNormalizationOps, registerSliceOps, registerGatherOps,
                             registerPadOps, registerExpandOps, registerShapeOps, registerConvTransposeOps})
            family(v);
        return v;
    }();
    return t;
}

}  // namespace

const OpDef* findOp(std::string_view type, int64_t opset) {
    for (const auto& d : table())
        if (d.type == type && opset >= d.minOpset && opset <= d.maxOpset) return &d;
    return nullptr;
}

const OpDef* findOpAnyOpset(std::string_view type) {
    for (const auto& d : table())
        if (d.type == type) return &d;
    return nullptr;
}

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
        if (findOp(n.opType, g.opset)) continue;
        if (findOpAnyOpset(n.opType))
            fail(ErrorCode::Unsupported, "{}: operator {} is not supported at opset {}", n.describe(), n.opType, g.opset);
        fail(ErrorCode::Unsupported, "{}: operator {} (opset {}) is not supported", n.describe(), n.opType, g.opset);
    }
}

}  // namespace vkinfer::ops
