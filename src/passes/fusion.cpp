#include "passes/fusion.h"

#include <cfloat>
#include <algorithm>
#include <cmath>
#include <optional>

#include "core/error.h"
#include "ops/activation.h"
#include "ops/element_order.h"
#include "ops/normalization.h"
#include "ops/strided_view.h"
#include "ops/gemm/matmul.h"
#include "passes/concat_views.h"
#include "passes/graph_edit.h"
#include "passes/specialize.h"

namespace vkinfer::passes {

using graph::ActKind;
using graph::Graph;
using graph::Node;

namespace {

// Ops whose lowering applies a fused activation (Node::activation) to what it stores: the
// producers an activation, SiLU or Gelu after them can fold into.
bool storesWithActivation(const Node& n) {
    static const char* const kTypes[] = {"Conv",
                                         "Gemm",
                                         "MatMul",
                                         "Add",
                                         "Mul",
                                         "BatchNormalization",
                                         "LayerNormalization",
                                         "InstanceNormalization",
                                         "GroupNormalization",
                                         ops::kChannelNormOpType,
                                         ops::kGroupNormOpType};
    return std::any_of(std::begin(kTypes), std::end(kTypes), [&](const char* t) { return n.opType == t; });
}

const Tensor* constantInput(const Graph& g, const Node& n, size_t i) {
    int v = n.input(i);
    return v >= 0 && g.values[v].constant ? &*g.values[v].constant : nullptr;
}

// Replaces producer's output with the fused node's output and retires the fused node. Links
// are updated in place: relinking the whole graph per fusion made fusion quadratic.
void absorb(Graph& g, Node& producer, Node& fused) {
    const int old = producer.outputs[0];
    retire(g, fused);
    producer.outputs[0] = fused.outputs[0];
    g.values[producer.outputs[0]].producer = static_cast<int>(&producer - g.nodes.data());
    if (old >= 0 && old != producer.outputs[0]) g.values[old].producer = -1;
    producer.fusedNames.push_back(fused.name);
    for (auto& n : fused.fusedNames) producer.fusedNames.push_back(n);
}

bool activationOf(const Graph& g, const Node& n, graph::Activation* act) {
    if (ops::attributeActivation(n, act)) {
        // (defined by its attributes)
    } else if (n.opType == "Clip") {
        act->kind = ActKind::Clip;
        act->alpha = -FLT_MAX;
        act->beta = FLT_MAX;
        if (g.opset < 11) {
            act->alpha = n.attrFloat("min", -FLT_MAX);
            act->beta = n.attrFloat("max", FLT_MAX);
        } else {
            for (size_t i = 1; i < 3; ++i) {
                if (n.input(i) < 0) continue;
                const Tensor* t = constantInput(g, n, i);
                if (!t || t->elementCount() != 1) return false;
                (i == 1 ? act->alpha : act->beta) = static_cast<float>(t->getDouble(0));
            }
        }
    } else if (n.opType == "PRelu") {
        // One slope: a LeakyRelu. One per channel (axis 1, broadcast over the rest): PRelu.
        const Tensor* slope = constantInput(g, n, 1);
        if (!slope || n.inputs[0] < 0) return false;
        if (slope->elementCount() == 1) {
            act->kind = ActKind::LeakyRelu;
            act->alpha = static_cast<float>(slope->getDouble(0));
        } else {
            const graph::Shape& x = g.values[n.inputs[0]].shape;
            graph::Shape s = slope->shape();
            if (x.size() < 2 || s.size() > x.size() || slope->elementCount() != x[1]) return false;
            s.insert(s.begin(), x.size() - s.size(), 1);
            for (size_t a = 0; a < s.size(); ++a)
                if (s[a] != (a == 1 ? x[1] : 1)) return false;
            act->kind = ActKind::PRelu;
            for (int64_t c = 0; c < slope->elementCount(); ++c)
                act->slopes.push_back(static_cast<float>(slope->getDouble(c)));
        }
    } else {
        return false;
    }
    return g.values[n.inputs[0]].dtype == DataType::Float32;
}

// A per-channel PRelu after a convolution that stores a fused DepthToSpace: its slopes per
// channel before the shuffle (CRD: channel c r^2 + i r + j is c; DCR: (i r + j) C + c is c).
std::vector<float> slopesBeforeShuffle(const Node& conv, const std::vector<float>& slopes) {
    if (conv.depthToSpace == 0) return slopes;
    const int64_t rr = conv.depthToSpace * conv.depthToSpace, C = static_cast<int64_t>(slopes.size());
    std::vector<float> out(static_cast<size_t>(C * rr));
    for (int64_t oc = 0; oc < C * rr; ++oc)
        out[static_cast<size_t>(oc)] = slopes[static_cast<size_t>(conv.depthToSpaceCrd ? oc / rr : oc % C)];
    return out;
}

// The factor per column of a product with N columns that Mul's constant `scale` applies to a
// value of `rank` dimensions whose axis `columnAxis` holds those columns: `scale` (broadcast
// from the right) may vary along that axis alone. None for any other constant.
std::optional<std::vector<float>> columnFactors(const Tensor& scale, size_t rank, size_t columnAxis, int64_t N) {
    const auto& s = scale.shape();
    if (scale.dtype() != DataType::Float32 || s.size() > rank) return std::nullopt;
    int64_t along = 1;
    for (size_t d = 0; d < s.size(); ++d) {
        const size_t axis = rank - s.size() + d;
        if (axis == columnAxis) along = s[d];
        else if (s[d] != 1) return std::nullopt;
    }
    if (along != 1 && along != N) return std::nullopt;
    std::vector<float> f(static_cast<size_t>(N));
    for (int64_t n = 0; n < N; ++n) f[static_cast<size_t>(n)] = static_cast<float>(scale.getDouble(along == 1 ? 0 : n));
    for (float v : f)
        if (!std::isfinite(v)) return std::nullopt;
    return f;
}

// A constant float32 input of `mm` that only `mm` reads (its weights or bias), or null.
const Tensor* ownConstant(const Graph& g, const graph::Readers& readers, const Node& mm, size_t input) {
    const int v = mm.input(input);
    if (v < 0 || g.isGraphOutput(v) || readers.of(v).size() != 1) return nullptr;
    const Tensor* t = constantInput(g, mm, input);
    return t && t->dtype() == DataType::Float32 ? t : nullptr;
}

// The single live reader of `v` of type `type` (and `v` no graph output), or null.
Node* onlyReader(Graph& g, const graph::Readers& readers, int v, const char* type) {
    if (v < 0 || g.isGraphOutput(v)) return nullptr;
    auto r = readers.of(v);
    if (r.size() != 1 || g.nodes[r[0]].opType != type) return nullptr;
    return &g.nodes[r[0]];
}

// The Transpose that alone reads `y` (as its data; live, with no second output, `y` no graph
// output), or null: the copy a producer can fold into its stores.
Node* soleTransposeOf(Graph& g, const graph::Readers& readers, int y) {
    Node* t = onlyReader(g, readers, y, "Transpose");
    if (!t || t->removed || t->inputs.empty() || t->inputs[0] != y || hasExtraOutputs(*t)) return nullptr;
    return t;
}

// Offers `rewrite(mulIndex, operand, constant)` each side of each live two-input Mul (no
// activation) whose other input is a constant, until it returns true (rewritten) for one side.
template <class Rewrite>
void forEachMulByConstant(Graph& g, Rewrite rewrite) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        const Node& mul = g.nodes[i];
        if (mul.removed || mul.opType != "Mul" || mul.inputs.size() != 2 || mul.activation.kind != ActKind::None)
            continue;
        for (int side = 0; side < 2; ++side) {
            const int u = mul.inputs[side], s = mul.inputs[1 - side];
            if (u < 0 || s < 0 || u == s || !g.values[s].constant) continue;
            if (rewrite(i, u, s)) break;
        }
    }
}

}  // namespace

