#include "kernels/families/copy_words.h"
#include "plan/compile.h"

#include <algorithm>
#include <set>

#include "core/error.h"
#include "ops/conv/layout.h"
#include "ops/kernel_target.h"
#include "ops/lower_context.h"
#include "ops/emit.h"
#include "ops/registry.h"
#include "passes/attention_fusion.h"
#include "passes/cast_folding.h"
#include "passes/channel_norm.h"
#include "passes/common_subexpressions.h"
#include "passes/einsum_matmul.h"
#include "passes/fusion.h"
#include "passes/gemm_weights.h"
#include "passes/pointwise_fusion.h"
#include "passes/precision.h"
#include "passes/specialize.h"
#include "passes/subpixel_deconv.h"
#include "plan/memory_planner.h"
#include "plan/scheduler.h"

namespace vkinfer::plan {

using graph::Graph;
using graph::Node;

const char* allocKindName(AllocKind kind) {
    switch (kind) {
        case AllocKind::Weights: return "weights";
        case AllocKind::Arena: return "arena";
        case AllocKind::Input: return "input";
        case AllocKind::Output: return "output";
        case AllocKind::Status: return "status";
    }
    return "?";
}

namespace {

int64_t alignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

// Storage aliasing: value v lives at byte `offset` inside `parent` (views, in-place Concat).
struct Aliases {
    std::vector<int> parent;
    std::vector<int64_t> offset;

