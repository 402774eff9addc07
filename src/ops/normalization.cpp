// LayerNormalization (opset 17: axis, epsilon, optional bias, optional Mean and InvStdDev
// outputs), InstanceNormalization and GroupNormalization (opset 18: scale and bias per group;
// 21: per channel) and vkinfer.ChannelNorm / vkinfer.GroupNorm (ops/normalization.h), all on
// shaders/norm.comp: rows of elements (contiguous, or strided over the channels) normalized in
// float32; and BatchNormalization (inference, and training mode's
// batch statistics with running-statistics outputs). passes/fusion folds a BatchNormalization
// with constant statistics into the Conv before it.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/families/batchnorm.h"
#include "kernels/families/batchnorm_stats.h"
#include "kernels/families/channel_affine.h"
#include "kernels/families/norm.h"
#include "kernels/families/norm_split.h"
#include "ops/activation.h"
#include "ops/broadcast.h"
#include "ops/cpu_copy.h"
#include "ops/emit.h"
#include "ops/normalization.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

// rows x len. Element j of row r is at (r / rowsPerImage) * len * stride + r % rowsPerImage
// + j * stride: contiguous rows (stride 1, rowsPerImage 1) but for the channel norm. Layer:
// len = the product of the dims from `axis` on. Instance: rows = N * C, len = the spatial
// size. Group: rows = N * G, len = C / G channels of the spatial size (`inner`). Channel:
// rows = N * spatial size, len = C, stride = rowsPerImage = the spatial size. `affine` says
// which scale and bias an element takes (AFFINE in shaders/norm.comp): 0 its index in the
// row, 1 row % C (instance; groups with per-group parameters, opset 18), 2 its channel
// (groups, opset 21).
struct NormLayout {
    int64_t rows = 1, len = 1, C = 1, inner = 1;
    int64_t stride = 1, rowsPerImage = 1;
    int64_t axis = 0;
    uint32_t affine = 0;
    int64_t params = 0;  // elements scale and bias must have (0: the normalized shape's)
};

bool isLayer(const Node& n) { return n.opType == "LayerNormalization"; }
bool isGroup(const Node& n) { return n.opType == "GroupNormalization" || n.opType == kGroupNormOpType; }
bool isChannel(const Node& n) { return n.opType == kChannelNormOpType; }

// `scaleElements`: the scale's element count, which tells GroupNormalization's per-group
// parameters (opset 18) from per-channel ones (opset 21) without the opset.
NormLayout normLayout(const Node& n, const Shape& x, int64_t scaleElements) {
    int64_t rank = static_cast<int64_t>(x.size());
    NormLayout l;
    if (isLayer(n)) {
        l.axis = normalizeAxis(n, n.attrInt("axis", -1), rank);
        for (int64_t d = 0; d < rank; ++d) (d < l.axis ? l.rows : l.len) *= x[d];
        return l;
    }
    if (rank < 2) shapeError(n, "input must be [N, C, ...], got {}", shapeToString(x));
    l.axis = 2;
    for (int64_t d = 2; d < rank; ++d) l.inner *= x[d];
    if (isChannel(n)) {
        if (rank < 3) shapeError(n, "input must be [N, C, spatial...], got {}", shapeToString(x));
        l.axis = 1;
        l.C = l.params = l.len = x[1];
        l.rows = x[0] * l.inner;
        l.stride = l.rowsPerImage = l.inner;
        return l;
    }
    if (!isGroup(n)) {
        l.C = l.params = x[1];
        l.rows = x[0] * x[1];
        l.len = l.inner;
        l.affine = 1;
        return l;
    }
    const int64_t groups = n.attrInt("num_groups", 0);
    if (groups < 1 || groups > x[1] || x[1] % groups != 0)
        shapeError(n, "num_groups {} must be positive and divide the {} channels", groups, x[1]);
    l.C = groups;
    l.rows = x[0] * groups;
    l.len = x[1] / groups * l.inner;
    const bool perGroup = scaleElements == groups && groups != x[1];
    l.affine = perGroup ? 1 : 2;
    l.params = perGroup ? groups : x[1];
    return l;
}

