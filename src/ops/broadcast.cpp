#include "ops/broadcast.h"

#include <algorithm>

namespace vkinfer::ops {

Shape broadcastShapes(const Node& n, const Shape& a, const Shape& b) {
    size_t rank = std::max(a.size(), b.size());
    Shape out(rank);
    for (size_t i = 0; i < rank; ++i) {
        int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da != db && da != 1 && db != 1)
            shapeError(n, "shapes {} and {} do not broadcast", shapeToString(a), shapeToString(b));
        out[i] = da == 1 ? db : da;
    }
    return out;
}

std::vector<int64_t> contiguousStrides(const Shape& s) {
    std::vector<int64_t> st(s.size(), 1);
    for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
    return st;
}

std::vector<int64_t> broadcastStrides(const Shape& in, const Shape& out) {
    std::vector<int64_t> st(out.size(), 0);
    auto cs = contiguousStrides(in);
    size_t off = out.size() - in.size();
    for (size_t i = 0; i < in.size(); ++i) st[off + i] = in[i] == 1 ? 0 : cs[i];
    return st;
}

bool collapseDims(Shape& dims, std::vector<std::vector<int64_t>*> strides) {
    Shape d;
    std::vector<std::vector<int64_t>> st(strides.size());
    for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == 1) continue;
        bool merge = !d.empty();
        for (size_t k = 0; k < strides.size() && merge; ++k) merge = st[k].back() == (*strides[k])[i] * dims[i];
        if (merge) {
            d.back() *= dims[i];
            for (size_t k = 0; k < strides.size(); ++k) st[k].back() = (*strides[k])[i];
            continue;
        }
        d.push_back(dims[i]);
        for (size_t k = 0; k < strides.size(); ++k) st[k].push_back((*strides[k])[i]);
    }
    if (d.empty()) {
        d = {1};
        for (auto& v : st) v = {0};
    }
    dims = d;
    for (size_t k = 0; k < strides.size(); ++k) *strides[k] = st[k];
    return dims.size() <= 6;
}

}  // namespace vkinfer::ops
