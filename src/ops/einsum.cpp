// Einsum (opset 12): sums of products over labelled axes (ops/einsum_equation.h resolves the
// equation). On the GPU it lowers to the kernels that already do the work: one operand is a
// strided reduction (reduce.comp) or, with nothing summed, a strided copy (a transpose or a
// diagonal); two operands are one GEMM (gemm.comp, or the tensor cores in float16) that reads
// them through strides, their labels grouped as batch (in both and the output), rows (the
// first's), columns (the second's) and summed (in both, not the output); labels only one
// operand has and the output lacks are summed away first. Where strides cannot express the
// product (labels of a group that are not contiguous together), the operands are copied into
// that grouping first. Three or more operands multiply left to right, each intermediate
// keeping the labels still needed. The CPU reference sums in double over every label.
#include <algorithm>
#include <optional>

#include "ops/broadcast.h"
#include "ops/cpu_copy.h"
#include "ops/einsum_equation.h"
#include "ops/emit.h"
#include "ops/gemm/emit_gemm.h"
#include "ops/node_checks.h"
#include "ops/reduce.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

bool has(const std::vector<int>& labels, int l) { return std::find(labels.begin(), labels.end(), l) != labels.end(); }

EinsumSpec specOf(const Node& n, const std::vector<Shape>& shapes) {
    return resolveEinsum(n, n.attrString("equation", ""), shapes);
}

std::vector<Shape> inputShapes(const Graph& g, const Node& n) {
    std::vector<Shape> shapes;
    for (size_t i = 0; i < n.inputs.size(); ++i) shapes.push_back(inputShape(g, n, i));
    return shapes;
}

void inferEinsum(Graph& g, const Node& n) {
    if (n.inputs.empty()) shapeError(n, "Einsum needs at least one input");
    const DataType type = inputValue(g, n, 0).dtype;
    for (size_t i = 1; i < n.inputs.size(); ++i)
        if (inputValue(g, n, i).dtype != type)
            shapeError(n, "input {} is {} where input 0 is {}", i, dataTypeName(inputValue(g, n, i).dtype), dataTypeName(type));
    if (type == DataType::Bool || dataTypeSize(type) == 0)
        unsupported(n, "Einsum of {} tensors is not defined by ONNX", dataTypeName(type));
    const std::vector<Shape> shapes = inputShapes(g, n);
    const Shape out = specOf(n, shapes).outputShape();
    setOutput(g, n, 0, type, out);
    // A sum over an empty label is zero everywhere: a constant, so no kernel binds an empty input.
    const bool emptyInput = std::any_of(shapes.begin(), shapes.end(), [](const Shape& s) { return elementCount(s) == 0; });
    if (emptyInput && elementCount(out) > 0) g.values[n.outputs[0]].constant = Tensor(type, out);
}

// Folding work: one product per combination of every label's value.
int64_t einsumFoldWork(const Graph& g, const Node& n) {
    int64_t work = 1;
    for (int64_t size : specOf(n, inputShapes(g, n)).sizes) work = mulSaturated(work, size);
    return work;
}

// Wrapping integer arithmetic (as the other integer references), double for floats.
template <class T>
using Acc = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;