void inferNorm(Graph& g, const Node& n) {
    const auto& x = inputValue(g, n, 0);
    if (x.dtype != DataType::Float32)
        unsupported(n, "{} runs on float32 only, input '{}' is {}", n.opType, x.name, dataTypeName(x.dtype));
    NormLayout l = normLayout(n, x.shape, n.input(1) >= 0 ? inputValue(g, n, 1).elementCount() : 0);
    Shape normalized(x.shape.begin() + l.axis, x.shape.end());
    for (size_t i = 1; i < 3; ++i) {
        if (n.input(i) < 0) {
            if (i == 1 || !(isLayer(n) || isChannel(n))) shapeError(n, "input {} is missing", i);
            continue;
        }
        const auto& p = inputValue(g, n, i);
        if (p.dtype != DataType::Float32) unsupported(n, "parameter '{}' is {}, not float32", p.name, dataTypeName(p.dtype));
        if (isLayer(n)) {
            if (broadcastShapes(n, normalized, p.shape) != normalized)
                shapeError(n, "'{}' of shape {} does not broadcast to the normalized shape {}", p.name,
                           shapeToString(p.shape), shapeToString(normalized));
        } else if (p.elementCount() != l.params) {
            if (isGroup(n))
                shapeError(n, "'{}' has {} elements for {} channels in {} groups (one per channel, or per group before "
                              "opset 21)",
                           p.name, p.elementCount(), x.shape[1], l.C);
            shapeError(n, "'{}' has {} elements for {} channels", p.name, p.elementCount(), l.C);
        }
    }
    if ((isLayer(n) || isGroup(n)) && n.attrInt("stash_type", 1) != 1)
        unsupported(n, "stash_type other than float32 is not supported");
    setOutput(g, n, 0, DataType::Float32, x.shape);
    Shape stats = x.shape;
    for (size_t d = static_cast<size_t>(l.axis); d < stats.size(); ++d) stats[d] = 1;
    setOutput(g, n, 1, DataType::Float32, stats);
    setOutput(g, n, 2, DataType::Float32, stats);
}

// A layer-norm parameter broadcast to the normalized shape [len] (the common case, already
// that size, is returned as is).
Tensor expandParam(const Node& n, const Tensor& t, const Shape& normalized) {
    if (t.elementCount() == elementCount(normalized)) return t;
    Tensor out(t.dtype(), normalized);  // float32, or float16 under Float16 precision
    const size_t es = dataTypeSize(t.dtype());
    broadcastWalk<1>(normalized, {t.shape()}, [&](int64_t i, const std::array<int64_t, 1>& off) {
        std::memcpy(out.data() + i * es, t.data() + off[0] * es, es);
    });
    (void)n;
    return out;
}

void evalNorm(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const Tensor& x = *in[0];
    NormLayout l = normLayout(n, x.shape(), in[1]->elementCount());
    Shape normalized(x.shape().begin() + l.axis, x.shape().end());
    Tensor scale = isLayer(n) ? expandParam(n, *in[1], normalized) : *in[1];
    const Tensor* biasIn = in.size() > 2 ? in[2] : nullptr;
    Tensor bias = biasIn ? (isLayer(n) ? expandParam(n, *biasIn, normalized) : *biasIn) : Tensor();
    float eps = n.attrFloat("epsilon", 1e-5f);
    const float* px = x.as<float>();
    float* py = out[0].as<float>();
    for (int64_t r = 0; r < l.rows; ++r) {
        const int64_t base = (r / l.rowsPerImage) * l.len * l.stride + r % l.rowsPerImage;
        auto at = [&](int64_t j) { return base + j * l.stride; };
        double mean = 0, var = 0;
        for (int64_t j = 0; j < l.len; ++j) mean += px[at(j)];
        mean /= static_cast<double>(l.len);
        for (int64_t j = 0; j < l.len; ++j) var += (px[at(j)] - mean) * (px[at(j)] - mean);
        var /= static_cast<double>(l.len);
        double invStd = 1.0 / std::sqrt(var + eps);
        for (int64_t j = 0; j < l.len; ++j) {
            int64_t k = l.affine == 0 ? j : l.affine == 1 ? r % l.C : (r % l.C) * (l.len / l.inner) + j / l.inner;
            double b = bias.empty() ? 0.0 : bias.as<float>()[k];
            py[at(j)] = static_cast<float>((px[at(j)] - mean) * invStd * scale.as<float>()[k] + b);
        }
        // (An omitted output arrives as a placeholder scalar: only filled when it has a row each.)
        if (out.size() > 1 && out[1].elementCount() == l.rows) out[1].as<float>()[r] = static_cast<float>(mean);
        if (out.size() > 2 && out[2].elementCount() == l.rows) out[2].as<float>()[r] = static_cast<float>(invStd);
    }
}

