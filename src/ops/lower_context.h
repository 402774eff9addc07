// What an op's lower function sees: the graph (to read shapes and constants, and to add
// derived weights or scratch tensors) and the dispatch list it appends to.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "ops/dispatch.h"
#include "ops/kernel_target.h"

namespace vkinfer::ops {

// Where value `v` lives when values alias (views, in-place Concat): v is stored at byte
// offset[v] of parent[v] (-1: its own storage). Returns the root and adds v's byte offset in
// it to *offset. Values past the end of `parent` (added after planning) are their own roots.
inline int aliasRoot(const std::vector<int>& parent, const std::vector<int64_t>& offset, int v, int64_t* at) {
    while (static_cast<size_t>(v) < parent.size() && parent[v] >= 0) {
        *at += offset[v];
        v = parent[v];
    }
    return v;
}

class LowerContext {
public:
    LowerContext(graph::Graph& g, std::vector<Dispatch>& out, const KernelTarget& target = {})
        : g_(g), out_(out), target_(target) {}

    // What kernel selection may use (PlanOptions::device and ::kernels, resolved).
    const KernelTarget& target() const { return target_; }

    graph::Graph& graph() { return g_; }
    const graph::Graph& graph() const { return g_; }
    // The live readers of each value, indexed on first use (lowering adds values, not nodes).
    const graph::Readers& readers() const {
        if (!readers_) readers_ = std::make_unique<graph::Readers>(g_);
        return *readers_;
    }
    // Careful: addConstant/addScratch grow the value table, which invalidates references
    // returned here earlier. Copy what you need (shape, dtype) before adding values.
    const graph::Value& value(int id) const { return g_.values[id]; }

    // Appends a dispatch of `kernel` for the node being lowered.
    Dispatch& emit(kernels::KernelId kernel) {
        Dispatch d;
        d.kernel = kernel;
        d.node = node_;
        out_.push_back(std::move(d));
        return out_.back();
    }

    // A weight tensor derived while lowering (repacked, zero bias, ...).
    int addConstant(const std::string& hint, Tensor t) { return g_.addConstant(hint, std::move(t)); }
    // An intermediate tensor used only between this node's dispatches.
    int addScratch(const std::string& hint, DataType type, graph::Shape shape) {
        return g_.addIntermediate(hint, type, std::move(shape));
    }

    // The 16-byte status slot of a kernel that reads indices computed at run time
    // (shaders/index_status.glsl): a value of its own, written by this node's dispatch only,
    // so that no two dispatches share one (no barrier between them). The planner places all
    // slots in the plan's status allocation (CompiledPlan::indexChecks).
    Binding indexStatus(int indicesValue) {
        graph::Value v;
        v.name = g_.uniqueName(g_.nodes[node_].name + "_index_status");
        v.dtype = DataType::UInt32;
        v.shape = {4};
        v.hasShape = true;
        int id = g_.addValue(std::move(v));
        indexStatus_.push_back({id, node_, indicesValue});
        return {TensorRef{id}, Access::Write};
    }
    struct IndexStatusSlot {
        int value, node;
        int indices;  // the value holding the indices
    };
    const std::vector<IndexStatusSlot>& indexStatusSlots() const { return indexStatus_; }

    void setNode(int node) { node_ = node; }
    int node() const { return node_; }

    // True when the planner placed `value` at byte `offset` of `target`'s storage (in-place
    // Concat, also through a prefix Concat that is itself a view of a longer one): the
    // producer of `value` already wrote it there, so no copy is needed.
    bool storedAt(int value, int target, int64_t offset) const {
        if (!aliasParent_ || value < 0 || target < 0) return false;
        int64_t valueOffset = 0, targetOffset = 0;
        int valueRoot = aliasRoot(*aliasParent_, *aliasOffset_, value, &valueOffset);
        int targetRoot = aliasRoot(*aliasParent_, *aliasOffset_, target, &targetOffset);
        return valueRoot != value && valueRoot == targetRoot && valueOffset == targetOffset + offset;
    }
    // The value whose storage holds `value` (an in-place Concat's output), or -1.
    int storedIn(int value) const {
        if (!aliasParent_ || value < 0 || static_cast<size_t>(value) >= aliasParent_->size()) return -1;
        return (*aliasParent_)[value];
    }
    // The planner's storage aliasing: value v lives at byte offsets[v] of parents[v] (-1: its
    // own storage). Both vectors stay owned by the caller.
    void setAliases(const std::vector<int>* parents, const std::vector<int64_t>* offsets) {
        aliasParent_ = parents;
        aliasOffset_ = offsets;
    }

    // Whether `value` is stored channels-last (NHWC; ops/conv/layout.h chose it for the plan).
    bool channelsLast(int value) const {
        return value >= 0 && static_cast<size_t>(value) < channelsLast_.size() && channelsLast_[value];
    }
    void setChannelsLast(std::vector<char> perValue) { channelsLast_ = std::move(perValue); }

private:
    graph::Graph& g_;
    std::vector<Dispatch>& out_;
    KernelTarget target_;
    int node_ = -1;
    const std::vector<int>* aliasParent_ = nullptr;
    const std::vector<int64_t>* aliasOffset_ = nullptr;
    std::vector<char> channelsLast_;
    std::vector<IndexStatusSlot> indexStatus_;
    mutable std::unique_ptr<graph::Readers> readers_;
};

// Binding helpers.
inline Binding readOf(int value) { return {TensorRef{value}, Access::Read}; }
inline Binding writeOf(int value) { return {TensorRef{value}, Access::Write}; }

// Spec constants 3..5 carry the fused activation (kind, alpha, beta) in every kernel.
inline void setActivation(Dispatch& d, const graph::Activation& act) {
    if (d.spec.size() < 3) d.spec.resize(3, 0);  // keeps the constants set before it (ids 6 on)
    d.spec[0] = static_cast<uint32_t>(act.kind);
    uint32_t a, b;
    std::memcpy(&a, &act.alpha, 4);
    std::memcpy(&b, &act.beta, 4);
    d.spec[1] = a;
    d.spec[2] = b;
}

}  // namespace vkinfer::ops