void evalEinsum(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    std::vector<Shape> shapes;
    std::vector<Tensor> xs;
    for (const Tensor* t : in) {
        shapes.push_back(t->shape());
        xs.push_back(toFloat32(*t));
    }
    const EinsumSpec s = specOf(n, shapes);
    std::vector<std::vector<int64_t>> strides;
    for (size_t i = 0; i < shapes.size(); ++i) strides.push_back(einsumStrides(s, i, shapes[i]));
    std::vector<int> summed;
    for (int l = 0; l < static_cast<int>(s.sizes.size()); ++l)
        if (!has(s.output, l)) summed.push_back(l);
    const Shape outShape = s.outputShape();
    Shape sumShape;
    for (int l : summed) sumShape.push_back(s.sizes[static_cast<size_t>(l)]);
    const int64_t outCount = elementCount(outShape), sumCount = elementCount(sumShape);
    // Every label's size multiplied: the products this loop forms. Three operands of a thousand
    // elements can ask for 10^9 of them; the GPU multiplies pairwise instead. 2^28 takes about a
    // second here (and stays inside the fuzzer's timeout in its sanitized build).
    constexpr int64_t kMaxCpuProducts = int64_t{1} << 28;
    if (sumCount > 0 && outCount > kMaxCpuProducts / sumCount)
        unsupported(n, "evaluating it on the CPU would form {} x {} products, past the {} the reference allows (are its "
                       "inputs constant? the GPU runs it)",
                    outCount, sumCount, kMaxCpuProducts);
    Tensor y(xs[0].dtype(), outShape);
    const size_t k = xs.size();
    // Adds output index `index`'s offset in every operand to `off`.
    auto walkOutput = [&](int64_t index, std::vector<int64_t>& off) {
        for (size_t d = outShape.size(); d-- > 0;) {
            const int64_t i = index % outShape[d];
            index /= outShape[d];
            for (size_t o = 0; o < k; ++o) off[o] += i * strides[o][static_cast<size_t>(s.output[d])];
        }
    };
    visitType(n, xs[0].dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (!std::is_same_v<T, bool>) {
            T* py = y.as<T>();
            std::vector<int64_t> base(k), off(k), at(sumShape.size());
            std::vector<const T*> px;
            for (const Tensor& t : xs) px.push_back(t.as<T>());
            for (int64_t o = 0; o < outCount; ++o) {
                std::fill(base.begin(), base.end(), 0);
                walkOutput(o, base);
                Acc<T> acc = 0;
                // The summed labels as an odometer: the last one steps, carries reset.
                std::fill(at.begin(), at.end(), 0);
                off = base;
                for (int64_t r = 0; r < sumCount; ++r) {
                    Acc<T> product = 1;
                    for (size_t i = 0; i < k; ++i) product *= static_cast<Acc<T>>(px[i][off[i]]);
                    acc += product;
                    for (size_t d = sumShape.size(); d-- > 0;) {
                        const auto label = static_cast<size_t>(summed[d]);
                        if (++at[d] < sumShape[d]) {
                            for (size_t i = 0; i < k; ++i) off[i] += strides[i][label];
                            break;
                        }
                        at[d] = 0;
                        for (size_t i = 0; i < k; ++i) off[i] -= (sumShape[d] - 1) * strides[i][label];
                    }
                }
                py[o] = static_cast<T>(acc);
            }
        }
    });
    out[0] = narrowFromFloat32(y, in[0]->dtype());
}

// ---- Lowering ----

// A tensor on the GPU: a value read through per-label element strides (0 where it lacks the
// label or broadcasts it).
struct Operand {
    int value = -1;
    std::vector<int> labels;  // its distinct labels, in axis order
    std::vector<int64_t> stride;
};

Operand inputOperand(const EinsumSpec& s, size_t i, int value, const Shape& shape) {
    Operand o{value, {}, einsumStrides(s, i, shape)};
    for (int l : s.operands[i])
        if (!has(o.labels, l)) o.labels.push_back(l);
    return o;
}

// A row-major tensor with `labels` in that order (the output or a scratch value).
Operand contiguousOperand(const EinsumSpec& s, int value, const std::vector<int>& labels) {
    Operand o{value, labels, std::vector<int64_t>(s.sizes.size(), 0)};
    int64_t step = 1;
    for (size_t i = labels.size(); i-- > 0;) {
        o.stride[static_cast<size_t>(labels[i])] = step;
        step *= s.sizes[static_cast<size_t>(labels[i])];
    }
    return o;
}

Shape sizesOf(const EinsumSpec& s, const std::vector<int>& labels) {
    Shape dims;
    for (int l : labels) dims.push_back(s.sizes[static_cast<size_t>(l)]);
    return dims;
}

Operand scratchOperand(LowerContext& ctx, const Node& n, const EinsumSpec& s, const std::vector<int>& labels,
                       DataType type) {
    return contiguousOperand(s, ctx.addScratch(n.name + "_einsum", type, sizesOf(s, labels)), labels);
}