// A parameter as the kernel reads it: layer-norm parameters that broadcast are expanded,
// which needs them constant.
int paramFor(LowerContext& ctx, const Node& n, size_t i, const Shape& normalized) {
    const auto& v = ctx.value(n.inputs[i]);
    if (!isLayer(n) || v.elementCount() == elementCount(normalized)) return n.inputs[i];
    const Tensor& t = constantInput(ctx.graph(), n, i, "a LayerNormalization parameter that broadcasts");
    return ctx.addConstant(n.name + "_param", expandParam(n, t, normalized));
}

// Few long rows in chunks (normChunks): the chunks' statistics into a float32 scratch, then
// each row's combined and applied, over (chunk, row) workgroups (shaders/norm_split.comp).
// `bias` is bound (scale where there is none: unread, HAS_BIAS 0).
void lowerChunkedNorm(LowerContext& ctx, const Node& n, const NormLayout& l, int64_t chunks, DataType type, int scale,
                      int bias, bool hasBias) {
    namespace k = kernels::norm_split;
    const int64_t chunkLen = (l.len + chunks - 1) / chunks;
    chunks = (l.len + chunkLen - 1) / chunkLen;  // none empty
    if (l.rows > 65535) unsupported(n, "{} rows in chunks (at most 65535)", l.rows);
    k::Push p{};
    p.len = u32(l.len);
    p.C = u32(l.C);
    p.epsilon = n.attrFloat("epsilon", 1e-5f);
    p.inner = u32(l.inner);
    p.chunks = u32(chunks);
    p.chunkLen = u32(chunkLen);
    const int part = ctx.addScratch(n.name + "_chunk_stats", DataType::Float32, {l.rows, chunks, 2});
    for (const k::Pass pass : {k::Pass::partial, k::Pass::apply}) {
        Dispatch& d = ctx.emit(typedKernel(n, k::variant(pass, type), "norm_split", type));
        d.localSize = {256, 1, 1};
        d.groups = {u32(chunks), u32(l.rows), 1};
        d.setPush(p);
        if (pass == k::Pass::apply) setActivation(d, n.activation);
        d.setSpec(k::kAffine, l.affine);
        d.setSpec(k::kHasBias, hasBias ? 1 : 0);
        if (pass == k::Pass::partial) {
            d.bindings = {writeOf(part), readOf(n.inputs[0])};
        } else {
            d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(scale), readOf(bias), readOf(part)};
        }
    }
}