    explicit Aliases(size_t n) : parent(n, -1), offset(n, 0) {}
    void grow(size_t n) {
        parent.resize(n, -1);
        offset.resize(n, 0);
    }
    int root(int v, int64_t* off) const {
        int64_t o = 0;
        int r = ops::aliasRoot(parent, offset, v, &o);
        if (off) *off = o;
        return r;
    }
};

bool producesWithDispatch(const Graph& g, int value, const std::vector<char>& isView) {
    int p = g.values[value].producer;
    return p >= 0 && !isView[p];
}

// The axis of Concat node `n` when it can be written in place: everything before the axis
// has extent 1, so each input's slice of the output is contiguous bytes. -1 otherwise.
int64_t inPlaceConcatAxis(const Graph& g, const Node& n) {
    if (n.opType != "Concat") return -1;
    const auto& shape = g.values[n.outputs[0]].shape;
    int64_t rank = static_cast<int64_t>(shape.size());
    int64_t axis = n.attrInt("axis", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return -1;
    for (int64_t d = 0; d < axis; ++d)
        if (shape[d] != 1) return -1;
    return axis;
}

bool isStrictPrefix(const std::vector<int>& shorter, const std::vector<int>& longer) {
    return shorter.size() < longer.size() && std::equal(shorter.begin(), shorter.end(), longer.begin());
}

// A Concat whose inputs begin another Concat's inputs (DenseNet: every layer concatenates the
// block's features so far) is the leading bytes of that longer Concat's output: it becomes a
// view at offset 0 of the longest such Concat, so that each feature is written once, by its
// producer, into the block's final buffer. Returns the host Concat node of each node, or -1.
std::vector<int> planConcatPrefixes(const Graph& g, Aliases& al) {
    std::vector<int> host(g.nodes.size(), -1);
    std::vector<int> candidates;
    for (size_t i = 0; i < g.nodes.size(); ++i)  // (inputs read through windows are not prefixes of anything)
        if (inPlaceConcatAxis(g, g.nodes[i]) >= 0 && !g.nodes[i].hasInputViews()) candidates.push_back(static_cast<int>(i));
    for (int a : candidates) {
        const Node& n = g.nodes[a];
        int out = n.outputs[0];
        if (al.parent[out] >= 0 || g.isGraphOutput(out) || g.isGraphInput(out)) continue;
        int best = -1;
        for (int b : candidates) {
            const Node& m = g.nodes[b];
            if (inPlaceConcatAxis(g, m) != inPlaceConcatAxis(g, n) || !isStrictPrefix(n.inputs, m.inputs)) continue;
            if (g.values[m.outputs[0]].dtype != g.values[out].dtype) continue;
            if (best < 0 || m.inputs.size() > g.nodes[best].inputs.size()) best = b;
        }
        if (best < 0) continue;
        host[a] = best;
        al.parent[out] = g.nodes[best].outputs[0];
        al.offset[out] = 0;
    }
    return host;
}

// Concat writes each input into a contiguous slice of its output when everything before the
// axis has extent 1; an input qualifies when its producer can write there directly. A prefix
// Concat (planConcatPrefixes) keeps its view only if all of its inputs landed in place in its
// host: a copy the host makes runs after the prefix's readers.
void planInPlaceConcat(const Graph& g, const std::vector<char>& isView, int64_t alignment, Aliases& al) {
    std::vector<int> host = planConcatPrefixes(g, al);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        const Node& n = g.nodes[i];
        if (inPlaceConcatAxis(g, n) < 0 || host[i] >= 0) continue;
        int out = n.outputs[0];
        int64_t offset = 0;
        for (size_t k = 0; k < n.inputs.size(); ++k) {
            const int in = n.inputs[k];
            // A part read through a window (passes/concat_views.h) is the window's elements, copied.
            const graph::StridedView& window = n.inputView(k);
            const bool whole = window.empty();
            int64_t bytes = whole ? g.values[in].byteSize()
                                  : elementCount(window.shape) * static_cast<int64_t>(dataTypeSize(g.values[in].dtype));
            int uses = static_cast<int>(std::count(n.inputs.begin(), n.inputs.end(), in));
            bool ok = whole && uses == 1 && al.parent[in] < 0 && !g.values[in].constant && !g.isGraphInput(in) &&
                      !g.isGraphOutput(in) && producesWithDispatch(g, in, isView) && offset % alignment == 0 &&
                      g.values[in].dtype == g.values[out].dtype && bytes > 0;
            if (ok) {
                al.parent[in] = out;
                al.offset[in] = offset;
            }
            offset += bytes;
        }
    }
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        if (host[i] < 0) continue;
        const Node& n = g.nodes[i];
        int hostOut = g.nodes[host[i]].outputs[0];
        int64_t offset = 0;
        bool allInPlace = true;
        for (int in : n.inputs) {
            allInPlace = allInPlace && al.parent[in] == hostOut && al.offset[in] == offset;
            offset += g.values[in].byteSize();
        }
        if (!allInPlace) al.parent[n.outputs[0]] = -1;
    }
}

// Makes every output of `n` a view into its input 0 where OpDef::viewOffset places them all
// (Slice, Split over contiguous runs) at offsets the device can bind; true if it did. A graph
// output keeps bytes of its own (the output copy would take the whole input), and so does a
// node over a constant (folded) or with an empty output.
bool viewsAt(const Graph& g, const Node& n, const ops::OpDef& def, int64_t alignment, Aliases& al) {
    const int in = n.inputs.empty() ? -1 : n.inputs[0];
    if (in < 0 || g.values[in].constant) return false;
    std::vector<int64_t> bytes(n.outputs.size(), -1);
    for (size_t k = 0; k < n.outputs.size(); ++k) {
        const int out = n.outputs[k];
        if (out < 0) continue;
        if (g.isGraphOutput(out) || g.values[out].byteSize() == 0) return false;
        const int64_t element = def.viewOffset(g, n, k);
        if (element < 0) return false;
        bytes[k] = element * static_cast<int64_t>(dataTypeSize(g.values[in].dtype));
        if (bytes[k] % alignment != 0) return false;
    }
    for (size_t k = 0; k < n.outputs.size(); ++k) {
        if (n.outputs[k] < 0) continue;
        al.parent[n.outputs[k]] = in;
        al.offset[n.outputs[k]] = bytes[k];
    }
    return true;
}

Range rangeOf(const Graph& g, const Aliases& al, const ops::TensorRef& ref) {
    int64_t off = 0;
    int root = al.root(ref.value, &off);
    int64_t size = ref.size >= 0 ? ref.size : g.values[ref.value].byteSize() - ref.offset;
    return Range{root, off + ref.offset, off + ref.offset + size, ref.value};
}

Command commandOf(const Graph& g, const Aliases& al, const ops::Dispatch& d) {
    Command c;
    for (const auto& b : d.bindings) {
        Range r = rangeOf(g, al, b.ref);
        (b.access == ops::Access::Read ? c.reads : c.writes).push_back(r);
    }
    return c;
}

void emitCopy(ops::LowerContext& ctx, int src, int dst) {
    ops::Dispatch& d = ctx.emit(kernels::copy_words::variant());
    int64_t words = (ctx.value(src).byteSize() + 3) / 4;
    kernels::copy_words::Push pc{};
    pc.count = static_cast<uint32_t>(words);
    d.setPush(pc);
    d.groups = ops::grid1d(words, 256);
    d.localSize = {256, 1, 1};
    d.bindings = {ops::writeOf(dst), ops::readOf(src)};
}

}  // namespace