// `dst` (row-major, labels `keep` in order, all of them src's) = src summed over its other
// labels: a reduction, or a strided copy where nothing is summed.
void emitSum(LowerContext& ctx, const Node& n, const EinsumSpec& s, const Operand& src, const Operand& dst) {
    Shape kept, red;
    std::vector<int64_t> keptStride, redStride;
    for (int l : dst.labels) {
        kept.push_back(s.sizes[static_cast<size_t>(l)]);
        keptStride.push_back(src.stride[static_cast<size_t>(l)]);
    }
    for (int l : src.labels)
        if (!has(dst.labels, l)) {
            red.push_back(s.sizes[static_cast<size_t>(l)]);
            redStride.push_back(src.stride[static_cast<size_t>(l)]);
        }
    if (kept.empty()) kept.push_back(1), keptStride.push_back(0);  // a scalar
    if (!red.empty()) return emitStridedSum(ctx, n, src.value, dst.value, kept, keptStride, red, redStride);
    emitStridedCopy(ctx, n, src.value, dst.value, kept, keptStride, contiguousStrides(kept), 0, 0,
                    dataTypeSize(ctx.value(dst.value).dtype));
}

// Labels merged into runs that are contiguous together in each of a, b and y.
struct Run {
    int64_t size = 1;
    std::array<int64_t, 3> stride{};
};

std::vector<Run> runsOf(const EinsumSpec& s, const std::vector<int>& labels, const std::array<const Operand*, 3>& t) {
    std::vector<Run> runs;
    for (int l : labels) {
        const int64_t size = s.sizes[static_cast<size_t>(l)];
        if (size == 1) continue;
        Run r{size, {}};
        for (size_t k = 0; k < 3; ++k) r.stride[k] = t[k]->stride[static_cast<size_t>(l)];
        if (!runs.empty()) {
            Run& last = runs.back();
            bool merges = true;
            for (size_t k = 0; k < 3; ++k) merges = merges && last.stride[k] == r.stride[k] * size;
            if (merges) {
                last.size *= size;
                last.stride = r.stride;
                continue;
            }
        }
        runs.push_back(r);
    }
    return runs;
}

// The product as one GEMM through the tensors' strides, where one expresses it: the batch in
// at most two runs, rows, columns and the sum in one each, the columns contiguous in y.
std::optional<GemmProblem> gemmOf(const EinsumSpec& s, const Operand& a, const Operand& b, const Operand& y) {
    const EinsumGroups g = einsumGroups(a.labels, b.labels, y.labels);
    const std::array<const Operand*, 3> t{&a, &b, &y};
    std::vector<Run> batch = runsOf(s, g.batch, t), m = runsOf(s, g.rows, t), n = runsOf(s, g.cols, t),
                     k = runsOf(s, g.sum, t);
    if (batch.size() > 2 || m.size() > 1 || n.size() > 1 || k.size() > 1) return std::nullopt;
    if (!n.empty() && n[0].stride[2] != 1) return std::nullopt;
    while (batch.size() < 2) batch.insert(batch.begin(), Run{});
    const Run M = m.empty() ? Run{} : m[0], N = n.empty() ? Run{} : n[0], K = k.empty() ? Run{} : k[0];
    GemmProblem p;
    p.M = M.size, p.N = N.size, p.K = K.size;
    p.outer = batch[0].size, p.inner = batch[1].size;
    p.aOuter = batch[0].stride[0], p.aInner = batch[1].stride[0];
    p.bOuter = batch[0].stride[1], p.bInner = batch[1].stride[1];
    p.aM = M.stride[0], p.aK = K.stride[0], p.bK = K.stride[1], p.bN = N.stride[1];
    p.yOuter = batch[0].stride[2], p.yInner = batch[1].stride[2], p.yM = M.stride[2];
    return p;
}

std::vector<int> joined(std::initializer_list<const std::vector<int>*> parts) {
    std::vector<int> all;
    for (const auto* p : parts) all.insert(all.end(), p->begin(), p->end());
    return all;
}

