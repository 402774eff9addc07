#include "passes/precision.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "core/error.h"
#include "ops/cpu_copy.h"
#include "ops/registry.h"
#include "passes/specialize.h"

namespace vkinfer::passes {

using graph::Graph;
using graph::Node;
using graph::Value;

namespace {

bool foldsBatchNorm(const Graph& g, const Node& n) {
    if (n.attrInt("training_mode", 0) != 0) return false;
    for (size_t i = 1; i < 5; ++i)
        if (n.input(i) < 0 || !g.values[n.inputs[i]].constant) return false;
    return true;
}

// Constant float operands the lowering reads on the CPU as parameters (a subset of the
// "value slots" of specialize.cpp, plus folded BatchNormalization statistics): converting
// them would only lose precision, the kernels never read them.
bool keepsFloat32Constant(const Graph& g, const Node& n, size_t slot) {
    static const std::vector<std::pair<std::string_view, std::vector<size_t>>> slots = {
        {"Resize", {1, 2, 3}}, {"Upsample", {1}}, {"Clip", {1, 2}}, {"Pad", {2}}, {"Dropout", {1, 2}},
    };
    if (n.opType == "BatchNormalization") return slot >= 1 && slot <= 4 && foldsBatchNorm(g, n);
    if (n.opType == "Clip") {  // an activation only when every bound is constant; else Max/Min dispatches
        for (size_t i = 1; i < n.inputs.size(); ++i)
            if (n.inputs[i] >= 0 && !g.values[n.inputs[i]].constant) return false;
    }
    for (const auto& [op, list] : slots)
        if (op == n.opType) return std::find(list.begin(), list.end(), slot) != list.end();
    return false;
}

class Converter {
public:
    explicit Converter(Graph& g) : g_(g) {
        for (const auto& n : g.nodes) nodeNames_.insert(n.name);
    }

    PrecisionStats run() {
        const size_t nodeCount = g_.nodes.size();
        std::vector<char> capable(nodeCount, 0);
        for (size_t i = 0; i < nodeCount; ++i) {
            const ops::OpDef* def = ops::findOp(g_.nodes[i].opType, g_.opset);
            capable[i] = def && def->fp16;
        }
        half_.assign(g_.values.size(), 0);

        // 1. What fp16 nodes produce becomes float16; a graph output keeps its value (name,
        //    float32 type) and gets it from a Cast of a new float16 value.
        std::vector<std::pair<int, int>> outputCasts;  // (float16 value, graph output)
        for (size_t i = 0; i < nodeCount; ++i) {
            if (!capable[i]) continue;
            for (size_t k = 0; k < g_.nodes[i].outputs.size(); ++k) {
                int o = g_.nodes[i].outputs[k];
                if (o < 0 || g_.values[o].dtype != DataType::Float32 || g_.values[o].constant) continue;
                if (!g_.isGraphOutput(o)) {
                    g_.values[o].dtype = DataType::Float16;
                    markHalf(o);
                    continue;
                }
                Value h = g_.values[o];
                h.name = g_.uniqueName(h.name + "_float16");
                h.dtype = DataType::Float16;
                int hv = g_.addValue(std::move(h));
                markHalf(hv);
                g_.nodes[i].outputs[k] = hv;
                for (auto& n : g_.nodes)
                    for (int& in : n.inputs)
                        if (in == o) in = hv;
                outputCasts.emplace_back(hv, o);
                casts_[{hv, DataType::Float32}] = o;  // float32 readers read the output itself
            }
        }

        // 2. Operands: float16 for fp16 nodes, float32 again for the others.
        for (size_t i = 0; i < nodeCount; ++i) {
            for (size_t k = 0; k < g_.nodes[i].inputs.size(); ++k) {
                int v = g_.nodes[i].inputs[k];
                if (v < 0) continue;
                int replacement = v;
                if (capable[i]) {
                    const Value& val = g_.values[v];
                    if (val.dtype != DataType::Float32) continue;
                    if (val.constant) {
                        if (keepsFloat32Constant(g_, g_.nodes[i], k)) continue;
                        replacement = halfConstant(v);
                    } else {
                        replacement = castOf(v, DataType::Float16);
                    }
                } else if (isHalf(v)) {
                    replacement = castOf(v, DataType::Float32);
                }
                g_.nodes[i].inputs[k] = replacement;  // (castOf may have grown g_.nodes)
            }
        }

        // 3. Graph outputs computed in float16.
        for (auto [hv, o] : outputCasts) addCast(hv, o, DataType::Float32);

        sortTopologically(g_);
        return stats_;
    }

private:
    void markHalf(int v) {
        if (static_cast<size_t>(v) >= half_.size()) half_.resize(static_cast<size_t>(v) + 1, 0);
        half_[v] = 1;
        ++stats_.float16Values;
    }
    bool isHalf(int v) const { return static_cast<size_t>(v) < half_.size() && half_[v]; }

    std::string nodeName(const std::string& hint) {
        std::string name = hint;
        for (int k = 1; nodeNames_.count(name); ++k) name = hint + "_" + std::to_string(k);
        nodeNames_.insert(name);
        return name;
    }

    void addCast(int src, int dst, DataType to) {
        Node cast;
        cast.name = nodeName(g_.values[src].name + (to == DataType::Float16 ? "/to_float16" : "/to_float32"));
        cast.opType = "Cast";
        cast.inputs = {src};
        cast.outputs = {dst};
        cast.attrs["to"] = static_cast<int64_t>(to);
        g_.nodes.push_back(std::move(cast));
        g_.values[dst].producer = static_cast<int>(g_.nodes.size() - 1);
        ++stats_.casts;
    }

    // `v` as `to` through a Cast node, one per (value, type).
    int castOf(int v, DataType to) {
        auto key = std::make_pair(v, to);
        if (auto it = casts_.find(key); it != casts_.end()) return it->second;
        Value c = g_.values[v];
        c.name = g_.uniqueName(c.name + (to == DataType::Float16 ? "_float16" : "_float32"));
        c.dtype = to;
        c.constant.reset();
        c.producer = -1;
        int cv = g_.addValue(std::move(c));
        if (to == DataType::Float16) markHalf(cv);
        addCast(v, cv, to);
        casts_[key] = cv;
        return cv;
    }

    // A float16 copy of the float32 constant `v` (one per constant).
    int halfConstant(int v) {
        if (auto it = constants_.find(v); it != constants_.end()) return it->second;
        Tensor t = ops::narrowFromFloat32(*g_.values[v].constant, DataType::Float16);
        int h = g_.addConstant(g_.values[v].name + "_float16", std::move(t));
        constants_[v] = h;
        ++stats_.convertedConstants;
        return h;
    }

    Graph& g_;
    std::vector<char> half_;  // made float16 by this pass (not float16 in the model)
    std::map<std::pair<int, DataType>, int> casts_;
    std::map<int, int> constants_;
    std::set<std::string> nodeNames_;
    PrecisionStats stats_;
};

}  // namespace

PrecisionStats convertToFloat16(Graph& g) { return Converter(g).run(); }

}  // namespace vkinfer::passes
