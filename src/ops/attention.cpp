// Fused attention (ops/attention.h): the layout's checks, shape inference, the CPU reference
// and the lowering to one shaders/attention.comp dispatch.
#include "ops/attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/families/attention.h"
#include "kernels/families/attention_cm.h"
#include "ops/attention_select.h"
#include "ops/cpu_copy.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

std::vector<int64_t> AttentionLayout::encode() const {
    std::vector<int64_t> r{S, L, D, DV, batchDims[0], batchDims[1], batchDims[2]};
    for (const auto& t : tensor) {
        r.push_back(t.offset);
        r.insert(r.end(), t.batch.begin(), t.batch.end());
        r.push_back(t.row);
        r.push_back(t.col);
    }
    return r;
}

namespace {

// The last element a tensor's strides reach over `rows` x `cols` per batch, or -1 for a
// negative stride or offset.
int64_t lastElement(const AttentionLayout& l, const AttentionStrides& t, int64_t rows, int64_t cols) {
    if (t.offset < 0 || t.row < 0 || t.col < 0) return -1;
    int64_t last = t.offset + (rows - 1) * t.row + (cols - 1) * t.col;
    for (int d = 0; d < kAttentionMaxBatchDims; ++d) {
        if (t.batch[d] < 0) return -1;
        last += (l.batchDims[d] - 1) * t.batch[d];
    }
    return last;
}

}  // namespace

AttentionLayout attentionLayoutOf(const Node& n, const std::vector<Shape>& inputShapes, const Shape& outputShape) {
    const auto code = n.attrInts("layout");
    if (code.size() != kAttentionLayoutSize) shapeError(n, "malformed attention layout ({} numbers)", code.size());
    AttentionLayout l;
    l.S = code[0], l.L = code[1], l.D = code[2], l.DV = code[3];
    for (int d = 0; d < kAttentionMaxBatchDims; ++d) l.batchDims[d] = code[4 + d];
    for (size_t t = 0; t < l.tensor.size(); ++t) {
        const int64_t* c = &code[7 + 6 * t];
        l.tensor[t].offset = c[0];
        for (int d = 0; d < kAttentionMaxBatchDims; ++d) l.tensor[t].batch[d] = c[1 + d];
        l.tensor[t].row = c[4];
        l.tensor[t].col = c[5];
    }
    for (int64_t v : {l.S, l.L, l.batchDims[0], l.batchDims[1], l.batchDims[2]})
        checkGeometry(n, "attention size", {v}, 1);
    checkGeometry(n, "attention head dimension", {l.D, l.DV}, 1);
    if (l.D > kAttentionMaxHeadDim || l.DV > kAttentionMaxHeadDim)
        unsupported(n, "head dimensions {} and {} (at most {})", l.D, l.DV, kAttentionMaxHeadDim);
    const size_t biases = inputShapes.size() < 3 ? 0 : inputShapes.size() - 3;
    if (inputShapes.size() < 3 || biases > kAttentionMaxBiases)
        shapeError(n, "attention takes q, k, v and at most {} added tensors, got {} inputs", kAttentionMaxBiases,
                   inputShapes.size());
    // Every tensor's reach, in elements of the stored tensor: q [S, D], k and v [L, D or DV],
    // y [S, DV], a and c [S, L] per batch.
    struct Reach {
        AttentionLayout::Tensor t;
        const Shape* stored;
        int64_t rows, cols;
    };
    std::vector<Reach> reach{{AttentionLayout::Q, &inputShapes[0], l.S, l.D},
                             {AttentionLayout::K, &inputShapes[1], l.L, l.D},
                             {AttentionLayout::V, &inputShapes[2], l.L, l.DV},
                             {AttentionLayout::Y, &outputShape, l.S, l.DV}};
    for (size_t b = 0; b < biases; ++b)
        reach.push_back({b == 0 ? AttentionLayout::A : AttentionLayout::C, &inputShapes[3 + b], l.S, l.L});
    for (const auto& r : reach) {
        const auto& t = l.tensor[r.t];
        const int64_t last = lastElement(l, t, r.rows, r.cols);
        if (last < 0 || last >= elementCount(*r.stored) || last > std::numeric_limits<uint32_t>::max())
            shapeError(n, "attention tensor {} reaches outside its {} elements", static_cast<int>(r.t),
                       elementCount(*r.stored));
    }
    if (elementCount(outputShape) != l.batches() * l.S * l.DV)
        shapeError(n, "the output of shape {} does not hold {} batches of {} x {}", shapeToString(outputShape),
                   l.batches(), l.S, l.DV);
    return l;
}