CompiledPlan compilePlan(const Graph& model, const InputShapes& shapes, const PlanOptions& options,
                         const std::vector<NamedTensor>& values) {
    CompiledPlan plan;
    plan.sync = options.sync;
    plan.precision = options.precision;
    plan.alignment = std::max<int64_t>(options.alignment, 16);
    for (int o : model.outputs) plan.outputNames.push_back(model.values[o].name);

    Graph g = passes::specialize(model, shapes, values);
    passes::mergeCommonSubexpressions(g);
    // Einsums that are batched products become MatMuls before the MatMul folds and fusions.
    passes::rewriteEinsumAsMatMul(g);
    passes::transposeConstantGemmWeights(g);
    // First: the Conv it writes then takes the fusions (its DepthToSpace, the activation after).
    if (options.kernels.subPixelDeconv) passes::rewriteConvTransposeAsConv(g);
    // The LayerNormalization pattern first (an activation after it then fuses into it), the
    // pointwise groups last: they take what the producer fusions left.
    if (options.kernels.fusePointwise) {
        passes::fuseLayerNormPattern(g);
        passes::fuseGroupNormPattern(g);
        passes::fuseChannelLayerNorm(g);
    }
    passes::runFusions(g);
    // Attention after the MatMul folds (it reads their views, scales and output permutations)
    // and before the pointwise groups (which would take its scale Mul or mask Add).
    if (options.kernels.fuseAttention) passes::fuseAttention(g);
    if (options.kernels.fusePointwise) passes::fusePointwise(g);
    if (options.precision == Precision::Float16) passes::convertToFloat16(g);
    if (options.kernels.foldCasts) passes::foldCasts(g);
    plan.inputCount = static_cast<int>(g.inputs.size());

    // Views and in-place Concat. A tensor inside another begins where the device can bind it.
    const int64_t sliceAlignment = std::max<int64_t>(options.device.storageBufferOffsetAlignment, 16);
    std::vector<char> isView(g.nodes.size(), 0);
    Aliases al(g.values.size());
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        const Node& n = g.nodes[i];
        const ops::OpDef* def = ops::findOp(n.opType, g.opset);
        if (!def) ops::checkSupported(g);
        if (def->isView && n.inputs[0] >= 0 && !g.values[n.inputs[0]].constant) {
            isView[i] = 1;
            al.parent[n.outputs[0]] = n.inputs[0];
            plan.viewNodes.push_back(n.name);
        } else if (def->viewOffset && viewsAt(g, n, *def, sliceAlignment, al)) {
            isView[i] = 1;
            plan.viewNodes.push_back(n.name);
        }
    }
    planInPlaceConcat(g, isView, sliceAlignment, al);

    // Lowering.
    std::vector<ops::Dispatch> dispatches;
    ops::LowerContext ctx(g, dispatches, ops::resolveKernelTarget(options.device, options.kernels));
    ctx.setAliases(&al.parent, &al.offset);
    const std::vector<char> channelsLast = ops::chooseChannelsLast(ctx, al.parent);
    for (size_t v = 0; v < channelsLast.size(); ++v)
        if (channelsLast[v]) plan.channelsLast.push_back(g.values[v].name);
    ctx.setChannelsLast(channelsLast);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        if (isView[i]) continue;
        const Node& n = g.nodes[i];
        const ops::OpDef* def = ops::findOp(n.opType, g.opset);
        if (!def->lower)
            fail(ErrorCode::Unsupported, "{}: {} cannot run on the GPU with these inputs (only constant inputs are folded)",
                 n.describe(), n.opType);
        size_t before = dispatches.size();
        ctx.setNode(static_cast<int>(i));
        def->lower(ctx, n);
        if (dispatches.size() == before) plan.viewNodes.push_back(n.name);
    }
    al.grow(g.values.size());
    std::vector<char> isStatus(g.values.size(), 0);
    for (const auto& slot : ctx.indexStatusSlots()) isStatus[slot.value] = 1;
    // A dispatch that writes no bytes (an empty tensor: a zero dimension) does nothing; it
    // is dropped rather than bound to empty ranges (its index status, if any, with it).
    auto writesNothing = [&](const ops::Dispatch& d) {
        return std::all_of(d.bindings.begin(), d.bindings.end(), [&](const ops::Binding& b) {
            return b.access == ops::Access::Read || isStatus[b.ref.value] ||
                   rangeOf(g, al, b.ref).end == rangeOf(g, al, b.ref).begin;
        });
    };
    dispatches.erase(std::remove_if(dispatches.begin(), dispatches.end(), writesNothing), dispatches.end());

    // Each graph output needs bytes of its own: copy when its storage is a graph input, a
    // constant, or shared with another output.
    std::set<int> claimedRoots;
    for (size_t k = 0; k < g.outputs.size(); ++k) {
        int out = g.outputs[k];
        int root = al.root(out, nullptr);
        bool own = !g.values[root].constant && !g.isGraphInput(root) && !claimedRoots.count(root);
        if (own) {
            claimedRoots.insert(root);
            continue;
        }
        graph::Value copy = g.values[out];
        copy.name = g.uniqueName(copy.name + "_output");
        copy.constant.reset();
        int dst = g.addValue(std::move(copy));
        al.grow(g.values.size());
        ctx.setNode(-1);
        emitCopy(ctx, out, dst);
        g.outputs[k] = dst;
        claimedRoots.insert(dst);
    }
    al.grow(g.values.size());

    // Schedule on logical storage (each root its own allocation).
    std::vector<Command> logical;
    for (const auto& d : dispatches) logical.push_back(commandOf(g, al, d));
    Schedule sched = scheduleWaves(logical);
    plan.waves = sched.waves;

    // Classify roots.
    const size_t nv = g.values.size();
    std::vector<char> rootUsed(nv, 0);
    std::vector<int> firstWave(nv, INT32_MAX), lastWave(nv, -1);
    for (size_t c = 0; c < dispatches.size(); ++c)
        for (const auto& rs : {logical[c].reads, logical[c].writes})
            for (const auto& r : rs) {
                rootUsed[r.alloc] = 1;
                firstWave[r.alloc] = std::min(firstWave[r.alloc], sched.wave[c]);
                lastWave[r.alloc] = std::max(lastWave[r.alloc], sched.wave[c]);
            }

    plan.allocations.push_back({"weights", AllocKind::Weights, 0, -1});
    plan.allocations.push_back({"arena", AllocKind::Arena, 0, -1});
    std::vector<Location> rootLoc(nv);
    for (size_t i = 0; i < g.inputs.size(); ++i) {
        int v = g.inputs[i].value;
        int64_t bytes = g.values[v].byteSize();
        plan.allocations.push_back({"input:" + g.values[v].name, AllocKind::Input, alignUp(std::max<int64_t>(bytes, 1), 4),
                                    static_cast<int>(i), bytes});
        // An input planned by value (a default left out, or an input the plan is keyed by) is
        // read from the weights like any constant: its buffer may never be written.
        if (!g.values[v].constant) rootLoc[v] = {plan.inputAlloc(static_cast<int>(i)), 0};
    }
    for (size_t k = 0; k < g.outputs.size(); ++k) {
        int64_t off = 0;
        int root = al.root(g.outputs[k], &off);
        int64_t bytes = g.values[root].byteSize();
        plan.allocations.push_back({"output:" + plan.outputNames[k], AllocKind::Output,
                                    alignUp(std::max<int64_t>(bytes, 1), 4), static_cast<int>(k), bytes});
        rootLoc[root] = {plan.outputAlloc(static_cast<int>(k)), 0};
    }
    // Index-status slots, each where the device can bind it, in one host-visible allocation.
    const int64_t slotStride = alignUp(16, std::max(plan.alignment, sliceAlignment));
    for (const auto& slot : ctx.indexStatusSlots()) {
        if (!rootUsed[slot.value]) continue;  // its dispatch was dropped
        if (plan.statusAlloc < 0) {
            plan.statusAlloc = static_cast<int>(plan.allocations.size());
            plan.allocations.push_back({"index status", AllocKind::Status, 0, -1});
        }
        int64_t offset = static_cast<int64_t>(plan.indexChecks.size()) * slotStride;
        rootLoc[slot.value] = {plan.statusAlloc, offset};
        plan.indexChecks.push_back({g.nodes[slot.node].describe(), g.values[slot.indices].name, offset});
        plan.allocations[plan.statusAlloc].size = offset + slotStride;
    }

    // Weights, packed in first-use order.
    int64_t weightCursor = 0;
    for (int c : sched.order)
        for (const auto& r : logical[c].reads) {
            int v = r.alloc;
            if (!g.values[v].constant || rootLoc[v].alloc >= 0) continue;
            rootLoc[v] = {kWeightsAlloc, weightCursor};
            plan.weightValues.push_back(v);
            weightCursor += alignUp(std::max<int64_t>(g.values[v].byteSize(), 4), plan.alignment);
        }
    plan.allocations[kWeightsAlloc].size = weightCursor;

    // Arena for the remaining roots.
    std::vector<int> arenaRoots;
    std::vector<BufferRequest> requests;
    for (size_t v = 0; v < nv; ++v) {
        if (!rootUsed[v] || rootLoc[v].alloc >= 0) continue;
        if (g.values[v].constant) continue;
        arenaRoots.push_back(static_cast<int>(v));
        requests.push_back({g.values[v].byteSize(), firstWave[v], lastWave[v]});
        plan.summary.intermediateBytes += static_cast<uint64_t>(g.values[v].byteSize());
    }
    MemoryPlan mem = planMemory(requests, plan.alignment);
    for (size_t i = 0; i < arenaRoots.size(); ++i) rootLoc[arenaRoots[i]] = {kArenaAlloc, mem.offsets[i]};
    plan.allocations[kArenaAlloc].size = mem.arenaSize;

    // Every value's location (views resolve through their root).
    plan.location.assign(nv, Location{});
    for (size_t v = 0; v < nv; ++v) {
        int64_t off = 0;
        int root = al.root(static_cast<int>(v), &off);
        if (rootLoc[root].alloc >= 0) plan.location[v] = {rootLoc[root].alloc, rootLoc[root].offset + off};
    }

    // Final order, accesses and barriers.
    for (int c : sched.order) {
        ops::Dispatch d = std::move(dispatches[c]);
        Command cmd;
        for (const auto& b : d.bindings) {
            const Location& loc = plan.location[b.ref.value];
            if (loc.alloc < 0)
                fail(ErrorCode::Internal, "tensor '{}' has no storage", g.values[b.ref.value].name);
            int64_t size = b.ref.size >= 0 ? b.ref.size : g.values[b.ref.value].byteSize() - b.ref.offset;
            Range r{loc.alloc, loc.offset + b.ref.offset, loc.offset + b.ref.offset + size, b.ref.value};
            (b.access == ops::Access::Read ? cmd.reads : cmd.writes).push_back(r);
        }
        plan.dispatches.push_back(std::move(d));
        plan.commands.push_back(std::move(cmd));
        plan.wave.push_back(sched.wave[c]);
    }
    plan.barriers = placeBarriers(plan.commands, options.sync == SyncMode::Conservative);
    plan.graph = std::move(g);

    auto& s = plan.summary;
    s.dispatches = plan.dispatches.size();
    s.barriers = static_cast<size_t>(std::count_if(plan.barriers.begin(), plan.barriers.end(),
                                                   [](const Barrier& b) { return b.present; }));
    s.waves = static_cast<size_t>(plan.waves);
    s.barrierLowerBound = plan.waves > 0 ? static_cast<size_t>(plan.waves - 1) : 0;
    s.arenaBytes = static_cast<uint64_t>(mem.arenaSize);
    s.weightBytes = static_cast<uint64_t>(weightCursor);
    return plan;
}

}  // namespace vkinfer::plan