void lowerNorm(LowerContext& ctx, const Node& n) {
    const Shape x = ctx.value(n.inputs[0]).shape;  // a copy: paramFor may grow the value table
    NormLayout l = normLayout(n, x, ctx.value(n.inputs[1]).elementCount());
    Shape normalized(x.begin() + l.axis, x.end());
    requireIndexable(n, elementCount(x));
    if (l.len == 0) unsupported(n, "normalizing empty rows is not supported");
    int meanOut = n.outputs.size() > 1 ? n.outputs[1] : -1;
    int invStdOut = n.outputs.size() > 2 ? n.outputs[2] : -1;
    // float32, or float16 throughout (parameters and statistics too).
    const DataType type =
        floatKernelType(ctx, n, n.inputs[0], {n.inputs[1], n.input(2), n.outputs[0], meanOut, invStdOut});
    int scale = paramFor(ctx, n, 1, normalized);
    bool hasBias = n.input(2) >= 0;
    int bias = hasBias ? paramFor(ctx, n, 2, normalized) : scale;  // bound but unread without bias
    bool stats = meanOut >= 0 || invStdOut >= 0;
    // The kernel writes both statistics; one that the graph does not want goes to scratch.
    Shape statShape = {l.rows};
    if (stats && meanOut < 0) meanOut = ctx.addScratch(n.name + "_mean", type, statShape);
    if (stats && invStdOut < 0) invStdOut = ctx.addScratch(n.name + "_inv_std", type, statShape);
    const int64_t chunks = normChunks(l.rows, l.len);
    if (!stats && l.stride == 1 && chunks > 1) {
        lowerChunkedNorm(ctx, n, l, chunks, type, scale, bias, hasBias);
        return;
    }
    // Strided rows (the channel norm): invocations side by side take neighbouring rows, so they
    // read neighbouring pixels (a workgroup per row would read one element per row stride);
    // rows of more than kShortStridedRow elements are split across 8 invocations each, so that
    // a few hundred pixels of hundreds of channels (ConvNeXt-T's last LayerNorm2d: 196 x 384)
    // are not that many invocations each walking every channel three times.
    constexpr int64_t kShortStridedRow = 32;
    const bool strided = l.stride > 1;
    const bool sliced = strided && l.len > kShortStridedRow;
    const bool perThread = !sliced && (strided || rowPerThread(l.rows, l.len));
    // Many short contiguous rows (a ConvNeXt's or Swin's LayerNorm: 3136 tokens of 96
    // channels) take 8 rows a workgroup, 32 lanes each, rather than a workgroup of 128 for 96
    // elements and a seven-level tree per sum; few rows (ViT-B/16's 197 of 768) keep a
    // workgroup each, which fills the GPU.
    constexpr int64_t kLaneRowsFrom = 512, kLaneRowsUpTo = 256;
    const bool laneRows = !sliced && !perThread && l.rows >= kLaneRowsFrom && l.len <= kLaneRowsUpTo;
    // The rest of the contiguous rows up to 1024 elements (ViT-B/16's 197 of 768): a workgroup
    // of 256 each holds its row in registers (read once, two shared-memory rounds a sum)
    // instead of walking it three times with two eight-level trees. H100, run 63, fp16 side by
    // side: ViT-B/16 0.981, Swin-T 0.984, tiny_vit 0.978.
    constexpr int64_t kRegisterRowsUpTo = 1024;
    const bool registerRows = !sliced && !perThread && !laneRows && l.len <= kRegisterRowsUpTo;
    using kernels::norm::Stats;
    Dispatch& d = ctx.emit(typedKernel(n, kernels::norm::variant(stats ? Stats::stats : Stats::none, type), "norm", type));
    setActivation(d, n.activation);
    d.setSpec(kernels::norm::kAffine, l.affine);
    d.setSpec(kernels::norm::kPerThread, sliced ? 2 : perThread ? 1 : laneRows ? 3 : registerRows ? 4 : 0);
    d.setSpec(kernels::norm::kHasBias, hasBias ? 1 : 0);
    kernels::norm::Push p{};
    p.rows = u32(l.rows);
    p.len = u32(l.len);
    p.C = u32(l.C);
    p.epsilon = n.attrFloat("epsilon", 1e-5f);
    p.inner = u32(l.inner);
    p.stride = u32(l.stride);
    p.rowsPerImage = u32(l.rowsPerImage);
    d.setPush(p);
    if (sliced || laneRows) {  // 32 x 8 invocations: 32 rows of 8 slices, or 8 rows of 32 lanes
        d.localSize = {32, 8, 1};
        d.groups = grid1d(l.rows, sliced ? 32 : 8);
    } else if (registerRows) {
        setRowLaunch(d, l.rows, 256, false);  // (a workgroup of 256 a row)
    } else {
        setRowLaunch(d, l.rows, l.len, perThread);
    }
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(scale), readOf(bias)};
    if (stats) {
        d.bindings.push_back(writeOf(meanOut));
        d.bindings.push_back(writeOf(invStdOut));
    }
}

// ---- BatchNormalization: y = (x - mean[c]) / sqrt(var[c] + eps) * scale[c] + bias[c] ----
// In training mode (opset 14+) mean and var are the batch's statistics, and the optional
// outputs 1 and 2 are the running statistics: input * momentum + batch * (1 - momentum).

bool trainingMode(const Node& n) { return n.attrInt("training_mode", 0) != 0; }

struct ChannelLayout {
    int64_t N = 1, C = 1, inner = 1;
};

ChannelLayout channelLayout(const Shape& x) {
    ChannelLayout l{x[0], x[1], 1};
    for (size_t i = 2; i < x.size(); ++i) l.inner *= x[i];
    return l;
}

void inferBatchNorm(Graph& g, const Node& n) {
    requireFloat(g, n, 0);
    const Shape& x = inputShape(g, n, 0);
    if (x.size() < 2) shapeError(n, "input must have a channel dimension, got {}", shapeToString(x));
    for (size_t i = 1; i < 5; ++i) {
        const auto& p = inputValue(g, n, i);
        if (p.elementCount() != x[1]) shapeError(n, "parameter {} has {} elements for {} channels", i, p.elementCount(), x[1]);
        if (p.dtype != DataType::Float32) unsupported(n, "parameter '{}' is {}, not float32", p.name, dataTypeName(p.dtype));
    }
    bool extraOutputs = false;
    for (size_t i = 1; i < n.outputs.size(); ++i) extraOutputs |= n.outputs[i] >= 0;
    if (extraOutputs && (!trainingMode(n) || n.outputs.size() > 3))
        unsupported(n, "the statistics outputs of opset < 14 training are not supported");
    if (trainingMode(n) && x[1] > 65535) unsupported(n, "training mode with more than 65535 channels");
    setOutput(g, n, 0, DataType::Float32, x);
    setOutput(g, n, 1, DataType::Float32, {x[1]});
    setOutput(g, n, 2, DataType::Float32, {x[1]});
}