// A per-channel scale after a product with constant weights, directly or through the
// Transpose that puts the channels back (ConvNeXt's layer scale: Linear -> permute to NCHW ->
// Mul by gamma [C, 1, 1]; CaiT's and DINOv2's LayerScale): the columns of B and the bias take
// the factors at planning and the Mul goes, which leaves the Transpose to fold into the GEMM's
// store and the residual Add after it into its epilogue. Only where B is a float32 [K, N]
// constant and it, the bias, the product and the Transpose have no other reader.
void foldColumnScaleIntoMatMul(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    forEachMulByConstant(g, [&](size_t i, int u, int s) {
        Node& mul = g.nodes[i];
        if (g.values[mul.outputs[0]].shape != g.values[u].shape) return false;  // the scale must not widen u
        Node* t = soleProducer(g, readers, u, static_cast<int>(i), {"Transpose"});
        if (t && hasExtraOutputs(*t)) return false;
        const int product = t ? t->inputs[0] : u;
        const int reader = t ? static_cast<int>(t - g.nodes.data()) : static_cast<int>(i);
        Node* mm = soleProducer(g, readers, product, reader, {"MatMul"});
        if (!mm || mm->activation.kind != ActKind::None || mm->inputs.size() < 2 || mm->inputs.size() > 3 ||
            !mm->outputPerm.empty() || !mm->inputView(1).empty() || mm->outputs[0] != product)
            return false;
        const Tensor* w = ownConstant(g, readers, *mm, 1);
        const Tensor* bias = mm->inputs.size() == 3 ? ownConstant(g, readers, *mm, 2) : nullptr;
        const auto& ys = g.values[product].shape;
        if (!w || w->shape().size() != 2 || (mm->inputs.size() == 3 && !bias) || ys.size() < 2 ||
            g.values[product].dtype != DataType::Float32)
            return false;
        const int64_t K = w->shape()[0], N = w->shape()[1];
        if (ys.back() != N || (bias && bias->elementCount() != N)) return false;
        size_t columnAxis = ys.size() - 1;
        if (t) {
            std::vector<int64_t> perm;
            try {
                perm = ops::transposePermutation(*t, ys);
            } catch (const Error&) {
                return false;
            }
            const auto at = std::find(perm.begin(), perm.end(), static_cast<int64_t>(ys.size()) - 1);
            if (perm.size() != ys.size() || at == perm.end()) return false;
            columnAxis = static_cast<size_t>(at - perm.begin());
        }
        const auto f = columnFactors(*g.values[s].constant, ys.size(), columnAxis, N);
        if (!f) return false;
        // (Copies first: adding a constant moves g.values, which w and bias point into.)
        Tensor nw = *w;
        for (int64_t k = 0; k < K; ++k)
            for (int64_t n = 0; n < N; ++n) nw.as<float>()[k * N + n] *= (*f)[static_cast<size_t>(n)];
        std::optional<Tensor> nb;
        if (bias) {
            nb = *bias;
            for (int64_t n = 0; n < N; ++n) nb->as<float>()[n] *= (*f)[static_cast<size_t>(n)];
        }
        const int mmIndex = static_cast<int>(mm - g.nodes.data());
        mm->inputs[1] = g.addConstant(g.values[mm->inputs[1]].name + "_column_scaled", std::move(nw));
        readers.add(mm->inputs[1], mmIndex);
        if (nb) {
            mm->inputs[2] = g.addConstant(g.values[mm->inputs[2]].name + "_column_scaled", std::move(*nb));
            readers.add(mm->inputs[2], mmIndex);
        }
        absorb(g, t ? *t : *mm, mul);
        return true;
    });
}

