#include "passes/gemm_weights.h"

#include <cstring>
#include <vector>

namespace vkinfer::passes {

using graph::Graph;
using graph::Node;

namespace {

bool readsAsTransposedB(const Node& n, int value) {
    if (n.opType != "Gemm" || n.attrInt("transB", 0) == 0) return false;
    for (size_t i = 0; i < n.inputs.size(); ++i)
        if (n.inputs[i] == value && i != 1) return false;  // also read as A or C
    return n.input(1) == value;
}

// [rows, cols] -> [cols, rows], any element size.
Tensor transposed2d(const Tensor& t) {
    const int64_t rows = t.shape()[0], cols = t.shape()[1];
    const size_t size = dataTypeSize(t.dtype());
    Tensor out(t.dtype(), {cols, rows});
    const std::byte* src = t.data();
    std::byte* dst = out.data();
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) std::memcpy(dst + (c * rows + r) * size, src + (r * cols + c) * size, size);
    return out;
}

}  // namespace

void transposeConstantGemmWeights(Graph& g) {
    const graph::Readers readers(g);
    const size_t values = g.values.size();  // constants added below are not revisited
    for (size_t v = 0; v < values; ++v) {
        const auto& c = g.values[v].constant;
        if (!c || c->shape().size() != 2 || dataTypeSize(c->dtype()) == 0 || g.isGraphOutput(static_cast<int>(v))) continue;
        const std::vector<int> rs = readers.of(static_cast<int>(v));
        if (rs.empty()) continue;
        bool all = true;
        for (int r : rs) all = all && readsAsTransposedB(g.nodes[static_cast<size_t>(r)], static_cast<int>(v));
        if (!all) continue;
        const int t = g.addConstant(g.values[v].name + "_kn", transposed2d(*g.values[v].constant));
        for (int r : rs) {
            Node& n = g.nodes[static_cast<size_t>(r)];
            n.inputs[1] = t;
            n.attrs["transB"] = int64_t{0};
        }
    }
}

}  // namespace vkinfer::passes
