// Gemm (transA/transB, alpha, beta, broadcast C) and MatMul (NumPy semantics: 1-D operands,
// broadcast batch dimensions).
#include <algorithm>

#include "kernels/families/gemm_splitk_reduce.h"
#include "ops/activation.h"
#include "ops/gemm/emit_gemm.h"
#include "ops/gemm/matmul.h"
#include "ops/gemm/select.h"
#include "ops/broadcast.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/siblings.h"
#include "ops/strided_view.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

// `r`: a residual of the output's shape added before the activation, or null.
void runGemmCpu(const GemmProblem& p, const float* a, const float* b, const float* c, const float* r, float* y,
                const graph::Activation& act) {
    for (int64_t b1 = 0; b1 < p.outer; ++b1)
        for (int64_t b2 = 0; b2 < p.inner; ++b2) {
            const float* A = a + p.aOffset + b1 * p.aOuter + b2 * p.aInner;
            const float* B = b + p.bOffset + b1 * p.bOuter + b2 * p.bInner;
            for (int64_t m = 0; m < p.M; ++m)
                for (int64_t n = 0; n < p.N; ++n) {
                    double acc = 0;
                    for (int64_t k = 0; k < p.K; ++k) acc += static_cast<double>(A[m * p.aM + k * p.aK]) * B[k * p.bK + n * p.bN];
                    double v = p.alpha * acc;
                    if (p.hasC) v += p.beta * c[m * p.cM + n * p.cN];
                    const int64_t o = b1 * p.yOuter + b2 * p.yInner + m * p.yM + n * p.yN;
                    if (r) v += r[o];
                    y[o] = applyActivation(act, static_cast<float>(v));
                }
        }
}

// Epilogue of the kernels' variants: with C, with the residual `r`, both or neither.
template <typename Epilogue>
Epilogue epilogueOf(bool hasC, bool hasR) {
    return hasC && hasR ? Epilogue::c_r : hasC ? Epilogue::c : hasR ? Epilogue::r : Epilogue::none;
}

}  // namespace

void emitGemm(LowerContext& ctx, const Node& n, const GemmProblem& p, int a, int b, int c, int r, int y) {
    const int64_t batches = p.outer * p.inner;
    requireIndexable(n, batches * p.M * p.N);
    // float32, or float16 throughout.
    const DataType type = floatKernelType(ctx, n, a, {b, p.hasC ? c : -1, r, y});
    const GemmChoice choice = selectGemm(p, type, hasParallelSiblings(ctx, n, a), ctx.target());
    const bool coopmat = choice.kernel == GemmKernel::Coopmat;
    const uint32_t bm = static_cast<uint32_t>(choice.bm), bn = static_cast<uint32_t>(choice.bn);
    // The tile grid has no 65535-group spill: refuse rather than exceed the guaranteed
    // maxComputeWorkGroupCount.
    if ((p.N + bn - 1) / bn > 65535 || (p.M + bm - 1) / bm > 65535)
        unsupported(n, "a {}x{} product exceeds the GEMM kernel's workgroup grid", p.M, p.N);
    if (batches > 65535) unsupported(n, "{} batched matrix products exceed the dispatch limit", batches);
    const int64_t splits = choice.splits, kChunk = choice.kChunk;
    const int partial = splits > 1 ? ctx.addScratch(n.name + "_splitk", DataType::Float32, {splits, batches, p.M, p.N}) : -1;
    Dispatch* dp;
    if (coopmat) {
        namespace k = kernels::gemm_cm;
        const k::Loads loads = choice.kSlice == 128             ? k::Loads::clamped_k128
                               : choice.kSlice == 64            ? k::Loads::clamped_k64
                               : choice.clampedLoads            ? k::Loads::clamped
                               : choice.wordsA && choice.wordsB ? k::Loads::va_vb
                               : choice.wordsA                  ? k::Loads::va
                               : choice.wordsB                  ? k::Loads::vb
                                                                : k::Loads::none;
        const k::Epilogue epilogue = splits > 1 ? k::Epilogue::splitk : epilogueOf<k::Epilogue>(p.hasC, r >= 0);
        dp = &ctx.emit(k::variant(choice.coopmatTile, loads, epilogue,
                                  ctx.target().emulateCooperativeMatrix ? k::Mode::emu : k::Mode::nv));
        dp->localSize = {static_cast<uint32_t>(32 * coopmatGemmWarps(choice.coopmatTile)), 1, 1};
    } else {
        namespace k = kernels::gemm;
        const k::Epilogue epilogue = splits > 1 ? k::Epilogue::splitk : epilogueOf<k::Epilogue>(p.hasC, r >= 0);
        dp = &ctx.emit(typedKernel(n, k::variant(choice.portableTile, epilogue, type), "gemm", type));
        const k::TileValue& v = k::kTileValues[static_cast<size_t>(choice.portableTile)];
        dp->localSize = {static_cast<uint32_t>(v.WN), static_cast<uint32_t>(v.WM), 1};
    }
    Dispatch& d = *dp;
    setActivation(d, n.activation);
    d.groups = {ceilDiv(p.N, bn), ceilDiv(p.M, bm), static_cast<uint32_t>(batches * splits)};
    auto u = [](int64_t v) { return static_cast<uint32_t>(v); };
    // (gemm_cm's block is gemm's: gemm_cm.toml push_from.)
    d.setPush(kernels::gemm::Push{u(p.M), u(p.N), u(p.K), u(p.inner), u(p.aOuter), u(p.aInner), u(p.bOuter),
                                  u(p.bInner), u(p.aM), u(p.aK), u(p.bK), u(p.bN), u(p.cM), u(p.cN), p.alpha, p.beta,
                                  u(kChunk), u(batches), u(p.aOffset), u(p.bOffset), u(p.yOuter), u(p.yInner),
                                  u(p.yM), u(p.yN)});
    d.bindings = {writeOf(partial >= 0 ? partial : y), readOf(a), readOf(b)};
    if (partial < 0) {
        if (p.hasC) d.bindings.push_back(readOf(c));
        if (r >= 0) d.bindings.push_back(readOf(r));
        return;
    }
    requireIndexable(n, splits * batches * p.M * p.N);
    namespace kr = kernels::gemm_splitk_reduce;
    Dispatch& red = ctx.emit(typedKernel(n, kr::variant(epilogueOf<kr::Epilogue>(p.hasC, r >= 0), type),
                                         "gemm_splitk_reduce", type));
    setActivation(red, n.activation);
    red.setPush(kr::Push{u(batches * p.M * p.N), u(p.M), u(p.N), u(splits), u(p.cM), u(p.cN), p.alpha, p.beta,
                         u(p.inner), u(p.yOuter), u(p.yInner), u(p.yM), u(p.yN)});
    setLaunch1d(red, batches * p.M * p.N);
    red.bindings = {writeOf(y), readOf(partial)};
    if (p.hasC) red.bindings.push_back(readOf(c));
    if (r >= 0) red.bindings.push_back(readOf(r));
}