void foldBatchNorm(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        Node& bn = g.nodes[i];
        if (bn.removed || bn.opType != "BatchNormalization") continue;
        if (hasExtraOutputs(bn)) continue;  // training-mode outputs are requested
        if (bn.attrInt("training_mode", 0) != 0) continue;  // normalizes by the batch's statistics, not the running ones
        Node* conv = soleProducer(g, readers, bn.inputs[0], static_cast<int>(i), {"Conv"});
        if (!conv || conv->activation.kind != ActKind::None || conv->inputs.size() > 3) continue;
        const Tensor* w = constantInput(g, *conv, 1);
        const Tensor* b = conv->input(2) >= 0 ? constantInput(g, *conv, 2) : nullptr;
        const Tensor *scale = constantInput(g, bn, 1), *bias = constantInput(g, bn, 2), *mean = constantInput(g, bn, 3),
                     *var = constantInput(g, bn, 4);
        if (!w || (conv->input(2) >= 0 && !b) || !scale || !bias || !mean || !var) continue;
        if (w->dtype() != DataType::Float32) continue;
        const int64_t m = w->shape()[0];
        if (scale->elementCount() != m) continue;
        const int64_t per = w->elementCount() / m;
        const float eps = bn.attrFloat("epsilon", 1e-5f);
        Tensor nw = *w;
        Tensor nb(DataType::Float32, {m});
        for (int64_t c = 0; c < m; ++c) {
            double k = scale->getDouble(c) / std::sqrt(var->getDouble(c) + eps);
            for (int64_t j = 0; j < per; ++j) nw.as<float>()[c * per + j] = static_cast<float>(w->as<float>()[c * per + j] * k);
            double b0 = b ? b->getDouble(c) : 0.0;
            nb.as<float>()[c] = static_cast<float>((b0 - mean->getDouble(c)) * k + bias->getDouble(c));
        }
        conv->inputs.resize(3);
        conv->inputs[1] = g.addConstant(g.values[conv->inputs[1]].name + "_bnfolded", std::move(nw));
        conv->inputs[2] = g.addConstant(conv->name + "_bnfolded_bias", std::move(nb));
        const int convIndex = static_cast<int>(conv - g.nodes.data());
        readers.add(conv->inputs[1], convIndex);
        readers.add(conv->inputs[2], convIndex);
        absorb(g, *conv, bn);
    }
}

// The MatMul or Gemm that produces `value` for `reader`, directly or through nodes that move
// no element (ops/element_order.h), each read only by the next: those go to `views`.
Node* gemmThroughViews(Graph& g, const graph::Readers& readers, int value, int reader, std::vector<Node*>& views) {
    for (;;) {
        const int producer = value >= 0 ? g.values[value].producer : -1;
        if (producer < 0) return nullptr;
        // (Its own type passes soleProducer's filter: the checks of a sole reader remain.)
        Node* p = soleProducer(g, readers, value, reader, {g.nodes[producer].opType.c_str()});
        if (!p) return nullptr;
        if (p->opType == "MatMul" || p->opType == "Gemm") return g.values[value].dtype == DataType::Float32 ? p : nullptr;
        if (!ops::keepsElementOrder(g, *p)) return nullptr;
        views.push_back(p);
        reader = static_cast<int>(p - g.nodes.data());
        value = p->inputs[0];
    }
}

namespace {

// fuseResidualAdd for the producers `accept` takes.
template <class Accept>
void fuseResidualAddInto(Graph& g, Accept accept) {
    g.relinkProducers();
    graph::Readers readers(g);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        Node& add = g.nodes[i];
        if (add.removed || add.opType != "Add" || add.inputs.size() != 2) continue;
        const auto& outShape = g.values[add.outputs[0]].shape;
        for (int side = 0; side < 2; ++side) {
            int a = add.inputs[side], r = add.inputs[1 - side];
            if (g.values[a].shape != outShape || g.values[r].shape != outShape) break;
            if (g.values[a].dtype != DataType::Float32 || g.values[r].dtype != DataType::Float32) break;
            // (A GEMM's residual: the transformer block's x + proj(attn(x)) and x + mlp(x), the
            // projection's rows often reshaped on the way: the GEMM then stores the Add's shape.)
            std::vector<Node*> views;
            Node* producer = soleProducer(g, readers, a, static_cast<int>(i), {"Conv"});
            if (!producer) producer = gemmThroughViews(g, readers, a, static_cast<int>(i), views);
            if (!producer || producer->activation.kind != ActKind::None || producer->inputs.size() > 3 ||
                !accept(*producer))
                continue;
            producer->inputs.resize(3, -1);
            producer->inputs.push_back(r);
            readers.add(r, static_cast<int>(producer - g.nodes.data()));
            for (Node* v : views)
                foldInto(g, *producer, *v);
            absorb(g, *producer, add);
            break;
        }
    }
}

// A Linear whose output a folded Transpose put back in place (ConvNeXt's MatMul -> permute to
// NCHW, the Mul between them folded into its columns): the residual Add after it, in the stored
// layout. Not attention's probabilities x v (B not constant), whose fusion takes no residual.
bool storesLinearTransposed(const Graph& g, const Node& n) {
    return n.opType == "MatMul" && !n.outputPerm.empty() && n.inputs.size() >= 2 && n.inputs[1] >= 0 &&
           g.values[n.inputs[1]].constant.has_value();
}

}  // namespace

