#include "passes/pointwise_fusion.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>

#include "core/error.h"
#include "ops/activation.h"
#include "ops/normalization.h"
#include "ops/pointwise.h"
#include "ops/registry.h"
#include "passes/graph_edit.h"
#include "passes/specialize.h"

namespace vkinfer::passes {

using graph::ActKind;
using graph::Graph;
using graph::Node;
using graph::Shape;
using ops::PointwiseOp;

namespace {

// ---------------------------------------------------------------------------------------
// Translation of one node into steps of a pointwise program.

// An operand of a step: a tensor of the graph, a float immediate, or the result of an earlier
// step of the same node.
struct Operand {
    enum Kind { Value, Immediate, Local } kind = Local;
    int value = -1;
    float immediate = 0;
    int local = 0;
};
struct AbstractStep {
    PointwiseOp op;
    Operand a, b, c;
};
using Steps = std::vector<AbstractStep>;

Operand local(int k) { return {Operand::Local, -1, 0, k}; }
Operand immediate(float f) { return {Operand::Immediate, -1, f, 0}; }

// A one-element float32 constant becomes an immediate, any other float32 tensor an input.
std::optional<Operand> operandOf(const Graph& g, int v) {
    if (v < 0 || g.values[v].dtype != DataType::Float32 || !g.values[v].hasShape) return std::nullopt;
    const auto& t = g.values[v].constant;
    if (t && t->elementCount() == 1) return immediate(static_cast<float>(t->getDouble(0)));
    return Operand{Operand::Value, v, 0, 0};
}

// The steps that apply `act` to the result of local step `x`; false for a kind the kernel
// does not run (PRelu's per-channel slopes).
bool appendActivation(const graph::Activation& act, Steps& steps) {
    const Operand x = local(static_cast<int>(steps.size()) - 1);
    switch (act.kind) {
        case ActKind::None: return true;
        case ActKind::Relu: steps.push_back({PointwiseOp::Relu, x, x, x}); return true;
        case ActKind::Clip: steps.push_back({PointwiseOp::Clip, x, immediate(act.alpha), immediate(act.beta)}); return true;
        case ActKind::Sigmoid: steps.push_back({PointwiseOp::Sigmoid, x, x, x}); return true;
        case ActKind::Tanh: steps.push_back({PointwiseOp::Tanh, x, x, x}); return true;
        case ActKind::LeakyRelu: steps.push_back({PointwiseOp::LeakyRelu, x, immediate(act.alpha), x}); return true;
        case ActKind::Silu: steps.push_back({PointwiseOp::Silu, x, x, x}); return true;
        case ActKind::Gelu: steps.push_back({PointwiseOp::Gelu, x, x, x}); return true;
        case ActKind::GeluTanh: steps.push_back({PointwiseOp::GeluTanh, x, x, x}); return true;
        case ActKind::HardSigmoid:
            steps.push_back({PointwiseOp::HardSigmoid, x, immediate(act.alpha), immediate(act.beta)});
            return true;
        case ActKind::HardSwish: steps.push_back({PointwiseOp::HardSwish, x, x, x}); return true;
        case ActKind::PRelu: return false;
    }
    return false;
}

std::optional<PointwiseOp> binaryOp(const std::string& t, size_t inputs) {
    if (t == "Add") return PointwiseOp::Add;
    if (t == "Sub") return PointwiseOp::Sub;
    if (t == "Mul") return PointwiseOp::Mul;
    if (t == "Div") return PointwiseOp::Div;
    if (t == "Pow") return PointwiseOp::Pow;
    if (t == "Max" && inputs == 2) return PointwiseOp::Max;
    if (t == "Min" && inputs == 2) return PointwiseOp::Min;
    return std::nullopt;
}

std::optional<PointwiseOp> unaryOp(const std::string& t) {
    if (t == "Neg") return PointwiseOp::Neg;
    if (t == "Abs") return PointwiseOp::Abs;
    if (t == "Sqrt") return PointwiseOp::Sqrt;
    if (t == "Exp") return PointwiseOp::Exp;
    if (t == "Log") return PointwiseOp::Log;
    if (t == "Erf") return PointwiseOp::Erf;
    if (t == "Reciprocal") return PointwiseOp::Reciprocal;
    if (t == "Floor") return PointwiseOp::Floor;
    if (t == "Ceil") return PointwiseOp::Ceil;
    return std::nullopt;
}

// Clip's bounds where they are known (attributes before opset 11, one-element constants after).
bool clipBounds(const Graph& g, const Node& n, float* lo, float* hi) {
    *lo = -FLT_MAX;
    *hi = FLT_MAX;
    if (g.opset < 11) {
        *lo = n.attrFloat("min", -FLT_MAX);
        *hi = n.attrFloat("max", FLT_MAX);
        return true;
    }
    for (size_t i = 1; i < n.inputs.size() && i < 3; ++i) {
        const int v = n.inputs[i];
        if (v < 0) continue;
        const auto& t = g.values[v].constant;
        if (!t || t->elementCount() != 1 || t->dtype() != DataType::Float32) return false;
        (i == 1 ? *lo : *hi) = static_cast<float>(t->getDouble(0));
    }
    return true;
}

// The node as steps (the last one's result is its output), or none where it is not an
// element-wise float32 op the kernel runs, or its output is not the broadcast of its tensor
// operands (a one-element constant made an immediate must not have widened it).
std::optional<Steps> translate(const Graph& g, const Node& n) {
    if (n.removed || !n.domain.empty() || n.outputs.size() != 1 || n.outputs[0] < 0) return std::nullopt;
    const auto& out = g.values[n.outputs[0]];
    if (out.dtype != DataType::Float32 || !out.hasShape || out.constant || out.elementCount() == 0) return std::nullopt;
    Steps steps;
    std::vector<Operand> operands;
    auto operand = [&](size_t i) -> bool {
        auto o = i < n.inputs.size() ? operandOf(g, n.inputs[i]) : std::nullopt;
        if (o) operands.push_back(*o);
        return o.has_value();
    };
    graph::Activation act;
    if (auto op = binaryOp(n.opType, n.inputs.size())) {
        if (n.inputs.size() != 2 || !operand(0) || !operand(1)) return std::nullopt;
        steps.push_back({*op, operands[0], operands[1], operands[0]});
    } else if (auto u = unaryOp(n.opType)) {
        if (n.inputs.size() != 1 || !operand(0)) return std::nullopt;
        steps.push_back({*u, operands[0], operands[0], operands[0]});
    } else if (n.opType == "Clip") {
        float lo, hi;
        if (!operand(0) || !clipBounds(g, n, &lo, &hi)) return std::nullopt;
        steps.push_back({PointwiseOp::Clip, operands[0], immediate(lo), immediate(hi)});
    } else {
        try {
            if (!ops::attributeActivation(n, &act) || n.inputs.size() != 1 || !operand(0)) return std::nullopt;
        } catch (const Error&) {
            return std::nullopt;
        }
        // The activation's steps as appendActivation writes them after a stand-in for x,
        // reading x itself.
        Steps applied{{PointwiseOp::Add, operands[0], operands[0], operands[0]}};
        if (!appendActivation(act, applied)) return std::nullopt;
        AbstractStep s = applied.back();
        for (Operand* o : {&s.a, &s.b, &s.c})
            if (o->kind == Operand::Local) *o = operands[0];
        steps.push_back(s);
    }
    if (!appendActivation(n.activation, steps)) return std::nullopt;
    // The output's shape must be what the tensor operands broadcast to.
    Shape shape;
    bool any = false;
    for (const auto& o : operands) {
        if (o.kind != Operand::Value) continue;
        const Shape& s = g.values[o.value].shape;
        if (!any) {
            shape = s;
            any = true;
            continue;
        }
        Shape r(std::max(shape.size(), s.size()), 1);
        for (size_t k = 0; k < r.size(); ++k) {
            const int64_t a = k + shape.size() >= r.size() ? shape[k + shape.size() - r.size()] : 1;
            const int64_t b = k + s.size() >= r.size() ? s[k + s.size() - r.size()] : 1;
            r[k] = a == 1 ? b : a;
        }
        shape = r;
    }
    if (!any || shape != out.shape) return std::nullopt;
    return steps;
}

// ---------------------------------------------------------------------------------------
// Grouping.

// True when `from` broadcasts NumPy-style to `to` (every dim 1 or equal, right-aligned).
bool broadcastsTo(const Shape& from, const Shape& to) {
    if (from.size() > to.size()) return false;
    for (size_t k = 0; k < from.size(); ++k) {
        const int64_t f = from[from.size() - 1 - k], t = to[to.size() - 1 - k];
        if (f != 1 && f != t) return false;
    }
    return true;
}

uint32_t bitsOf(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

struct Group {
    int firstPos = 0;
    Shape shape;
    std::vector<int> nodes;       // in topological order
    std::vector<int> inputs;      // tensor operands from outside the group
    std::vector<uint32_t> immediates;
    int steps = 0;
};

// What adding a node's steps to a group costs in inputs, immediates and steps, given which
// values the group produces; none where a limit would be passed or an operand produced
// outside the group may depend on it (its producer is not before the group's first node,
// which keeps the fused graph acyclic: every edge then runs from an earlier first node).
bool fits(const Graph& g, const Group& group, const Steps& steps, const std::vector<int>& groupOf,
          const std::vector<int>& pos, int self, std::vector<int>* newInputs, std::vector<uint32_t>* newImmediates) {
    newInputs->clear();
    newImmediates->clear();
    for (const auto& s : steps)
        for (const Operand* o : {&s.a, &s.b, &s.c}) {
            if (o->kind == Operand::Immediate) {
                const uint32_t bits = bitsOf(o->immediate);
                if (std::find(group.immediates.begin(), group.immediates.end(), bits) == group.immediates.end() &&
                    std::find(newImmediates->begin(), newImmediates->end(), bits) == newImmediates->end())
                    newImmediates->push_back(bits);
            } else if (o->kind == Operand::Value) {
                const int v = o->value;
                const int p = g.values[v].producer;
                if (p >= 0 && groupOf[p] == self) continue;
                if (p >= 0 && !g.values[v].constant && pos[p] >= group.firstPos) return false;
                if (std::find(group.inputs.begin(), group.inputs.end(), v) == group.inputs.end() &&
                    std::find(newInputs->begin(), newInputs->end(), v) == newInputs->end())
                    newInputs->push_back(v);
            }
        }
    return group.inputs.size() + newInputs->size() <= ops::kPointwiseMaxInputs &&
           group.immediates.size() + newImmediates->size() <= ops::kPointwiseMaxImmediates &&
           group.steps + static_cast<int>(steps.size()) <= ops::kPointwiseMaxSteps;
}

// Values the group's nodes produce that must be stored: graph outputs and values read by a
// node outside the group. The last node's output first.
std::vector<int> groupOutputs(const Graph& g, const graph::Readers& readers, const std::vector<int>& nodes) {
    std::set<int> inside(nodes.begin(), nodes.end());
    std::vector<int> outs;
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
        const int v = g.nodes[*it].outputs[0];
        bool escapes = g.isGraphOutput(v);
        for (int r : readers.of(v)) escapes = escapes || !inside.count(r);
        if (escapes) outs.push_back(v);
    }
    return outs;
}

// Replaces the group's nodes by one vkinfer.Pointwise node storing `outputs`.
void rewriteGroup(Graph& g, const std::vector<int>& nodes, const std::vector<Steps>& steps,
                  const std::vector<int>& outputs) {
    std::vector<int> inputs;
    std::vector<float> immediates;
    std::vector<int64_t> codes;
    std::vector<int> valueRegister(g.values.size(), -1);
    auto registerOf = [&](const Operand& o, const std::vector<uint32_t>& locals) -> uint32_t {
        if (o.kind == Operand::Local) return locals[static_cast<size_t>(o.local)];
        if (o.kind == Operand::Immediate) {
            for (size_t j = 0; j < immediates.size(); ++j)
                if (bitsOf(immediates[j]) == bitsOf(o.immediate)) return ops::kPointwiseImmediateRegister + static_cast<uint32_t>(j);
            immediates.push_back(o.immediate);
            return ops::kPointwiseImmediateRegister + static_cast<uint32_t>(immediates.size() - 1);
        }
        if (valueRegister[o.value] < 0) {
            valueRegister[o.value] = static_cast<int>(inputs.size());
            inputs.push_back(o.value);
        }
        return static_cast<uint32_t>(valueRegister[o.value]);
    };
    for (size_t k = 0; k < nodes.size(); ++k) {
        std::vector<uint32_t> locals;
        for (const auto& s : steps[k]) {
            ops::PointwiseStep step{s.op, registerOf(s.a, locals), registerOf(s.b, locals), registerOf(s.c, locals)};
            locals.push_back(ops::kPointwiseStepRegister + static_cast<uint32_t>(codes.size()));
            codes.push_back(ops::encodeStep(step));
        }
        valueRegister[g.nodes[nodes[k]].outputs[0]] = static_cast<int>(locals.back());
    }
    Node fused;
    const Node& last = g.nodes[nodes.back()];
    fused.name = last.name;
    fused.opType = ops::kPointwiseOpType;
    fused.inputs = inputs;
    fused.outputs = outputs;
    fused.attrs["steps"] = codes;
    fused.attrs["immediates"] = immediates;
    std::vector<int64_t> outRegisters;
    for (int v : outputs) outRegisters.push_back(valueRegister[v]);
    fused.attrs["output_registers"] = outRegisters;
    std::string fusedOps;
    for (int i : nodes) fusedOps += (fusedOps.empty() ? "" : "+") + g.nodes[i].opType;
    fused.attrs["fused_ops"] = fusedOps;
    for (int i : nodes) {
        Node& n = g.nodes[i];
        if (i != nodes.back()) fused.fusedNames.push_back(n.name);
        for (const auto& f : n.fusedNames) fused.fusedNames.push_back(f);
        retire(g, n);
    }
    appendFused(g, std::move(fused));
}

// ---------------------------------------------------------------------------------------
// LayerNormalization as older exporters and hand-written modules spell it.

// The only live reader of `v` if it has type `type` and `v` is no graph output, else null.
Node* soleReader(Graph& g, const graph::Readers& readers, int v, const char* type) {
    if (v < 0 || g.isGraphOutput(v)) return nullptr;
    const auto r = readers.of(v);
    if (r.size() != 1 || g.nodes[r[0]].opType != type) return nullptr;
    return &g.nodes[r[0]];
}

std::optional<double> scalarConstant(const Graph& g, int v) {
    if (v < 0 || !g.values[v].constant || g.values[v].constant->elementCount() != 1) return std::nullopt;
    return g.values[v].constant->getDouble(0);
}

// What a ReduceMean with keepdims averages over, for the LayerNorm pattern: the last
// `trailing` axes (a LayerNormalization's), or the channel axis alone of a [N, C, spatial...]
// tensor (NAFNet's LayerNorm2d: a vkinfer.ChannelNorm). Neither: both empty. Axes as the
// attribute before opset 18, as a constant input from 18 on.
struct MeanAxes {
    int64_t trailing = 0;
    bool channel = false;
    bool any() const { return trailing > 0 || channel; }
    bool operator==(const MeanAxes&) const = default;
};

MeanAxes meanAxesOf(const Graph& g, const Node& n) {
    if (n.opType != "ReduceMean" || n.inputs.empty() || n.inputs[0] < 0 || n.attrInt("keepdims", 1) != 1) return {};
    const int64_t rank = static_cast<int64_t>(g.values[n.inputs[0]].shape.size());
    std::vector<int64_t> axes = n.attrInts("axes");
    if (n.input(1) >= 0) {
        const auto& t = g.values[n.inputs[1]].constant;
        if (!t) return {};
        axes.clear();
        // As ReduceMean reads them (getInt: float axes, NaN among them, convert defined).
        for (int64_t k = 0; k < t->elementCount(); ++k) axes.push_back(t->getInt(k));
    }
    if (axes.empty() || rank == 0) return {};
    for (auto& a : axes) {
        if (a < 0) a += rank;
        if (a < 0 || a >= rank) return {};
    }
    std::sort(axes.begin(), axes.end());
    if (rank >= 3 && axes == std::vector<int64_t>{1}) return {0, true};
    for (size_t k = 0; k < axes.size(); ++k)
        if (axes[k] != rank - static_cast<int64_t>(axes.size()) + static_cast<int64_t>(k)) return {};
    return {static_cast<int64_t>(axes.size()), false};
}

// `v` as a float32 constant of exactly shape `normalized` (leading ones dropped), or -1. For
// the channel norm (`channelsOf` > 0: normalized is [C]) a per-channel constant as it
// broadcasts against [N, C, spatial...]: [C, 1, ..., 1] or [1, C, 1, ..., 1], made [C].
int affineParameter(Graph& g, int v, const Shape& normalized, size_t channelsOfRank = 0) {
    if (v < 0 || !g.values[v].constant || g.values[v].constant->dtype() != DataType::Float32) return -1;
    if (channelsOfRank > 0) {
        const Tensor& t = *g.values[v].constant;
        Shape s = t.shape();
        if (s.size() == channelsOfRank && !s.empty() && s.front() == 1) s.erase(s.begin());
        Shape perChannel(channelsOfRank - 1, 1);
        perChannel[0] = normalized[0];
        if (s != perChannel) return -1;
        Tensor r(DataType::Float32, normalized);
        std::memcpy(r.as<float>(), t.as<float>(), static_cast<size_t>(t.elementCount()) * sizeof(float));
        return g.addConstant(g.values[v].name + "_channel_norm", std::move(r));
    }
    const Tensor& t = *g.values[v].constant;
    Shape s = t.shape();
    while (s.size() > normalized.size() && s.front() == 1) s.erase(s.begin());
    if (s != normalized) return -1;
    if (t.shape() == normalized) return v;
    Tensor r(DataType::Float32, normalized);
    std::memcpy(r.as<float>(), t.as<float>(), static_cast<size_t>(t.elementCount()) * sizeof(float));
    return g.addConstant(g.values[v].name + "_layer_norm", std::move(r));
}

// The Mul(., gamma) [-> Add(., beta)] after `value` (shape `xs`), each its sole reader with
// a parameter affineParameter takes: appended to `nodes`, the parameters into `scale` and
// `bias` (-1 where absent).
void matchAffine(Graph& g, const graph::Readers& readers, int value, const Shape& xs, const Shape& normalized,
                 size_t channelsOfRank, std::vector<Node*>& nodes, int* scale, int* bias) {
    *scale = *bias = -1;
    Node* mul = soleReader(g, readers, value, "Mul");
    if (!mul || mul->inputs.size() != 2 || mul->activation.kind != ActKind::None || g.values[mul->outputs[0]].shape != xs)
        return;
    const int other = mul->inputs[0] == value ? mul->inputs[1] : mul->inputs[0];
    if ((*scale = affineParameter(g, other, normalized, channelsOfRank)) < 0) return;
    nodes.push_back(mul);
    Node* add = soleReader(g, readers, mul->outputs[0], "Add");
    if (!add || add->inputs.size() != 2 || add->activation.kind != ActKind::None || g.values[add->outputs[0]].shape != xs)
        return;
    const int b = add->inputs[0] == mul->outputs[0] ? add->inputs[1] : add->inputs[0];
    if ((*bias = affineParameter(g, b, normalized, channelsOfRank)) >= 0) nodes.push_back(add);
}

// `fused` (op type, inputs and attributes set) replaces `nodes`: it takes the last one's name
// and output, the others' names as fusedNames, and they are retired. Appended to g.nodes, so
// pointers into it do not survive the call.
void replaceNodes(Graph& g, const std::vector<Node*>& nodes, Node fused) {
    fused.name = nodes.back()->name;
    fused.outputs = {nodes.back()->outputs[0]};
    for (Node* n : nodes) {
        if (n != nodes.back()) fused.fusedNames.push_back(n->name);
        retire(g, *n);
    }
    appendFused(g, std::move(fused));
}

}  // namespace

// ReduceMean(x) -> Sub(x, mean) = d -> Pow(d, 2) -> ReduceMean -> Add(eps) -> Sqrt -> Div(d, .)
// [-> Mul(gamma) [-> Add(beta)]], every mean over the same trailing axes with keepdims, each
// intermediate read only inside the pattern: one LayerNormalization (its kernel normalizes a
// row in one dispatch; opset 17 on). Means over the channel axis alone of a [N, C, spatial...]
// tensor (NAFNet's LayerNorm2d, any opset) become one vkinfer.ChannelNorm
// (ops/normalization.h) the same way, with per-channel parameters. Where the affine
// parameters do not have the normalized shape, the pattern ends before them and the pointwise
// fusion takes them.
void fuseLayerNormPattern(Graph& g) {
    const bool layerNorm = ops::findOp("LayerNormalization", g.opset) != nullptr;
    g.relinkProducers();
    graph::Readers readers(g);
    bool changed = false;
    const size_t count = g.nodes.size();
    for (size_t i = 0; i < count; ++i) {
        Node& m1 = g.nodes[i];
        if (m1.removed) continue;
        const MeanAxes axes = meanAxesOf(g, m1);
        if (!axes.any() || (axes.trailing > 0 && !layerNorm)) continue;
        const int x = m1.inputs[0];
        const Shape xs = g.values[x].shape;
        if (g.values[x].dtype != DataType::Float32) continue;
        // x - mean, read by the square and by the Div. (A model that writes `x - mu` twice, as
        // NAFNet's LayerNorm2d does, had the copies merged by passes/common_subexpressions.h.)
        Node* sub = soleReader(g, readers, m1.outputs[0], "Sub");
        if (!sub || sub->inputs.size() != 2 || sub->inputs[0] != x || sub->inputs[1] != m1.outputs[0]) continue;
        const int d = sub->outputs[0];
        if (g.isGraphOutput(d) || g.values[d].shape != xs) continue;
        const auto dReaders = readers.of(d);
        if (dReaders.size() != 2) continue;
        Node* square = nullptr;
        Node* div = nullptr;
        for (int r : dReaders) {
            Node& n = g.nodes[r];
            if (n.opType == "Pow" && n.inputs.size() == 2 && n.inputs[0] == d && scalarConstant(g, n.inputs[1]) == 2.0) square = &n;
            else if (n.opType == "Mul" && n.inputs.size() == 2 && n.inputs[0] == d && n.inputs[1] == d) square = &n;
            else if (n.opType == "Div" && n.inputs.size() == 2 && n.inputs[0] == d) div = &n;
        }
        if (!square || !div) continue;
        Node* m2 = soleReader(g, readers, square->outputs[0], "ReduceMean");
        if (!m2 || m2->inputs[0] != square->outputs[0] || !(meanAxesOf(g, *m2) == axes)) continue;
        Node* addEps = soleReader(g, readers, m2->outputs[0], "Add");
        if (!addEps || addEps->inputs.size() != 2) continue;
        const int epsValue = addEps->inputs[0] == m2->outputs[0] ? addEps->inputs[1] : addEps->inputs[0];
        const auto eps = scalarConstant(g, epsValue);
        if (!eps || *eps < 0) continue;
        Node* sqrt = soleReader(g, readers, addEps->outputs[0], "Sqrt");
        if (!sqrt || div->inputs[1] != sqrt->outputs[0] || soleReader(g, readers, sqrt->outputs[0], "Div") != div) continue;
        if (div->activation.kind != ActKind::None || g.values[div->outputs[0]].shape != xs) continue;
        std::vector<Node*> nodes{&m1, sub, square, m2, addEps, sqrt, div};
        // The parameters' shape as the fused node takes them: the trailing dims, or [C].
        const Shape normalized = axes.channel ? Shape{xs[1]} : Shape(xs.end() - axes.trailing, xs.end());
        const size_t channelsOfRank = axes.channel ? xs.size() : 0;
        int scale = -1, bias = -1;
        matchAffine(g, readers, div->outputs[0], xs, normalized, channelsOfRank, nodes, &scale, &bias);
        if (scale < 0) scale = g.addConstant(m1.name + "_layer_norm_scale", Tensor::fromVector<float>(
                                                  DataType::Float32, normalized,
                                                  std::vector<float>(static_cast<size_t>(elementCount(normalized)), 1.0f)));
        Node ln;
        ln.opType = axes.channel ? ops::kChannelNormOpType : "LayerNormalization";
        ln.inputs = {x, scale};
        if (bias >= 0) ln.inputs.push_back(bias);
        if (!axes.channel) ln.attrs["axis"] = static_cast<int64_t>(xs.size()) - axes.trailing;
        ln.attrs["epsilon"] = static_cast<float>(*eps);
        replaceNodes(g, nodes, std::move(ln));  // (pointers into g.nodes are not used past here)
        changed = true;
    }
    if (changed) {
        removeDeadNodes(g);
        sortTopologically(g);
    }
}

namespace {

// Every element of constant `v` equals `value`.
bool constantAll(const Graph& g, int v, double value) {
    if (v < 0 || !g.values[v].constant) return false;
    const Tensor& t = *g.values[v].constant;
    for (int64_t i = 0; i < t.elementCount(); ++i)
        if (t.getDouble(i) != value) return false;
    return t.elementCount() > 0;
}

// The Reshape that is the sole reader of `v` (reading it as its data), or null.
Node* soleReshape(Graph& g, const graph::Readers& readers, int v) {
    Node* r = soleReader(g, readers, v, "Reshape");
    return r && r->inputs[0] == v ? r : nullptr;
}

}  // namespace

void fuseGroupNormPattern(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    bool changed = false;
    const size_t count = g.nodes.size();
    for (size_t i = 0; i < count; ++i) {
        Node& inorm = g.nodes[i];
        if (inorm.removed || inorm.opType != "InstanceNormalization" || inorm.inputs.size() != 3) continue;
        if (inorm.activation.kind != ActKind::None) continue;
        if (!constantAll(g, inorm.inputs[1], 1.0) || !constantAll(g, inorm.inputs[2], 0.0)) continue;
        // Reshape(x [N, C, spatial...]) -> [N, G, L], L = C / G * spatial.
        const int grouped = inorm.inputs[0];
        const int r1 = g.values[grouped].producer;
        if (r1 < 0 || g.nodes[r1].opType != "Reshape" || soleReader(g, readers, grouped, "InstanceNormalization") != &inorm)
            continue;
        Node& reshapeIn = g.nodes[r1];
        const int x = reshapeIn.inputs[0];
        const Shape xs = g.values[x].shape, gs = g.values[grouped].shape;
        if (g.values[x].dtype != DataType::Float32 || xs.size() < 3 || gs.size() != 3 || gs[0] != xs[0]) continue;
        const int64_t C = xs[1], G = gs[1];
        if (G < 1 || C % G != 0 || gs[2] * G != elementCount(xs) / xs[0]) continue;
        // Reshape back to x's shape.
        Node* reshapeOut = soleReshape(g, readers, inorm.outputs[0]);
        if (!reshapeOut || g.values[reshapeOut->outputs[0]].shape != xs) continue;
        std::vector<Node*> nodes{&reshapeIn, &inorm, reshapeOut};
        const Shape perChannel{C};
        int scale = -1, bias = -1;
        matchAffine(g, readers, reshapeOut->outputs[0], xs, perChannel, xs.size(), nodes, &scale, &bias);
        auto filled = [&](const char* what, float v) {
            return g.addConstant(inorm.name + what, Tensor::fromVector<float>(DataType::Float32, perChannel,
                                                                            std::vector<float>(size_t(C), v)));
        };
        if (scale < 0) scale = filled("_group_norm_scale", 1.0f);
        if (bias < 0) bias = filled("_group_norm_bias", 0.0f);
        Node gn;
        gn.opType = ops::kGroupNormOpType;
        gn.inputs = {x, scale, bias};
        gn.attrs["num_groups"] = G;
        gn.attrs["epsilon"] = inorm.attrFloat("epsilon", 1e-5f);
        replaceNodes(g, nodes, std::move(gn));  // (pointers into g.nodes are not used past here)
        changed = true;
    }
    if (changed) {
        removeDeadNodes(g);
        sortTopologically(g);
    }
}

void fusePointwise(Graph& g) {
    g.relinkProducers();
    std::vector<int> order;
    if (!g.topologicalOrder(&order)) return;
    const graph::Readers readers(g);
    const size_t nodeCount = g.nodes.size();
    std::vector<int> pos(nodeCount, -1), groupOf(nodeCount, -1);
    for (size_t k = 0; k < order.size(); ++k) pos[order[k]] = static_cast<int>(k);
    std::vector<std::optional<Steps>> steps(nodeCount);
    std::vector<Group> groups;
    std::vector<int> newInputs;
    std::vector<uint32_t> newImmediates;
    for (int i : order) {
        steps[i] = translate(g, g.nodes[i]);
        if (!steps[i]) continue;
        const Shape& shape = g.values[g.nodes[i].outputs[0]].shape;
        int joined = -1;
        for (const auto& s : *steps[i]) {
            for (const Operand* o : {&s.a, &s.b, &s.c}) {
                if (o->kind != Operand::Value || joined >= 0) continue;
                const int p = g.values[o->value].producer;
                const int gi = p >= 0 ? groupOf[p] : -1;
                if (gi < 0 || !broadcastsTo(groups[gi].shape, shape)) continue;
                if (!fits(g, groups[gi], *steps[i], groupOf, pos, gi, &newInputs, &newImmediates)) continue;
                joined = gi;
            }
        }
        if (joined < 0) {  // a group of its own
            Group fresh;
            fresh.firstPos = pos[i];
            fresh.shape = shape;
            if (!fits(g, fresh, *steps[i], groupOf, pos, static_cast<int>(groups.size()), &newInputs, &newImmediates)) continue;
            joined = static_cast<int>(groups.size());
            groups.push_back(std::move(fresh));
        }
        Group& group = groups[joined];
        group.shape = shape;  // (what it had broadcasts to it: the group's values are computed per element of it)
        group.nodes.push_back(i);
        group.inputs.insert(group.inputs.end(), newInputs.begin(), newInputs.end());
        group.immediates.insert(group.immediates.end(), newImmediates.begin(), newImmediates.end());
        group.steps += static_cast<int>(steps[i]->size());
        groupOf[i] = joined;
    }
    bool changed = false;
    for (auto& group : groups) {
        // Cut the group short (from its end: earlier nodes never read later ones) until it
        // stores at most kPointwiseMaxOutputs values, each of the shape the kernel walks (the
        // last node's: a group's shapes only grow along it).
        std::vector<int> outputs;
        while (group.nodes.size() >= 2) {
            outputs = groupOutputs(g, readers, group.nodes);
            const Shape& last = g.values[g.nodes[group.nodes.back()].outputs[0]].shape;
            const bool stored = std::all_of(outputs.begin(), outputs.end(), [&](int v) { return g.values[v].shape == last; });
            if (!outputs.empty() && outputs.size() <= ops::kPointwiseMaxOutputs && stored) break;
            group.nodes.pop_back();
        }
        if (group.nodes.size() < 2) continue;  // one node: its own dispatch already
        std::vector<Steps> groupSteps;
        for (int i : group.nodes) groupSteps.push_back(*steps[i]);
        rewriteGroup(g, group.nodes, groupSteps, outputs);
        changed = true;
    }
    if (changed) sortTopologically(g);
}

}  // namespace vkinfer::passes