void evalBatchNorm(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const Tensor& x = *in[0];
    ChannelLayout l = channelLayout(x.shape());
    std::vector<double> mean(l.C), var(l.C);
    const float* px = x.as<float>();
    for (int64_t c = 0; c < l.C; ++c) {
        mean[c] = in[3]->getDouble(c);
        var[c] = in[4]->getDouble(c);
    }
    if (trainingMode(n)) {
        double momentum = n.attrFloat("momentum", 0.9f);
        for (int64_t c = 0; c < l.C; ++c) {
            double s = 0, q = 0, count = static_cast<double>(l.N * l.inner);
            for (int64_t b = 0; b < l.N; ++b)
                for (int64_t j = 0; j < l.inner; ++j) s += px[(b * l.C + c) * l.inner + j];
            double m = s / count;
            for (int64_t b = 0; b < l.N; ++b)
                for (int64_t j = 0; j < l.inner; ++j) q += (px[(b * l.C + c) * l.inner + j] - m) * (px[(b * l.C + c) * l.inner + j] - m);
            double v = q / count;
            if (out.size() > 1 && out[1].elementCount() == l.C) out[1].as<float>()[c] = static_cast<float>(mean[c] * momentum + m * (1 - momentum));
            if (out.size() > 2 && out[2].elementCount() == l.C) out[2].as<float>()[c] = static_cast<float>(var[c] * momentum + v * (1 - momentum));
            mean[c] = m;
            var[c] = v;
        }
    }
    double eps = n.attrFloat("epsilon", 1e-5f);
    float* py = out[0].as<float>();
    for (int64_t i = 0, count = x.elementCount(); i < count; ++i) {
        int64_t c = (i / l.inner) % l.C;
        double k = in[1]->getDouble(c) / std::sqrt(var[c] + eps);
        py[i] = applyActivation(n.activation, static_cast<float>((px[i] - mean[c]) * k + in[2]->getDouble(c)));
    }
}

// Inference with constant statistics: folded to a per-channel scale and shift at load time.
void lowerBatchNormFolded(LowerContext& ctx, const Node& n) {
    const Graph& g = ctx.graph();
    const Tensor &scale = constantInput(g, n, 1, "scale"), &bias = constantInput(g, n, 2, "B"),
                 &mean = constantInput(g, n, 3, "mean"), &var = constantInput(g, n, 4, "var");
    float eps = n.attrFloat("epsilon", 1e-5f);
    int64_t C = scale.elementCount();
    std::vector<float> k(C), sh(C);
    for (int64_t i = 0; i < C; ++i) {
        double ki = scale.getDouble(i) / std::sqrt(var.getDouble(i) + eps);
        k[i] = static_cast<float>(ki);
        sh[i] = static_cast<float>(bias.getDouble(i) - mean.getDouble(i) * ki);
    }
    // Folded in float32 from the float32 parameters (Float16 precision keeps them float32:
    // passes/precision.cpp), then stored in the data's type.
    const DataType type = floatKernelType(ctx, n, n.inputs[0], {n.outputs[0]});
    auto param = [&](const std::vector<float>& v) {
        return narrowFromFloat32(Tensor::fromVector(DataType::Float32, {C}, v), type);
    };
    int kScale = ctx.addConstant(n.name + "_scale", param(k));
    int kShift = ctx.addConstant(n.name + "_shift", param(sh));
    ChannelLayout l = channelLayout(ctx.value(n.inputs[0]).shape);
    int64_t count = ctx.value(n.inputs[0]).elementCount();
    requireIndexable(n, count);
    Dispatch& d = ctx.emit(typedKernel(n, kernels::channel_affine::variant(type), "channel_affine", type));
    setActivation(d, n.activation);
    kernels::channel_affine::Push p{};
    p.count = u32(count);
    p.C = u32(l.C);
    p.inner = u32(l.inner);
    d.setPush(p);
    setLaunch1d(d, count);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(kScale), readOf(kShift)};
}