void fuseResidualAdd(Graph& g) {
    fuseResidualAddInto(g, [](const Node&) { return true; });
}

void fuseActivations(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        Node& actNode = g.nodes[i];
        graph::Activation act;
        if (actNode.removed || !activationOf(g, actNode, &act)) continue;
        Node* p = soleProducer(g, readers, actNode.inputs[0], static_cast<int>(i), {});
        if (!p || !storesWithActivation(*p) || p->activation.kind != ActKind::None) continue;
        if (hasExtraOutputs(*p)) continue;
        if (act.kind == ActKind::PRelu) {
            // Only the convolutions read a slope per channel (beside their bias, which must
            // then be a constant the lowering can pack with the slopes).
            if (p->opType != "Conv" || (p->input(2) >= 0 && !constantInput(g, *p, 2))) continue;
            act.slopes = slopesBeforeShuffle(*p, act.slopes);
        }
        p->activation = act;
        absorb(g, *p, actNode);
    }
}

// Conv -> DepthToSpace (an upscaler's pixel shuffle), the conv's output read by nothing else:
// the conv stores each output where the DepthToSpace would put it, reading a fused residual
// where the conv's own output would be (or, where its kernel cannot, lowers to the conv and
// the copy, ops/conv/conv.cpp). An activation after the DepthToSpace then fuses into the conv,
// as activations commute with the permutation.
void fuseDepthToSpace(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        Node& d2s = g.nodes[i];
        if (d2s.removed || d2s.opType != "DepthToSpace" || d2s.inputs.empty()) continue;
        const int64_t blocksize = d2s.attrInt("blocksize", 0);
        const std::string mode = d2s.attrString("mode", "DCR");
        if (blocksize <= 0 || (mode != "DCR" && mode != "CRD")) continue;
        Node* conv = soleProducer(g, readers, d2s.inputs[0], static_cast<int>(i), {"Conv"});
        if (!conv || conv->inputs.size() > 4 || conv->depthToSpace != 0) continue;
        const auto& x = g.values[d2s.inputs[0]];
        if (x.shape.size() != 4 || x.shape[1] % (blocksize * blocksize) != 0) continue;
        conv->depthToSpace = blocksize;
        conv->depthToSpaceCrd = mode == "CRD";
        absorb(g, *conv, d2s);
    }
}

// Mul(x, Sigmoid(x)) (either operand order), x read by nothing else: SiLU fused into x's producer.
void fuseSilu(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        Node& mul = g.nodes[i];
        if (mul.removed || mul.opType != "Mul" || mul.inputs.size() != 2 || mul.inputs[0] == mul.inputs[1]) continue;
        for (int side = 0; side < 2; ++side) {
            int x = mul.inputs[side], s = mul.inputs[1 - side];
            if (x < 0 || s < 0 || g.isGraphOutput(x) || g.values[x].dtype != DataType::Float32) continue;
            Node* sig = soleProducer(g, readers, s, static_cast<int>(i), {"Sigmoid"});
            if (!sig || sig->inputs[0] != x) continue;
            const int p = g.values[x].producer;
            if (p < 0) continue;
            Node& producer = g.nodes[p];
            // A Mul producing x keeps the SiLU as nodes, as it always has here: the pointwise
            // programs then run the three as one.
            if (!storesWithActivation(producer) || producer.opType == "Mul") continue;
            if (producer.activation.kind != ActKind::None || producer.outputs[0] != x || hasExtraOutputs(producer))
                continue;
            auto xReaders = readers.of(x);
            std::vector<int> expected{static_cast<int>(i), static_cast<int>(sig - g.nodes.data())};
            std::sort(expected.begin(), expected.end());
            if (xReaders != expected) continue;
            producer.activation.kind = ActKind::Silu;
            foldInto(g, producer, *sig);
            absorb(g, producer, mul);
            break;
        }
    }
}

// MatMul -> Add of a constant row of N values (a Linear layer as exporters write it: the
// MatMul, then the bias): the bias becomes the MatMul's third input, which its GEMM adds in
// the epilogue (ops/gemm/gemm.cpp), so activations after the Add fuse into the MatMul too.
void fuseMatMulBias(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        Node& add = g.nodes[i];
        if (add.removed || add.opType != "Add" || add.inputs.size() != 2) continue;
        for (int side = 0; side < 2; ++side) {
            const int y = add.inputs[side], bias = add.inputs[1 - side];
            if (y < 0 || bias < 0 || !g.values[bias].constant) continue;
            Node* mm = soleProducer(g, readers, y, static_cast<int>(i), {"MatMul"});
            if (!mm || mm->activation.kind != ActKind::None || mm->inputs.size() != 2) continue;
            const auto& ys = g.values[y].shape;
            if (g.values[mm->inputs[0]].shape.size() < 2 || g.values[mm->inputs[1]].shape.size() < 2) continue;
            if (g.values[y].dtype != DataType::Float32 || g.values[add.outputs[0]].shape != ys || ys.empty()) continue;
            const Tensor& t = *g.values[bias].constant;
            const auto& bs = t.shape();
            if (t.dtype() != DataType::Float32 || bs.empty() || bs.size() > ys.size() || bs.back() != ys.back() ||
                t.elementCount() != ys.back())
                continue;
            mm->inputs.push_back(bias);
            readers.add(bias, static_cast<int>(mm - g.nodes.data()));
            absorb(g, *mm, add);
            break;
        }
    }
}

