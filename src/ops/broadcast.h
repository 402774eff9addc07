// NumPy-style broadcasting: shapes, strides, the dims merged for the kernels' six, a walk over
// the elements for the CPU references, and the push constants of the broadcasting kernels.
#pragma once

#include <array>
#include <type_traits>
#include <vector>

#include "ops/node_checks.h"

namespace vkinfer::ops {

// NumPy-style broadcast of two shapes; throws ShapeError naming the node.
Shape broadcastShapes(const Node& n, const Shape& a, const Shape& b);
// Row-major strides (in elements) of `s`.
std::vector<int64_t> contiguousStrides(const Shape& s);
// Strides of an operand of shape `in` read at every index of `out` (0 on broadcast dims),
// right-aligned to out's rank.
std::vector<int64_t> broadcastStrides(const Shape& in, const Shape& out);

// Drops unit dimensions and merges adjacent ones that are contiguous in every stride set,
// so that an index walk of any rank fits the kernels' 6 dimensions where possible.
// Returns false if more than 6 remain.
bool collapseDims(Shape& dims, std::vector<std::vector<int64_t>*> strides);

// Visits every element of `out` in row-major order: f(outIndex, offsets) where offsets[k]
// is the element offset of operand k (of shape ins[k], broadcast NumPy-style to `out`).
template <size_t N, class F>
void broadcastWalk(const Shape& out, const std::array<Shape, N>& ins, F&& f) {
    const int64_t count = elementCount(out);
    if (count == 0) return;
    // Merged dims and the innermost one as a run without the carry: constant folding walks
    // up to tens of millions of elements, and in the sanitized fuzzer (-O0) the carry per
    // element made an Add of 8M floats take 30 s.
    Shape dims = out;
    std::array<std::vector<int64_t>, N> st;
    std::vector<std::vector<int64_t>*> ptrs;
    for (size_t k = 0; k < N; ++k) {
        st[k] = broadcastStrides(ins[k], out);
        ptrs.push_back(&st[k]);
    }
    collapseDims(dims, ptrs);  // (its limit of 6 dims is the kernels'; this walk has none)
    const size_t rank = dims.size();
    const int64_t inner = dims[rank - 1];
    std::array<int64_t, N> innerStride{};
    for (size_t k = 0; k < N; ++k) innerStride[k] = st[k][rank - 1];
    std::vector<int64_t> idx(rank, 0);
    std::array<int64_t, N> off{};
    for (int64_t i = 0; i < count; i += inner) {
        std::array<int64_t, N> o = off;
        for (int64_t j = 0; j < inner; ++j) {
            f(i + j, o);
            for (size_t k = 0; k < N; ++k) o[k] += innerStride[k];
        }
        for (size_t d = rank - 1; d-- > 0;) {
            for (size_t k = 0; k < N; ++k) off[k] += st[k][d];
            if (++idx[d] < dims[d]) break;
            for (size_t k = 0; k < N; ++k) off[k] -= st[k][d] * dims[d];
            idx[d] = 0;
        }
    }
}

// Push constants of the broadcasting kernels, their generated blocks (binary.comp's, which
// eltwise.comp, compare.comp and minmax_f64.comp share: N = 2; where.comp's: N = 3; see
// shaders/kernels/binary.toml and where.toml): the output index space collapsed to at most 6
// dims, and each operand's stride per dim (0 where it broadcasts). Fills `Push` (a block with
// count, rank, dims[6] and stride[N][6]) for operands of shapes `ins` read at every index of
// `out`; throws Unsupported naming the node beyond 6 non-mergeable dims or 32-bit indexing.
template <class Push, size_t N = std::extent_v<decltype(Push::stride), 0>>  // N: one stride row per operand
Push broadcastPush(const Node& n, Shape out, const std::type_identity_t<std::array<Shape, N>>& ins) {
    static_assert(std::extent_v<decltype(Push::dims)> == 6 && std::extent_v<decltype(Push::stride), 1> == 6,
                  "the kernels walk up to 6 dimensions");
    int64_t count = elementCount(out);
    requireIndexable(n, count);
    std::array<std::vector<int64_t>, N + 1> st;
    st[0] = contiguousStrides(out);
    for (size_t k = 0; k < N; ++k) st[k + 1] = broadcastStrides(ins[k], out);
    std::vector<std::vector<int64_t>*> ptrs;
    for (auto& s : st) ptrs.push_back(&s);
    if (!collapseDims(out, ptrs)) unsupported(n, "broadcast over more than 6 non-mergeable dimensions");
    Push p{};
    p.count = u32(count);
    p.rank = u32(static_cast<int64_t>(out.size()));
    for (size_t i = 0; i < out.size(); ++i) {
        p.dims[i] = u32(out[i]);
        for (size_t k = 0; k < N; ++k) p.stride[k][i] = u32(st[k + 1][i]);
    }
    return p;
}

}  // namespace vkinfer::ops
