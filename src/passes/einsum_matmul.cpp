#include "passes/einsum_matmul.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ops/einsum_equation.h"
#include "passes/graph_edit.h"
#include "passes/specialize.h"

namespace vkinfer::passes {

using graph::Graph;
using graph::Node;

namespace {

// The product's labels: batch ones in the output's order, then the row, summed and column one.
struct MatMulForm {
    bool swapped = false;  // the second operand is the MatMul's A
    std::vector<int> batch;
    int row = -1, sum = -1, col = -1;
};

std::optional<MatMulForm> matMulForm(const ops::EinsumSpec& s) {
    if (s.operands.size() != 2 || s.output.empty()) return std::nullopt;
    for (const auto& axes : s.operands)
        for (size_t i = 0; i < axes.size(); ++i)
            if (std::count(axes.begin(), axes.end(), axes[i]) != 1) return std::nullopt;  // a diagonal
    for (bool swapped : {false, true}) {
        const std::vector<int>& a = s.operands[swapped ? 1 : 0];
        const std::vector<int>& b = s.operands[swapped ? 0 : 1];
        const ops::EinsumGroups g = ops::einsumGroups(a, b, s.output);
        if (!g.onlyA.empty() || !g.onlyB.empty() || g.rows.size() != 1 || g.cols.size() != 1 || g.sum.size() != 1 ||
            s.output.back() != g.cols[0])
            continue;
        MatMulForm f;
        f.swapped = swapped;
        f.batch = g.batch;
        f.row = g.rows[0], f.sum = g.sum[0], f.col = g.cols[0];
        return f;
    }
    return std::nullopt;
}

// The permutation taking `from` (labels per axis) to `to`; empty when it is the identity.
std::vector<int64_t> permutation(const std::vector<int>& from, const std::vector<int>& to) {
    std::vector<int64_t> perm;
    bool identity = true;
    for (size_t i = 0; i < to.size(); ++i) {
        const auto at = static_cast<int64_t>(std::find(from.begin(), from.end(), to[i]) - from.begin());
        identity = identity && at == static_cast<int64_t>(i);
        perm.push_back(at);
    }
    return identity ? std::vector<int64_t>{} : perm;
}

}  // namespace

void rewriteEinsumAsMatMul(Graph& g) {
    const size_t count = g.nodes.size();  // nodes appended below are not revisited
    bool changed = false;
    for (size_t i = 0; i < count; ++i) {
        if (g.nodes[i].removed || g.nodes[i].opType != "Einsum" || g.nodes[i].inputs.size() != 2) continue;
        const Node n = g.nodes[i];  // a copy: nodes are appended below
        const DataType type = g.values[n.outputs[0]].dtype;
        if (type != DataType::Float32 || g.values[n.inputs[0]].dtype != type || g.values[n.inputs[1]].dtype != type)
            continue;
        const std::vector<graph::Shape> shapes{g.values[n.inputs[0]].shape, g.values[n.inputs[1]].shape};
        const ops::EinsumSpec s = ops::resolveEinsum(n, n.attrString("equation", ""), shapes);
        const std::optional<MatMulForm> f = matMulForm(s);
        if (!f) continue;
        const int a = n.inputs[f->swapped ? 1 : 0], b = n.inputs[f->swapped ? 0 : 1];
        const std::vector<int>& aLabels = s.operands[f->swapped ? 1 : 0];
        const std::vector<int>& bLabels = s.operands[f->swapped ? 0 : 1];
        std::vector<int> aOrder = f->batch, bOrder = f->batch, yOrder = f->batch;
        aOrder.insert(aOrder.end(), {f->row, f->sum});
        bOrder.insert(bOrder.end(), {f->sum, f->col});
        yOrder.insert(yOrder.end(), {f->row, f->col});
        // A Transpose of `value` (labels `from`) into `to`, or the value itself.
        auto arranged = [&](int value, const std::vector<int>& from, const graph::Shape& shape, const std::vector<int>& to,
                            const char* what) {
            const std::vector<int64_t> perm = permutation(from, to);
            if (perm.empty()) return value;
            graph::Shape dims;
            for (int64_t p : perm) dims.push_back(shape[static_cast<size_t>(p)]);
            Node t;
            t.name = g.uniqueName(n.name + "_" + what);
            t.opType = "Transpose";
            t.inputs = {value};
            t.outputs = {g.addIntermediate(n.name + "_" + what, type, dims)};
            t.attrs["perm"] = perm;
            g.nodes.push_back(std::move(t));
            return g.nodes.back().outputs[0];
        };
        Node mm;
        mm.name = n.name;  // messages and profiles keep naming the model's node
        mm.opType = "MatMul";
        mm.inputs = {arranged(a, aLabels, shapes[f->swapped ? 1 : 0], aOrder, "a"),
                     arranged(b, bLabels, shapes[f->swapped ? 0 : 1], bOrder, "b")};
        const std::vector<int64_t> outPerm = permutation(yOrder, s.output);
        if (outPerm.empty()) {
            mm.outputs = {n.outputs[0]};
        } else {
            graph::Shape dims;
            for (int l : yOrder) dims.push_back(s.sizes[static_cast<size_t>(l)]);
            mm.outputs = {g.addIntermediate(n.name + "_product", type, dims)};
            Node t;
            t.name = g.uniqueName(n.name + "_y");
            t.opType = "Transpose";
            t.inputs = {mm.outputs[0]};
            t.outputs = {n.outputs[0]};
            t.attrs["perm"] = outPerm;
            g.nodes.push_back(std::move(t));
        }
        g.nodes[i] = std::move(mm);
        changed = true;
    }
    if (changed) {
        g.relinkProducers();
        sortTopologically(g);
    }
}

}  // namespace vkinfer::passes