// The factor a scalar Mul or Div applies to its other operand `x` (Mul(x, c), Mul(c, x),
// Div(x, c)), or none: a float32 constant of one element, finite and (for Div) not zero.
std::optional<float> scalarFactor(const Graph& g, const Node& n, int x) {
    if (n.inputs.size() != 2 || (n.opType != "Mul" && n.opType != "Div")) return std::nullopt;
    const int c = n.inputs[0] == x ? n.inputs[1] : n.inputs[1] == x ? n.inputs[0] : -1;
    if (c < 0 || c == x || (n.opType == "Div" && n.inputs[0] != x)) return std::nullopt;
    const auto& t = g.values[c].constant;
    if (!t || t->dtype() != DataType::Float32 || t->elementCount() != 1) return std::nullopt;
    const double v = t->getDouble(0);
    const double f = n.opType == "Div" ? 1.0 / v : v;
    if (!std::isfinite(f) || v == 0.0) return std::nullopt;
    return static_cast<float>(f);
}

// A scalar scale on a MatMul's operand or output (attention's q / sqrt(d), or the dynamo
// exporter's q * s and k * s; scores / sqrt(d) after the product) becomes the GEMM's alpha
// (Node::matMulScale): one dispatch less each, and the Transpose before the scaled operand
// can then fold too. Only where the scaled value has no other reader and the output side has
// no bias or activation fused (alpha scales the product alone, before the epilogue). Runs
// after the Gelu fusion (whose trailing x * 0.5 would otherwise become the next GEMM's alpha and
// leave the Erf chain unfused) and before the Transpose fold.
void foldScalesIntoMatMul(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        Node& mm = g.nodes[i];
        if (mm.removed || mm.opType != "MatMul" || mm.inputs.size() < 2) continue;
        for (int side = 0; side < 2; ++side) {
            const int v = mm.inputs[side];
            if (v < 0 || mm.inputs[1 - side] == v) continue;
            Node* scale = soleProducer(g, readers, v, static_cast<int>(i), {"Mul", "Div"});
            if (!scale || scale->activation.kind != ActKind::None) continue;
            for (int x : scale->inputs) {
                const auto f = x >= 0 ? scalarFactor(g, *scale, x) : std::nullopt;
                if (!f || g.values[x].shape != g.values[v].shape || g.values[x].dtype != DataType::Float32) continue;
                mm.matMulScale *= *f;
                mm.inputs[side] = x;
                readers.add(x, static_cast<int>(i));
                foldInto(g, mm, *scale);
                break;
            }
        }
        // The output: MatMul -> Mul/Div by a scalar, the product read by nothing else.
        const int y = mm.outputs.empty() ? -1 : mm.outputs[0];
        if (y < 0 || g.isGraphOutput(y) || mm.inputs.size() != 2 || mm.activation.kind != ActKind::None) continue;
        const auto users = readers.of(y);
        if (users.size() != 1) continue;
        Node& scale = g.nodes[users[0]];
        const auto f = scalarFactor(g, scale, y);
        if (!f || scale.removed || scale.activation.kind != ActKind::None || g.values[scale.outputs[0]].shape != g.values[y].shape)
            continue;
        mm.matMulScale *= *f;
        absorb(g, mm, scale);
    }
}

// A scale per batch of a product (constant, size 1 along its rows and columns: Swin V2's
// cosine attention, (q^ k^T) * logit_scale[H, 1, 1]) moves onto the first operand where that
// is no more multiplications (the operand no larger than the product): the product then
// feeds the bias and Softmax as the attention fusion matches, and the Mul joins the operand's
// element-wise chain (the normalization's Div). Only where the scale broadcasts into the
// operand without widening it, and the product has no other reader.
void moveBatchScaleToOperand(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    forEachMulByConstant(g, [&](size_t i, int y, int s) {
        const Node& mul = g.nodes[i];  // (until appendFused below moves g.nodes)
        if (g.values[s].dtype != DataType::Float32) return false;
        Node* mm = soleProducer(g, readers, y, static_cast<int>(i), {"MatMul"});
        if (!mm || mm->inputs.size() != 2 || mm->activation.kind != ActKind::None || !mm->outputPerm.empty() ||
            !mm->inputView(0).empty() || !mm->inputView(1).empty() || mm->outputs[0] != y)
            return false;
        const graph::Shape& ys = g.values[y].shape;
        const graph::Shape& ss = g.values[s].shape;
        const int a = mm->inputs[0];
        const graph::Shape as = g.values[a].shape;  // a copy: adding a value moves g.values
        if (ys.size() < 3 || ss.size() > ys.size() || as.size() != ys.size() ||
            g.values[mul.outputs[0]].shape != ys || elementCount(as) > elementCount(ys))
            return false;
        bool perBatch = true;
        for (size_t d = 0; d < ss.size(); ++d) {
            const size_t axis = ys.size() - ss.size() + d;
            const bool rowOrColumn = axis + 2 >= ys.size();
            perBatch = perBatch && (rowOrColumn ? ss[d] == 1 : (ss[d] == 1 || ss[d] == as[axis]));
        }
        if (!perBatch) return false;
        const int scaled = g.addIntermediate(g.values[a].name + "_batch_scaled", DataType::Float32, as);
        Node scale;
        scale.name = mul.name;
        scale.opType = "Mul";
        scale.inputs = {a, s};
        scale.outputs = {scaled};
        // (appendFused moves g.nodes: the indices stay.)
        const int mmIndex = static_cast<int>(mm - g.nodes.data());
        const int scaleIndex = appendFused(g, std::move(scale));
        Node& product = g.nodes[static_cast<size_t>(mmIndex)];
        product.inputs[0] = scaled;
        readers.add(scaled, mmIndex);
        readers.add(a, scaleIndex);
        readers.add(s, scaleIndex);
        absorb(g, product, g.nodes[i]);
        return true;
    });
}

