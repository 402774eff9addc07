// Trilu (opset 14): the upper or lower triangle of each matrix of the last two dims, the rest
// zero. Exporters write it for causal attention masks (torch.triu / tril). k, the diagonal
// offset, is a plan-time value: a graph input bound by value when it is one
// (passes::valueInputs). shaders/trilu.comp is the kernel; the evaluator is its CPU twin.
#include <algorithm>
#include <cstring>
#include <limits>

#include "kernels/families/trilu.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

struct TriluSpec {
    int64_t rows = 0, cols = 0;
    // Clamped to [-(rows + cols), rows + cols] (and int32): beyond it every element is kept or
    // zeroed alike.
    int64_t k = 0;
    bool upper = true;
};

TriluSpec triluSpec(const Node& n, const Shape& x, const Tensor* kTensor) {
    if (x.size() < 2) shapeError(n, "the input must have rank 2 or more, got shape {}", shapeToString(x));
    TriluSpec s;
    s.rows = x[x.size() - 2];
    s.cols = x.back();
    s.upper = n.attrInt("upper", 1) != 0;
    if (kTensor) {
        if (kTensor->elementCount() != 1)
            shapeError(n, "k must be a scalar, got shape {}", shapeToString(kTensor->shape()));
        const int64_t bound = std::min<int64_t>(s.rows + s.cols, std::numeric_limits<int32_t>::max());
        s.k = std::clamp(kTensor->getInt(0), -bound, bound);
    }
    return s;
}

bool kept(const TriluSpec& s, int64_t i, int64_t j) { return s.upper ? j - i >= s.k : j - i <= s.k; }

void inferTrilu(Graph& g, const Node& n) {
    const auto& x = inputValue(g, n, 0);
    if (dataTypeSize(x.dtype) == 0) unsupported(n, "Trilu on {} tensors is not supported", dataTypeName(x.dtype));
    if (n.input(1) >= 0) {
        const auto& k = inputValue(g, n, 1);
        if (k.dtype != DataType::Int64) shapeError(n, "k must be int64, got {}", dataTypeName(k.dtype));
    }
    triluSpec(n, x.shape, optionalConstant(g, n, 1, "k"));
    setOutput(g, n, 0, x.dtype, x.shape);
}

void evalTrilu(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const Tensor& x = *in[0];
    const TriluSpec s = triluSpec(n, x.shape(), optionalInput(in, 1));
    const size_t es = dataTypeSize(x.dtype());
    std::memset(out[0].data(), 0, out[0].byteSize());
    const int64_t count = x.elementCount();
    for (int64_t idx = 0; idx < count; ++idx) {
        const int64_t j = idx % s.cols, i = (idx / s.cols) % s.rows;
        if (kept(s, i, j)) std::memcpy(out[0].data() + idx * es, x.data() + idx * es, es);
    }
}

void lowerTrilu(LowerContext& ctx, const Node& n) {
    const auto& x = ctx.value(n.inputs[0]);
    const int64_t count = x.elementCount();
    if (count == 0) return;
    requireIndexable(n, count);
    const TriluSpec s = triluSpec(n, x.shape, optionalConstant(ctx.graph(), n, 1, "k"));
    const size_t es = dataTypeSize(x.dtype);
    using kernels::trilu::Elem;
    if (es != 1 && es != 2 && es != 4 && es != 8) unsupported(n, "Trilu on {}-byte elements is not supported", es);
    Dispatch& d = ctx.emit(
        kernels::trilu::variant(es == 1 ? Elem::b8 : es == 2 ? Elem::b16 : es == 4 ? Elem::b32 : Elem::b64));
    setActivation(d, graph::Activation{});
    d.setSpec(kernels::trilu::kUpper, s.upper ? 1 : 0);
    kernels::trilu::Push p{};
    p.count = u32(count);
    p.rows = u32(s.rows);
    p.cols = u32(s.cols);
    p.k = static_cast<int32_t>(s.k);  // clamped to the int32 range by triluSpec
    d.setPush(p);
    setLaunch1d(d, count);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0])};
}

}  // namespace

void registerTriluOps(std::vector<OpDef>& t) {
    t.push_back(withFp16({"Trilu", 14, 1000, inferTrilu, evalTrilu, lowerTrilu}));
}

}  // namespace vkinfer::ops
