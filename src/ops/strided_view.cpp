#include "ops/strided_view.h"

#include <algorithm>

#include "ops/broadcast.h"
#include "ops/element_order.h"
#include "core/error.h"
#include "vkinfer/tensor.h"

namespace vkinfer::ops {

using graph::Shape;
using graph::StridedView;

StridedView contiguousView(const Shape& shape) { return {0, shape, contiguousStrides(shape)}; }

StridedView permutedView(const StridedView& v, const std::vector<int64_t>& perm) {
    StridedView r{v.offset, {}, {}};
    for (int64_t a : perm) {
        r.shape.push_back(v.shape[static_cast<size_t>(a)]);
        r.stride.push_back(v.stride[static_cast<size_t>(a)]);
    }
    return r;
}

namespace {

// Parts are dealt by dividing extents: an empty tensor (an extent 0) has no parts to deal.
bool allExtentsPositive(const Shape& s) {
    return std::all_of(s.begin(), s.end(), [](int64_t d) { return d > 0; });
}

}  // namespace

// Walks both shapes from the innermost dimension: the view's dimensions fall into runs that
// are contiguous among themselves (stride[d - 1] == stride[d] * shape[d]); each run must be
// covered exactly by consecutive target dimensions, which then take strides inside the run.
std::optional<StridedView> reshapeView(const StridedView& v, const Shape& to) {
    if (v.shape.empty() || elementCount(v.shape) != elementCount(to) || elementCount(to) == 0) return std::nullopt;
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
            return permutedView(in, transposePermutation(n, in.shape));
        }
        if (keepsElementOrder(g, n)) return reshapeView(in, g.values[n.outputs[0]].shape);
    } catch (const Error&) {
        // (a node the shape inference would refuse: no view)
    }
    return std::nullopt;
}

namespace {

// A view whose dimensions may each be several strided parts, outermost first: the dimension's
// index i walks them as the digits of i in the parts' extents. An extent-1 dimension has none.
struct Part {
    int64_t extent, stride;
};
struct PartedView {
    int64_t offset = 0;
    Shape shape;
    std::vector<std::vector<Part>> parts;
};

PartedView parted(const StridedView& v) {
    PartedView r{v.offset, v.shape, {}};
    for (size_t d = 0; d < v.shape.size(); ++d)
        r.parts.push_back(v.shape[d] == 1 ? std::vector<Part>{} : std::vector<Part>{{v.shape[d], v.stride[d]}});
    return r;
}

// The plain window, where no dimension has more than one part (an extent-1 dimension takes the
// stride a contiguous tensor would give it).
std::optional<StridedView> plain(const PartedView& v) {
    StridedView r{v.offset, v.shape, std::vector<int64_t>(v.shape.size(), 1)};
    for (size_t d = v.shape.size(); d-- > 0;) {
        if (v.parts[d].size() > 1) return std::nullopt;
        if (v.parts[d].size() == 1) r.stride[d] = v.parts[d][0].stride;
        else if (d + 1 < v.shape.size()) r.stride[d] = r.stride[d + 1] * v.shape[d + 1];
    }
    return r;
}

// A Reshape: the parts in order (neighbours that are contiguous joined), dealt to the new
// dimensions from the innermost; a part is split where a dimension ends inside it, and the
// deal fails where an extent does not divide.
std::optional<PartedView> reshapeParted(const PartedView& v, const Shape& to) {
    if (!allExtentsPositive(v.shape) || !allExtentsPositive(to) || elementCount(v.shape) != elementCount(to))
        return std::nullopt;
    std::vector<Part> all;
    for (const auto& dim : v.parts)
        for (const Part& p : dim) {
            if (!all.empty() && all.back().stride == p.extent * p.stride) all.back() = {all.back().extent * p.extent, p.stride};
            else all.push_back(p);
        }
    PartedView r{v.offset, to, std::vector<std::vector<Part>>(to.size())};
    for (size_t t = to.size(); t-- > 0;) {
        int64_t need = to[t];
        if (need <= 0) return std::nullopt;
        std::vector<Part> mine;  // innermost first
        while (need > 1) {
            if (all.empty()) return std::nullopt;
            Part& p = all.back();
            if (p.extent <= need) {
                if (need % p.extent != 0) return std::nullopt;
                mine.push_back(p);
                need /= p.extent;
                all.pop_back();
            } else {
                if (p.extent % need != 0) return std::nullopt;
                mine.push_back({need, p.stride});
                p = {p.extent / need, p.stride * need};
                need = 1;
            }
        }
        r.parts[t].assign(mine.rbegin(), mine.rend());
    }
    if (!all.empty()) return std::nullopt;
    return r;
}

}  // namespace

std::optional<StridedView> viewThroughChain(const graph::Graph& g, const std::vector<const graph::Node*>& nodes,
                                            const StridedView& source) {
    StridedView view = source;
    std::optional<PartedView> merged;  // set while some dimension has several parts
    for (const graph::Node* n : nodes) {
        if (!merged) {
            if (std::optional<StridedView> next = viewThrough(g, *n, view)) {
                view = *next;
                continue;
            }
            merged = parted(view);
        }
        if (n->inputs.empty() || n->inputs[0] < 0 || n->outputs.empty() || n->outputs[0] < 0 ||
            g.values[n->inputs[0]].shape != merged->shape)
            return std::nullopt;
        if (n->opType == "Transpose") {
            std::vector<int64_t> perm;
            try {
                perm = transposePermutation(*n, merged->shape);
            } catch (const Error&) {
                return std::nullopt;
            }
            PartedView moved{merged->offset, {}, {}};
            for (int64_t a : perm) {
                moved.shape.push_back(merged->shape[a]);
                moved.parts.push_back(merged->parts[a]);
            }
            merged = std::move(moved);
        } else if (keepsElementOrder(g, *n)) {
            merged = reshapeParted(*merged, g.values[n->outputs[0]].shape);
            if (!merged) return std::nullopt;
        } else {
            return std::nullopt;  // a Slice or Gather of merged dimensions: not followed
        }
        if (std::optional<StridedView> p = plain(*merged)) {
            view = *p;
            merged.reset();
        }
    }
    if (merged) return std::nullopt;
    return view;
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