// Gemm or MatMul with a 2-D B (its bias fused), a Reshape of its rows, a Transpose that keeps
// the columns last: nn.MultiheadAttention's batch-first output at batch B > 1 (the
// out-projection of [L * B, E] rows viewed [L, B, E] and swapped to [B, L, E]). Each output row
// depends on its row of A alone, so the product reads A's rows in the swapped order instead (a
// Reshape and Transpose of A, which foldViewsIntoMatMul folds into its window) and stores the
// Transpose's output itself: two copies fewer (the swap, and the residual Add after it, which
// then fuses into the epilogue). A Gemm becomes the MatMul it is (transposed weights were made
// row-major by transposeConstantGemmWeights; alpha the MatMul's scale, C its bias).
// A Gemm without transposes (C absent, or a row of biases at beta 1) as the MatMul it is: alpha
// the MatMul's scale, C its bias input.
void becomeMatMul(Node& n) {
    if (n.opType != "Gemm") return;
    n.matMulScale = n.attrFloat("alpha", 1.0f);
    for (const char* attr : {"alpha", "beta", "transA", "transB"}) n.attrs.erase(attr);
    if (n.input(2) < 0) n.inputs.resize(2);
    n.opType = "MatMul";
}

void moveRowPermutationBeforeProduct(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    const size_t count = g.nodes.size();  // the nodes added below are not revisited
    for (size_t i = 0; i < count; ++i) {
        if (g.nodes[i].removed || g.nodes[i].opType != "Transpose" || g.nodes[i].input(0) < 0) continue;
        std::vector<int64_t> perm;
        try {
            perm = ops::transposePermutation(g.nodes[i], g.values[g.nodes[i].inputs[0]].shape);
        } catch (const Error&) {
            continue;
        }
        bool identity = true;
        for (size_t d = 0; d < perm.size(); ++d) identity = identity && perm[d] == static_cast<int64_t>(d);
        if (identity || perm.back() != static_cast<int64_t>(perm.size()) - 1) continue;
        Node* reshape = soleProducer(g, readers, g.nodes[i].inputs[0], static_cast<int>(i), {"Reshape"});
        const int y = reshape ? reshape->input(0) : g.nodes[i].inputs[0];
        const int reader = reshape ? static_cast<int>(reshape - g.nodes.data()) : static_cast<int>(i);
        Node* p = y >= 0 ? soleProducer(g, readers, y, reader, {"Gemm", "MatMul"}) : nullptr;
        if (!p || p->outputs[0] != y || hasExtraOutputs(*p) || !p->outputPerm.empty() || !p->inputViews.empty() ||
            p->input(3) >= 0 || p->input(0) < 0 || p->input(1) < 0 || g.values[p->inputs[1]].shape.size() != 2)
            continue;
        const graph::Shape rows = g.values[g.nodes[i].inputs[0]].shape;  // copies: adding values moves them
        const graph::Shape as = g.values[p->inputs[0]].shape;
        const int64_t N = g.values[y].shape.back();
        if (rows.back() != N || as.size() < 2 || g.values[y].dtype != DataType::Float32) continue;
        if (p->opType == "Gemm") {
            const int c = p->input(2);
            if (p->attrInt("transA", 0) != 0 || p->attrInt("transB", 0) != 0 || as.size() != 2) continue;
            if (c >= 0 && (p->attrFloat("beta", 1.0f) != 1.0f || !g.values[c].constant ||
                           g.values[c].constant->elementCount() != N || g.values[c].shape.back() != N))
                continue;
        } else if (p->input(2) >= 0 && g.values[p->inputs[2]].shape.empty()) {
            continue;
        }
        graph::Shape aRows = rows;
        aRows.back() = as.back();
        // Only where the GEMM can read A so swapped (at most two batch dimensions that do not
        // merge): a swap that stayed a copy would now copy A, which may be wider than the output.
        const graph::StridedView swappedView = ops::permutedView(ops::contiguousView(aRows), perm);
        Node trial = *p;
        becomeMatMul(trial);
        trial.setInputView(0, swappedView);
        try {
            if (ops::matMulOutputShape(trial, as, g.values[p->inputs[1]].shape) != g.values[g.nodes[i].outputs[0]].shape)
                continue;
        } catch (const Error&) {
            continue;
        }
        const graph::Shape aSwapped = swappedView.shape;
        const int pIndex = static_cast<int>(p - g.nodes.data());
        const int a = p->inputs[0];
        const std::string name = g.nodes[i].name;
        std::vector<int64_t> dims(aRows.begin(), aRows.end());
        const int shape =
            g.addConstant(name + "_rows_shape", Tensor::fromVector(DataType::Int64, {static_cast<int64_t>(dims.size())}, dims));
        const int reshaped = g.addIntermediate(name + "_rows", DataType::Float32, aRows);
        const int swapped = g.addIntermediate(name + "_rows_swapped", DataType::Float32, aSwapped);
        Node r;
        r.name = name + "_rows";
        r.opType = "Reshape";
        r.inputs = {a, shape};
        r.outputs = {reshaped};
        Node t;
        t.name = name + "_rows_swapped";
        t.opType = "Transpose";
        t.attrs["perm"] = perm;
        t.inputs = {reshaped};
        t.outputs = {swapped};
        const int rIndex = appendFused(g, std::move(r));
        const int tIndex = appendFused(g, std::move(t));
        readers.add(a, rIndex);
        readers.add(reshaped, tIndex);
        // (appendFused moves g.nodes: the indices stay.)
        Node& product = g.nodes[static_cast<size_t>(pIndex)];
        becomeMatMul(product);
        product.inputs[0] = swapped;
        readers.add(swapped, pIndex);
        if (reshape) foldInto(g, product, g.nodes[static_cast<size_t>(reader)]);
        absorb(g, product, g.nodes[i]);
    }
}