namespace {

std::vector<Shape> inputShapesOf(const Graph& g, const Node& n) {
    std::vector<Shape> s;
    for (size_t i = 0; i < n.inputs.size(); ++i) s.push_back(inputShape(g, n, i));
    return s;
}

void inferAttention(Graph& g, const Node& n) {
    for (size_t i = 0; i < n.inputs.size(); ++i) {
        const auto& v = inputValue(g, n, i);
        if (v.dtype != DataType::Float32 && v.dtype != DataType::Float16)
            unsupported(n, "attention reads float tensors only, got {}", dataTypeName(v.dtype));
        if (v.dtype != inputValue(g, n, 0).dtype) shapeError(n, "input types differ");
    }
    const Shape out = n.attrInts("output_shape");
    attentionLayoutOf(n, inputShapesOf(g, n), out);
    setOutput(g, n, 0, inputValue(g, n, 0).dtype, out);
}

// The reference: per batch and query row, the scores in double, the softmax as Softmax
// computes it (max subtracted), the weighted sum of v.
void evalAttention(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    std::vector<Shape> shapes;
    std::vector<Tensor> x;
    for (const Tensor* t : in) {
        shapes.push_back(t->shape());
        x.push_back(toFloat32(*t));
    }
    const AttentionLayout l = attentionLayoutOf(n, shapes, out[0].shape());
    const float scale = n.attrFloat("scale", 1.0f);
    const size_t biases = in.size() - 3;
    Tensor y(DataType::Float32, out[0].shape());
    std::vector<double> p(static_cast<size_t>(l.L));
    auto base = [&](AttentionLayout::Tensor t, const std::array<int64_t, 3>& b) {
        const auto& s = l.tensor[t];
        return s.offset + b[0] * s.batch[0] + b[1] * s.batch[1] + b[2] * s.batch[2];
    };
    const float* q = x[0].as<float>();
    const float* k = x[1].as<float>();
    const float* v = x[2].as<float>();
    float* yo = y.as<float>();
    const auto& T = l.tensor;
    for (int64_t b0 = 0; b0 < l.batchDims[0]; ++b0)
        for (int64_t b1 = 0; b1 < l.batchDims[1]; ++b1)
            for (int64_t b2 = 0; b2 < l.batchDims[2]; ++b2) {
                const std::array<int64_t, 3> b{b0, b1, b2};
                for (int64_t s = 0; s < l.S; ++s) {
                    double m = -std::numeric_limits<double>::infinity();
                    for (int64_t key = 0; key < l.L; ++key) {
                        // The product in float, as the unfused MatMul computes it.
                        float dot = 0;
                        for (int64_t d = 0; d < l.D; ++d)
                            dot += q[base(AttentionLayout::Q, b) + s * T[0].row + d * T[0].col] *
                                   k[base(AttentionLayout::K, b) + key * T[1].row + d * T[1].col];
                        double score = static_cast<double>(dot * scale);
                        for (size_t j = 0; j < biases; ++j) {
                            const auto t = j == 0 ? AttentionLayout::A : AttentionLayout::C;
                            score += x[3 + j].as<float>()[base(t, b) + s * T[t].row + key * T[t].col];
                        }
                        p[static_cast<size_t>(key)] = score;
                        m = std::max(m, score);
                    }
                    double sum = 0;
                    for (double& e : p) sum += (e = std::exp(e - m));
                    for (int64_t c = 0; c < l.DV; ++c) {
                        double acc = 0;
                        for (int64_t key = 0; key < l.L; ++key)
                            acc += p[static_cast<size_t>(key)] *
                                   v[base(AttentionLayout::V, b) + key * T[2].row + c * T[2].col];
                        yo[base(AttentionLayout::Y, b) + s * T[3].row + c * T[3].col] = static_cast<float>(acc / sum);
                    }
                }
            }
    out[0] = narrowFromFloat32(y, out[0].dtype());
}

uint32_t u32Of(int64_t v) { return static_cast<uint32_t>(v); }

// The problem's specialization constants, shared by both kernels (shaders/kernels/attention.toml;
// attention_cm.toml takes them with spec_from).
void setProblemSpecs(Dispatch& d, const Node& n, const AttentionLayout& l, size_t biases) {
    using namespace kernels::attention;
    d.setSpec(kS, u32Of(l.S));
    d.setSpec(kL, u32Of(l.L));
    d.setSpec(kD, u32Of(l.D));
    d.setSpec(kDv, u32Of(l.DV));
    d.setSpec(kNb0, u32Of(l.batchDims[0]));
    d.setSpec(kNb1, u32Of(l.batchDims[1]));
    d.setSpec(kNb2, u32Of(l.batchDims[2]));
    d.setSpec(kNumBias, static_cast<uint32_t>(biases));
    float scale = n.attrFloat("scale", 1.0f);
    uint32_t scaleBits;
    std::memcpy(&scaleBits, &scale, 4);
    d.setSpec(kScale, scaleBits);
    // Q_OFF .. C_COL: six numbers per tensor, in AttentionLayout's order.
    uint32_t id = kQOff;
    for (const auto& s : l.tensor) {
        d.setSpec(id++, u32Of(s.offset));
        for (int64_t b : s.batch) d.setSpec(id++, u32Of(b));
        d.setSpec(id++, u32Of(s.row));
        d.setSpec(id++, u32Of(s.col));
    }
}

kernels::KernelId coopmatKernel(const AttentionChoice& c, const KernelTarget& t) {
    namespace k = kernels::attention_cm;
    return k::variant(coopmatAttentionDv(c.outChunks), t.emulateCooperativeMatrix ? k::Mode::emu : k::Mode::nv);
}

void lowerAttention(LowerContext& ctx, const Node& n) {
    using namespace kernels::attention;
    const DataType type = floatKernelType(ctx, n, n.inputs[0], {n.inputs[1], n.inputs[2], n.input(3), n.input(4)});
    std::vector<Shape> shapes;
    for (int v : n.inputs) shapes.push_back(ctx.value(v).shape);
    const AttentionLayout l = attentionLayoutOf(n, shapes, ctx.value(n.outputs[0]).shape);
    if (ctx.value(n.outputs[0]).dtype != type) unsupported(n, "its output must be {}", dataTypeName(type));
    const AttentionChoice choice = selectAttention(l, type, ctx.target());
    const int64_t rowsPerGroup = choice.coopmat ? 16 * static_cast<int64_t>(choice.warps) : BR;
    const int64_t rowBlocks = (l.S + rowsPerGroup - 1) / rowsPerGroup;
    if (rowBlocks > 65535 || l.batches() > 65535)
        unsupported(n, "{} row blocks of {} batches (at most 65535 each)", rowBlocks, l.batches());
    Dispatch& d = ctx.emit(choice.coopmat ? coopmatKernel(choice, ctx.target())
                                          : typedKernel(n, variant(type), "attention", type));
    const size_t biases = n.inputs.size() - 3;
    setProblemSpecs(d, n, l, biases);
    if (choice.coopmat) {
        d.localSize = {32 * choice.warps * choice.keySplit, 1, 1};
        d.setSpec(kernels::attention_cm::kWarps, choice.warps);
        d.setSpec(kernels::attention_cm::kKsplit, choice.keySplit);
        d.setSpec(kernels::attention_cm::kDp, choice.paddedD);
        d.setSpec(kernels::attention_cm::kKWords, choice.kWords ? 1 : 0);
        d.setSpec(kernels::attention_cm::kVWords, choice.vWords ? 1 : 0);
    } else {
        d.localSize = {static_cast<uint32_t>(BR * LANES), 1, 1};
        d.setSpec(kBc, choice.portableKeyBlock);
        Push p{};
        p.rowBlocks = u32Of(rowBlocks);
        d.setPush(p);
    }
    d.groups = {u32Of(rowBlocks), u32Of(l.batches()), 1};
    d.bindings.push_back(writeOf(n.outputs[0]));
    for (size_t i = 0; i < 3; ++i) d.bindings.push_back(readOf(n.inputs[i]));
    // Unused bias bindings read q (the kernel never loads them: NUM_BIAS).
    for (size_t j = 0; j < kAttentionMaxBiases; ++j) d.bindings.push_back(readOf(n.inputs[j < biases ? 3 + j : 0]));
}

}  // namespace

void registerAttentionOps(std::vector<OpDef>& t) {
    t.push_back(withFp16({kAttentionOpType, 1, 1000, inferAttention, evalAttention, lowerAttention}));
}

}  // namespace vkinfer::ops