// y from statistics in buffers (graph inputs, or the batch statistics of training mode).
void emitBatchNorm(LowerContext& ctx, const Node& n, int mean, int var) {
    ChannelLayout l = channelLayout(ctx.value(n.inputs[0]).shape);
    int64_t count = ctx.value(n.inputs[0]).elementCount();
    requireIndexable(n, count);
    const DataType type = floatKernelType(ctx, n, n.inputs[0], {n.inputs[1], n.inputs[2], mean, var, n.outputs[0]});
    Dispatch& d = ctx.emit(typedKernel(n, kernels::batchnorm::variant(type), "batchnorm", type));
    setActivation(d, n.activation);
    kernels::batchnorm::Push p{};
    p.count = u32(count);
    p.C = u32(l.C);
    p.inner = u32(l.inner);
    p.epsilon = n.attrFloat("epsilon", 1e-5f);
    d.setPush(p);
    setLaunch1d(d, count);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(n.inputs[1]), readOf(n.inputs[2]), readOf(mean), readOf(var)};
}

void lowerBatchNormTraining(LowerContext& ctx, const Node& n) {
    ChannelLayout l = channelLayout(ctx.value(n.inputs[0]).shape);
    requireIndexable(n, ctx.value(n.inputs[0]).elementCount());
    const DataType type = floatKernelType(ctx, n, n.inputs[0], {n.inputs[3], n.inputs[4]});
    int batchMean = ctx.addScratch(n.name + "_batch_mean", type, {l.C});
    int batchVar = ctx.addScratch(n.name + "_batch_var", type, {l.C});
    // Running statistics nobody reads still need a place to go.
    auto outputOrScratch = [&](size_t i, const char* hint) {
        return i < n.outputs.size() && n.outputs[i] >= 0 ? n.outputs[i] : ctx.addScratch(n.name + hint, type, {l.C});
    };
    int runMean = outputOrScratch(1, "_running_mean"), runVar = outputOrScratch(2, "_running_var");
    Dispatch& d = ctx.emit(typedKernel(n, kernels::batchnorm_stats::variant(type), "batchnorm_stats", type));
    setActivation(d, graph::Activation{});
    kernels::batchnorm_stats::Push p{};
    p.N = u32(l.N);
    p.C = u32(l.C);
    p.inner = u32(l.inner);
    p.momentum = n.attrFloat("momentum", 0.9f);
    d.setPush(p);
    d.localSize = {128, 1, 1};
    d.groups = {u32(l.C), 1, 1};
    d.bindings = {readOf(n.inputs[0]), readOf(n.inputs[3]), readOf(n.inputs[4]), writeOf(batchMean),
                  writeOf(batchVar),   writeOf(runMean),    writeOf(runVar)};
    emitBatchNorm(ctx, n, batchMean, batchVar);
}

void lowerBatchNorm(LowerContext& ctx, const Node& n) {
    if (trainingMode(n)) return lowerBatchNormTraining(ctx, n);
    const Graph& g = ctx.graph();
    for (size_t i = 1; i < 5; ++i)
        if (!inputValue(g, n, i).constant) return emitBatchNorm(ctx, n, n.inputs[3], n.inputs[4]);
    lowerBatchNormFolded(ctx, n);
}

}  // namespace

void registerNormalizationOps(std::vector<OpDef>& t) {
    t.push_back(withFp16({"LayerNormalization", 17, 1000, inferNorm, evalNorm, lowerNorm}));
    t.push_back(withFp16({kChannelNormOpType, 1, 1000, inferNorm, evalNorm, lowerNorm}));
    t.push_back(withFp16({kGroupNormOpType, 1, 1000, inferNorm, evalNorm, lowerNorm}));
    t.push_back(withFp16({"InstanceNormalization", 6, 1000, inferNorm, evalNorm, lowerNorm}));
    t.push_back(withFp16({"GroupNormalization", 18, 1000, inferNorm, evalNorm, lowerNorm}));
    t.push_back(withFp16({"BatchNormalization", 1, 1000, inferBatchNorm, evalBatchNorm, lowerBatchNorm}));
}

int64_t normChunks(int64_t rows, int64_t len) {
    if (rows >= 512 || len < 16384) return 1;
    const int64_t chunks = std::min<int64_t>({256, std::max<int64_t>(2, (1024 + rows - 1) / rows), len / 4096});
    return chunks >= 2 ? chunks : 1;
}

}  // namespace vkinfer::ops