// Slice / Reshape / Transpose chains -> MatMul (attention's q, k^T, v: a slice of the fused
// in-projection, split into heads, heads moved first): the MatMul reads the chain's source
// through one strided window (Node::inputViews, ops/strided_view.h) and the copies go. Each
// node of the chain must feed only the next; the source may have other readers (the other two
// slices), and the chain may go on through nodes that others read too (ViT's 5-D Transpose
// that separates q, k and v for three Gathers: once all three read the projection through
// views, the copy goes too; H100, run 62: 12 dispatches of 7 us in ViT-B/16). Where the whole
// chain cannot be one window (a Reshape that merges dimensions the Slice left apart), the
// longest tail of it that can be is folded.
void foldViewsIntoMatMul(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        Node& mm = g.nodes[i];
        if (mm.removed || mm.opType != "MatMul" || mm.inputs.size() < 2) continue;
        for (int side = 0; side < 2; ++side) {
            const int v = mm.inputs[side];
            if (v < 0 || !mm.inputView(side).empty() || mm.inputs[1 - side] == v) continue;
            size_t owned = 0;
            const std::vector<Node*> chain = selectionChain(g, readers, v, static_cast<int>(i), &owned);
            const graph::Shape before = g.values[mm.outputs[0]].shape;
            // The longest tail first: the view of the chain's source through every node.
            for (size_t length = chain.size(); length > 0; --length) {
                const int source = chain[length - 1]->inputs[0];
                const std::optional<graph::StridedView> view = chainView(g, chain, length);
                if (!view || view->shape != g.values[v].shape) continue;
                Node trial = mm;
                trial.setInputView(side, *view);
                trial.inputs[side] = source;
                try {
                    const auto& stored = g.values[source].shape;
                    const auto& other = g.values[trial.inputs[1 - side]].shape;
                    if ((side == 0 ? ops::matMulOutputShape(trial, stored, other)
                                   : ops::matMulOutputShape(trial, other, stored)) != before)
                        continue;
                } catch (const Error&) {
                    continue;  // the GEMM cannot take this window (three batch dimensions)
                }
                mm.setInputView(side, *view);
                mm.inputs[side] = source;
                readers.add(source, static_cast<int>(i));
                for (size_t k = 0; k < std::min(length, owned); ++k) foldInto(g, mm, *chain[k]);
                break;
            }
        }
    }
}

// MatMul -> Transpose (attention's heads back in place: [H, S, D] -> [S, H, D]; ConvNeXt's
// channels back in front: [N, H, W, C] -> [N, C, H, W], which moves the columns): the GEMM
// stores each element where the Transpose would have put it (Node::outputPerm) and the copy
// goes. Not with a fused residual, which has the product's layout; a residual Add after the
// Transpose fuses afterwards, in the stored layout.
void foldTransposesIntoMatMulOutput(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        Node& mm = g.nodes[i];
        if (mm.removed || mm.opType != "MatMul" || mm.inputs.size() < 2 || mm.input(3) >= 0 || !mm.outputPerm.empty())
            continue;
        const int y = mm.outputs.empty() ? -1 : mm.outputs[0];
        Node* t = soleTransposeOf(g, readers, y);
        if (!t) continue;
        Node trial = mm;
        try {
            trial.outputPerm = ops::transposePermutation(*t, g.values[y].shape);
            const auto& a = g.values[mm.inputs[0]].shape;
            const auto& b = g.values[mm.inputs[1]].shape;
            if (ops::matMulOutputShape(trial, a, b) != g.values[t->outputs[0]].shape) continue;
        } catch (const Error&) {
            continue;  // it moves the columns, or the batches do not merge
        }
        mm.outputPerm = trial.outputPerm;
        absorb(g, mm, *t);
    }
}

// Conv -> Transpose(0, 2, 3, 1) (ConvNeXt's depthwise conv, Swin's patch embedding, each
// before a LayerNorm over the channels): the conv stores channels-last (Node::outputPerm,
// every conv kernel's NHWC store) and the copy goes. Last among the conv fusions: a
// BatchNormalization, residual or activation after the Transpose would see the channels last,
// not where those folds expect them. Not with a fused residual or DepthToSpace, which the conv
// reads or stores in its own layout.
void foldTransposesIntoConvOutput(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    const std::vector<int64_t> toChannelsLast{0, 2, 3, 1};
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        Node& conv = g.nodes[i];
        if (conv.removed || conv.opType != "Conv" || conv.inputs.empty() || conv.input(3) >= 0 ||
            conv.depthToSpace != 0 || !conv.outputPerm.empty() || hasExtraOutputs(conv))
            continue;
        const int y = conv.outputs.empty() ? -1 : conv.outputs[0];
        if (y < 0 || g.values[y].shape.size() != 4) continue;
        Node* t = soleTransposeOf(g, readers, y);
        if (!t) continue;
        try {
            if (ops::transposePermutation(*t, g.values[y].shape) != toChannelsLast) continue;
        } catch (const Error&) {
            continue;
        }
        conv.outputPerm = toChannelsLast;
        absorb(g, conv, *t);
    }
}