namespace {

// ---- Gemm ----

GemmProblem gemmProblem(const Node& n, const Shape& a, const Shape& b, const Shape* c) {
    requireRank(n, a, 2, "A");
    requireRank(n, b, 2, "B");
    bool ta = n.attrInt("transA", 0) != 0, tb = n.attrInt("transB", 0) != 0;
    GemmProblem p;
    p.M = ta ? a[1] : a[0];
    p.K = ta ? a[0] : a[1];
    int64_t kb = tb ? b[1] : b[0];
    p.N = tb ? b[0] : b[1];
    if (kb != p.K) shapeError(n, "inner dimensions differ: A {} and B {}", shapeToString(a), shapeToString(b));
    p.aM = ta ? 1 : a[1];
    p.aK = ta ? a[1] : 1;
    p.bK = tb ? 1 : b[1];
    p.bN = tb ? b[1] : 1;
    p.alpha = n.attrFloat("alpha", 1.0f);
    p.beta = n.attrFloat("beta", 1.0f);
    if (c) {
        Shape out{p.M, p.N};
        if (broadcastShapes(n, *c, out) != out)
            shapeError(n, "C of shape {} does not broadcast to {}", shapeToString(*c), shapeToString(out));
        auto st = broadcastStrides(*c, out);
        p.cM = st[0];
        p.cN = st[1];
        p.hasC = true;
    }
    p.storeRowMajor();
    return p;
}

void inferGemm(Graph& g, const Node& n) {
    requireFloat(g, n, 0);
    requireFloat(g, n, 1);
    const Shape* c = n.input(2) >= 0 ? &inputShape(g, n, 2) : nullptr;
    GemmProblem p = gemmProblem(n, inputShape(g, n, 0), inputShape(g, n, 1), c);
    setOutput(g, n, 0, DataType::Float32, {p.M, p.N});
}

// Folding work: each output sums K products.
int64_t gemmFoldWork(const Graph& g, const Node& n) {
    const Shape& a = inputShape(g, n, 0);
    const int64_t K = n.attrInt("transA", 0) != 0 ? a.at(0) : a.at(1);
    return mulSaturated(g.values[n.outputs[0]].elementCount(), K);
}

int64_t matMulFoldWork(const Graph& g, const Node& n) {
    return mulSaturated(g.values[n.outputs[0]].elementCount(), inputShape(g, n, 0).back());
}

// A fused residual (input 3), or null.
const float* residualOf(std::span<const Tensor* const> in) { return in.size() > 3 && in[3] ? in[3]->as<float>() : nullptr; }

void evalGemm(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const Tensor* c = in.size() > 2 ? in[2] : nullptr;
    GemmProblem p = gemmProblem(n, in[0]->shape(), in[1]->shape(), c ? &c->shape() : nullptr);
    runGemmCpu(p, in[0]->as<float>(), in[1]->as<float>(), c ? c->as<float>() : nullptr, residualOf(in),
               out[0].as<float>(), n.activation);
}

void lowerGemm(LowerContext& ctx, const Node& n) {
    int c = n.input(2);
    GemmProblem p = gemmProblem(n, ctx.value(n.inputs[0]).shape, ctx.value(n.inputs[1]).shape,
                                c >= 0 ? &ctx.value(c).shape : nullptr);
    if (p.beta == 0.0f) p.hasC = false;
    emitGemm(ctx, n, p, n.inputs[0], n.inputs[1], c, n.input(3), n.outputs[0]);
}

// ---- MatMul ----

struct MatMulShapes {
    GemmProblem p;
    Shape out;
};

// An operand: input `stored` as it is, or the window of it that passes/fusion.cpp folded into
// the product (Node::inputViews: a Slice, Reshape or Transpose read through strides).
using Operand = graph::StridedView;

Operand operandOf(const Node& n, const Shape& stored, const graph::StridedView& view) {
    if (view.empty()) return {0, stored, contiguousStrides(stored)};
    int64_t elements = 1;
    for (int64_t d : stored) elements *= d;
    if (!viewFits(view, elements))
        shapeError(n, "the operand's folded view {} reaches outside its input of shape {}", shapeToString(view.shape),
                   shapeToString(stored));
    return view;
}

// Batch strides of an operand's batch dims broadcast to `batch` (0 along broadcast dims).
std::vector<int64_t> batchStrides(const Operand& o, size_t batchDims, const Shape& batch) {
    std::vector<int64_t> st(batch.size(), 0);
    const size_t off = batch.size() - batchDims;
    for (size_t i = 0; i < batchDims; ++i) st[off + i] = o.shape[i] == 1 ? 0 : o.stride[i];
    return st;
}

MatMulShapes matMulProblem(const Node& n, const Shape& storedA, const Shape& storedB) {
    if (storedA.empty() || storedB.empty()) shapeError(n, "MatMul operands must have rank >= 1");
    Operand a = operandOf(n, storedA, n.inputView(0)), b = operandOf(n, storedB, n.inputView(1));
    bool aVec = a.shape.size() == 1, bVec = b.shape.size() == 1;
    if (aVec) {
        a.shape.insert(a.shape.begin(), 1);
        a.stride.insert(a.stride.begin(), 0);
    }
    if (bVec) {
        b.shape.push_back(1);
        b.stride.push_back(0);
    }
    MatMulShapes r;
    GemmProblem& p = r.p;
    const size_t ra = a.shape.size(), rb = b.shape.size();
    p.M = a.shape[ra - 2];
    p.K = a.shape[ra - 1];
    p.N = b.shape[rb - 1];
    if (b.shape[rb - 2] != p.K)
        shapeError(n, "inner dimensions differ: {} and {}", shapeToString(a.shape), shapeToString(b.shape));
    Shape ba(a.shape.begin(), a.shape.end() - 2), bb(b.shape.begin(), b.shape.end() - 2);
    Shape batch = broadcastShapes(n, ba, bb);
    auto sa = batchStrides(a, ra - 2, batch), sb = batchStrides(b, rb - 2, batch);
    // The output: the product [batch..., M, N] row-major, or stored transposed.
    Shape product = batch;
    product.push_back(p.M);
    product.push_back(p.N);
    std::vector<int64_t> productStride = contiguousStrides(product);
    r.out = batch;
    if (!aVec) r.out.push_back(p.M);
    if (!bVec) r.out.push_back(p.N);
    if (!n.outputPerm.empty()) {
        const auto& perm = n.outputPerm;
        std::vector<int64_t> sorted = perm;
        std::sort(sorted.begin(), sorted.end());
        for (size_t d = 0; d < sorted.size(); ++d)
            if (sorted[d] != static_cast<int64_t>(d)) shapeError(n, "the folded output permutation is not one");
        if (aVec || bVec || perm.size() != product.size())
            unsupported(n, "a folded output permutation of a matrix-vector product");
        r.out.clear();
        for (int64_t d : perm) r.out.push_back(product.at(static_cast<size_t>(d)));
        const auto outStride = contiguousStrides(r.out);
        for (size_t j = 0; j < perm.size(); ++j) productStride[perm[j]] = outStride[j];
    }
    Shape dims = batch;
    std::vector<int64_t> so(productStride.begin(), productStride.end() - 2);
    collapseDims(dims, {&so, &sa, &sb});
    if (dims.size() > 2) unsupported(n, "more than two non-mergeable broadcast batch dimensions");
    if (dims.size() == 2) {
        p.outer = dims[0];
        p.inner = dims[1];
        p.aOuter = sa[0];
        p.bOuter = sb[0];
        p.aInner = sa[1];
        p.bInner = sb[1];
        p.yOuter = so[0];
        p.yInner = so[1];
    } else {
        p.inner = dims[0];
        p.aInner = sa[0];
        p.bInner = sb[0];
        p.yInner = so[0];
    }
    p.aM = a.stride[ra - 2];
    p.aK = a.stride[ra - 1];
    p.bK = b.stride[rb - 2];
    p.bN = b.stride[rb - 1];
    p.aOffset = a.offset;
    p.bOffset = b.offset;
    p.yM = productStride[productStride.size() - 2];
    p.yN = productStride.back();
    p.alpha = n.matMulScale;
    // One weight for every batch ([S, 1, E] x [E, N] as PyTorch's sequence-first attention
    // writes it, or batch 8 of [S, E] rows) and A's batches stacked row after row: one GEMM of
    // batches x M rows instead of many thin ones, so the tiles fill. (A single row's stride
    // is free: the batch stride becomes it.)
    // The inner of two batch dimensions too: ConvNeXt-T at batch 8 multiplies [8, 7, 7, C]
    // rows, stored channels-first: 8 products of 49 rows, not 56 of 7.
    if (p.inner > 1 && p.bInner == 0 && (p.M == 1 || (p.aInner == p.M * p.aM && p.yInner == p.M * p.yM))) {
        if (p.M == 1) p.aM = p.aInner, p.yM = p.yInner;
        p.M *= p.inner;
        p.inner = p.outer, p.aInner = p.aOuter, p.bInner = p.bOuter, p.yInner = p.yOuter;
        p.outer = 1, p.aOuter = 0, p.bOuter = 0, p.yOuter = 0;
    }
    // One weight for every batch, the batches not stacked row after row: rows and batches
    // trade places where that makes the products taller, since every batch multiplies the same
    // B. ViT-B/16 at batch 8 reads its sequence-first [197, 8, 768] through a transposing view:
    // 197 products of 8 rows (the thin portable tile: 0.75 ms each on the H100, two thirds of
    // the model's time, run 62) become 8 of 197.
    if (dims.size() == 1 && p.inner > p.M && p.bInner == 0) {
        std::swap(p.M, p.inner);
        std::swap(p.aM, p.aInner);
        std::swap(p.yM, p.yInner);
    }
    return r;
}

void inferMatMul(Graph& g, const Node& n) {
    requireFloat(g, n, 0);
    requireFloat(g, n, 1);
    setOutput(g, n, 0, DataType::Float32, matMulProblem(n, inputShape(g, n, 0), inputShape(g, n, 1)).out);
}

// A bias that passes::fuseMatMulBias made the third input: one value per column, the same
// for every row and batch (the GEMM's C with strides 0 and 1).
void addBias(GemmProblem& p) {
    p.hasC = true;
    p.beta = 1.0f;
    p.cM = 0;
    p.cN = 1;
}

void evalMatMul(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    GemmProblem p = matMulProblem(n, in[0]->shape(), in[1]->shape()).p;
    const Tensor* bias = in.size() > 2 ? in[2] : nullptr;
    if (bias) addBias(p);
    runGemmCpu(p, in[0]->as<float>(), in[1]->as<float>(), bias ? bias->as<float>() : nullptr, residualOf(in),
               out[0].as<float>(), n.activation);
}

void lowerMatMul(LowerContext& ctx, const Node& n) {
    GemmProblem p = matMulProblem(n, ctx.value(n.inputs[0]).shape, ctx.value(n.inputs[1]).shape).p;
    if (n.input(2) >= 0) addBias(p);
    emitGemm(ctx, n, p, n.inputs[0], n.inputs[1], n.input(2), n.input(3), n.outputs[0]);
}

}  // namespace

graph::Shape matMulOutputShape(const graph::Node& n, const graph::Shape& a, const graph::Shape& b) {
    return matMulProblem(n, a, b).out;
}

void registerGemmOps(std::vector<OpDef>& t) {
    t.push_back(withFoldWork(withFp16({"Gemm", 7, 1000, inferGemm, evalGemm, lowerGemm}), gemmFoldWork));
    t.push_back(withFoldWork(withFp16({"MatMul", 1, 1000, inferMatMul, evalMatMul, lowerMatMul}), matMulFoldWork));
}

}  // namespace vkinfer::ops