// y = the product of a and b, summed over what they share and y lacks.
void emitProduct(LowerContext& ctx, const Node& n, const EinsumSpec& s, Operand a, Operand b, const Operand& y) {
    const DataType type = ctx.value(y.value).dtype;
    auto sumAway = [&](Operand& o, const Operand& other) {
        std::vector<int> keep;
        for (int l : o.labels)
            if (has(other.labels, l) || has(y.labels, l)) keep.push_back(l);
        if (keep.size() == o.labels.size()) return;
        Operand summed = scratchOperand(ctx, n, s, keep, type);
        emitSum(ctx, n, s, o, summed);
        o = summed;
    };
    sumAway(a, b);
    sumAway(b, a);
    // b x a where that stores y's columns contiguously and a x b does not (y's last labels are a's).
    for (bool swapped : {false, true})
        if (auto p = gemmOf(s, swapped ? b : a, swapped ? a : b, y)) {
            emitGemm(ctx, n, *p, swapped ? b.value : a.value, swapped ? a.value : b.value, -1, -1, y.value);
            return;
        }
    const EinsumGroups g = einsumGroups(a.labels, b.labels, y.labels);
    Operand ca = scratchOperand(ctx, n, s, joined({&g.batch, &g.rows, &g.sum}), type);
    Operand cb = scratchOperand(ctx, n, s, joined({&g.batch, &g.sum, &g.cols}), type);
    emitSum(ctx, n, s, a, ca);
    emitSum(ctx, n, s, b, cb);
    if (auto p = gemmOf(s, ca, cb, y)) return emitGemm(ctx, n, *p, ca.value, cb.value, -1, -1, y.value);
    Operand cy = scratchOperand(ctx, n, s, joined({&g.batch, &g.rows, &g.cols}), type);
    auto p = gemmOf(s, ca, cb, cy);
    if (!p) fail(ErrorCode::Internal, "{}: Einsum's canonical operands do not form a GEMM", n.describe());
    emitGemm(ctx, n, *p, ca.value, cb.value, -1, -1, cy.value);
    emitSum(ctx, n, s, cy, y);
}

void lowerEinsum(LowerContext& ctx, const Node& n) {
    const DataType type = ctx.value(n.outputs[0]).dtype;
    if (ctx.value(n.outputs[0]).elementCount() == 0) return;
    if (type != DataType::Float32 && type != DataType::Float16)
        unsupported(n, "Einsum of {} tensors runs on the CPU reference only (the GPU takes float32 and float16)",
                    dataTypeName(type));
    const std::vector<Shape> shapes = inputShapes(ctx.graph(), n);  // copies: addScratch grows the value table
    const EinsumSpec s = specOf(n, shapes);
    std::vector<Operand> operands;
    for (size_t i = 0; i < shapes.size(); ++i) operands.push_back(inputOperand(s, i, n.inputs[i], shapes[i]));
    const Operand out = contiguousOperand(s, n.outputs[0], s.output);
    if (operands.size() == 1) return emitSum(ctx, n, s, operands[0], out);
    Operand acc = operands[0];
    for (size_t i = 1; i < operands.size(); ++i) {
        if (i + 1 == operands.size()) return emitProduct(ctx, n, s, acc, operands[i], out);
        // An intermediate keeps the labels the output or a later operand still has.
        std::vector<int> keep;
        for (const Operand* o : {&acc, &operands[i]})
            for (int l : o->labels) {
                bool later = has(s.output, l);
                for (size_t j = i + 1; j < operands.size(); ++j) later = later || has(operands[j].labels, l);
                if (later && !has(keep, l)) keep.push_back(l);
            }
        Operand next = scratchOperand(ctx, n, s, keep, type);
        emitProduct(ctx, n, s, acc, operands[i], next);
        acc = next;
    }
}

}  // namespace

void registerEinsumOps(std::vector<OpDef>& t) {
    t.push_back(withFoldWork(withFp16({"Einsum", 12, 1000, inferEinsum, evalEinsum, lowerEinsum}), einsumFoldWork));
}

}  // namespace vkinfer::ops