// Operand of a two-input node `n` other than value `v` (-1 when both are v or v is absent).
int otherOperand(const Node& n, int v) {
    if (n.inputs.size() != 2 || n.inputs[0] == n.inputs[1]) return -1;
    return n.inputs[0] == v ? n.inputs[1] : n.inputs[1] == v ? n.inputs[0] : -1;
}

bool isScalar(const Graph& g, int v, double want) {
    if (v < 0 || !g.values[v].constant || g.values[v].constant->elementCount() != 1) return false;
    return std::abs(g.values[v].constant->getDouble(0) - want) <= 1e-4 * std::abs(want);
}

// The live node producing `v`, if its only reader is `reader` and its type is `type`.
Node* onlyFeeding(Graph& g, const graph::Readers& readers, int v, int reader, const char* type) {
    if (v < 0 || g.isGraphOutput(v)) return nullptr;
    return soleProducer(g, readers, v, reader, {type});
}

// Gelu as exporters before opset 20 spell it (PyTorch's nn.GELU): x * 0.5 * (1 + erf(x / sqrt 2)),
// the halving before or after the product, erf's argument a Div by sqrt 2 or a Mul by its
// inverse. Where x's producer takes an activation and nothing outside the pattern reads x,
// the five nodes become that producer's Gelu (a ViT's MLP: MatMul + Gelu in one dispatch).
void fuseErfGelu(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        Node& erf = g.nodes[i];
        if (erf.removed || erf.opType != "Erf" || erf.inputs.size() != 1) continue;
        const int e = static_cast<int>(i);
        // x / sqrt 2 or x * (1 / sqrt 2)
        Node* scale = onlyFeeding(g, readers, erf.inputs[0], e, "Div");
        if (scale && !isScalar(g, scale->inputs.size() == 2 ? scale->inputs[1] : -1, std::sqrt(2.0))) scale = nullptr;
        if (!scale) {
            scale = onlyFeeding(g, readers, erf.inputs[0], e, "Mul");
            if (scale && !isScalar(g, scale->inputs[0], std::sqrt(0.5)) && !isScalar(g, scale->inputs[1], std::sqrt(0.5)))
                scale = nullptr;
        }
        if (!scale) continue;
        const int x = isScalar(g, scale->inputs[0], std::sqrt(0.5)) ? scale->inputs[1] : scale->inputs[0];
        if (x < 0 || g.values[x].dtype != DataType::Float32 || g.isGraphOutput(x)) continue;
        Node* plusOne = onlyReader(g, readers, erf.outputs[0], "Add");
        if (!plusOne || !isScalar(g, otherOperand(*plusOne, erf.outputs[0]), 1.0)) continue;
        Node* product = onlyReader(g, readers, plusOne->outputs[0], "Mul");
        if (!product) continue;
        const int factor = otherOperand(*product, plusOne->outputs[0]);
        Node* half = nullptr;  // the node that halves: after the product, or x halved before it
        Node* last = nullptr;  // the pattern's final node
        if (factor == x) {
            half = onlyReader(g, readers, product->outputs[0], "Mul");
            if (!half || !isScalar(g, otherOperand(*half, product->outputs[0]), 0.5)) continue;
            last = half;
        } else {
            half = onlyFeeding(g, readers, factor, static_cast<int>(product - g.nodes.data()), "Mul");
            if (!half || otherOperand(*half, x) < 0 || !isScalar(g, otherOperand(*half, x), 0.5)) continue;
            last = product;
        }
        // Nothing but the pattern reads x; its producer takes the activation.
        std::vector<int> expected{static_cast<int>(scale - g.nodes.data()),
                                  static_cast<int>((factor == x ? product : half) - g.nodes.data())};
        std::sort(expected.begin(), expected.end());
        if (readers.of(x) != expected) continue;
        const int p = g.values[x].producer;
        if (p < 0) continue;
        Node& producer = g.nodes[p];
        if (!storesWithActivation(producer)) continue;
        if (producer.activation.kind != ActKind::None || producer.outputs[0] != x || hasExtraOutputs(producer)) continue;
        producer.activation.kind = ActKind::Gelu;
        for (Node* n : {scale, &erf, plusOne, factor == x ? product : half})
            foldInto(g, producer, *n);
        absorb(g, producer, *last);
    }
}

void runFusions(Graph& g) {
    foldBatchNorm(g);
    fuseMatMulBias(g);
    foldColumnScaleIntoMatMul(g);
    moveRowPermutationBeforeProduct(g);
    fuseResidualAdd(g);
    fuseSilu(g);
    fuseErfGelu(g);
    foldScalesIntoMatMul(g);
    moveBatchScaleToOperand(g);
    foldViewsIntoMatMul(g);
    foldTransposesIntoMatMulOutput(g);
    fuseResidualAddInto(g, [&](const Node& n) { return storesLinearTransposed(g, n); });
    foldViewsIntoConcat(g);
    // Activations on either side of a DepthToSpace: Conv -> Clip -> DepthToSpace (the
    // upscaler's head) takes its Clip before the shuffle, Conv -> DepthToSpace -> Sigmoid its
    // Sigmoid after it.
    fuseActivations(g);
    fuseDepthToSpace(g);
    fuseActivations(g);
    foldTransposesIntoConvOutput(g);
    removeDeadNodes(g);
    sortTopologically(g);  // a fused residual may come from a node listed after its reader
}

}  // namespace vkinfer::passes
