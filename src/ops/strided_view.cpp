#include "ops/strided_view.h"

#include "ops/broadcast.h"
#include "ops/element_order.h"
#include "core/error.h"

namespace vkinfer::ops {

using graph::Shape;
using graph::StridedView;

StridedView contiguousView(const Shape& shape) { return {0, shape, contiguousStrides(shape)}; }

namespace {

int64_t elementsOf(const Shape& s) {
    int64_t e = 1;
    for (int64_t d : s) e *= d;
    return e;
}

}  // namespace

// Walks both shapes from the innermost dimension: the view's dimensions fall into runs that
// are contiguous among themselves (stride[d - 1] == stride[d] * shape[d]); each run must be
// covered exactly by consecutive target dimensions, which then take strides inside the run.
std::optional<StridedView> reshapeView(const StridedView& v, const Shape& to) {
    if (v.shape.empty() || elementsOf(v.shape) != elementsOf(to) || elementsOf(to) == 0) return std::nullopt;
    StridedView r{v.offset, to, std::vector<int64_t>(to.size(), 0)};
    int64_t t = static_cast<int64_t>(to.size()) - 1;
    int64_t runElements = 1, runBase = v.stride.back();
    for (int64_t d = static_cast<int64_t>(v.shape.size()) - 1; d >= 0; --d) {
        runElements *= v.shape[d];
        const bool runEnds = d == 0 || (v.shape[d - 1] != 1 && v.stride[d - 1] != runElements * runBase);
        if (!runEnds) continue;
        int64_t covered = 1;
        while (t >= 0 && (covered < runElements || to[t] == 1)) {
            r.stride[t] = covered * runBase;
            covered *= to[t];
            --t;
        }
        if (covered != runElements) return std::nullopt;
        if (d > 0) {
            runBase = v.stride[d - 1];
            runElements = 1;
        }
    }
    if (t >= 0) return std::nullopt;
    return r;
}

std::optional<StridedView> viewThrough(const graph::Graph& g, const graph::Node& n, const StridedView& in) {
    if (n.inputs.empty() || n.inputs[0] < 0 || n.outputs.empty() || n.outputs[0] < 0) return std::nullopt;
    if (g.values[n.inputs[0]].shape != in.shape) return std::nullopt;
    try {
        if (n.opType == "Slice") return sliceView(g, n, in);
        if (n.opType == "Gather") return gatherView(g, n, in);
        if (n.opType == "Transpose") {
            const auto perm = transposePermutation(n, in.shape);
            StridedView r{in.offset, {}, {}};
            for (int64_t a : perm) {
                r.shape.push_back(in.shape[a]);
                r.stride.push_back(in.stride[a]);
            }
            return r;
        }
        if (keepsElementOrder(g, n)) return reshapeView(in, g.values[n.outputs[0]].shape);
    } catch (const Error&) {
        // (a node the shape inference would refuse: no view)
    }
    return std::nullopt;
}

bool viewFits(const StridedView& v, int64_t elements) {
    if (v.shape.size() != v.stride.size() || v.offset < 0) return false;
    int64_t last = v.offset;
    for (size_t d = 0; d < v.shape.size(); ++d) {
        if (v.shape[d] <= 0 || v.stride[d] < 0) return false;
        last += (v.shape[d] - 1) * v.stride[d];
    }
    return last < elements;
}

}  // namespace vkinfer::ops
