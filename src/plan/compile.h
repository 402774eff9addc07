// Compilation of a model for concrete input shapes into an executable plan (pure CPU):
// specialize -> fuse -> alias (views, in-place Concat) -> lower -> schedule in waves ->
// plan memory -> place barriers. The runtime records the result; `vkinfer plan` prints it.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "ops/dispatch.h"
#include "plan/access.h"
#include "plan/sync_planner.h"
#include "vkinfer/plan.h"

namespace vkinfer::plan {

// Status: the index-status slots of the kernels that read indices computed at run time
// (host-visible, read after each frame: runtime/index_status.h).
enum class AllocKind { Weights, Arena, Input, Output, Status };
const char* allocKindName(AllocKind kind);

struct Allocation {
    std::string name;
    AllocKind kind = AllocKind::Arena;
    // Bytes of the buffer. Input and output buffers are their tensor rounded up to 4 bytes,
    // so that word-wise kernels and 4-byte descriptor ranges stay inside them.
    int64_t size = 0;
    int ioIndex = -1;          // which graph input/output
    int64_t tensorBytes = 0;   // input/output: the tensor's exact size
};

// Where a value's bytes live.
struct Location {
    int alloc = -1;
    int64_t offset = 0;
};

// A dispatch reading indices computed at run time (Gather, GatherElements, ScatterElements,
// ScatterND): its 16-byte slot at `offset` of the status allocation, and what a report from it
// names.
struct IndexCheck {
    std::string node;     // Node::describe(): "node 'name' (Gather)"
    std::string indices;  // the tensor holding the indices
    int64_t offset = 0;
};

// Allocation ids: weights, arena, then one per graph input, then one per graph output, then
// the status allocation when the plan has index checks.
constexpr int kWeightsAlloc = 0;
constexpr int kArenaAlloc = 1;

struct CompiledPlan {
    graph::Graph graph;                      // specialized and fused
    std::vector<std::string> outputNames;    // user-visible names, in model order
    std::vector<ops::Dispatch> dispatches;   // recording order
    std::vector<Command> commands;           // each dispatch's accesses (allocation byte ranges)
    std::vector<Barrier> barriers;           // barrier before each dispatch
    std::vector<int> wave;                   // wave of each dispatch
    int waves = 0;
    std::vector<Allocation> allocations;
    std::vector<Location> location;          // per graph value (alloc -1: not stored)
    std::vector<int> weightValues;           // constants uploaded to the weights allocation
    std::vector<std::string> viewNodes;      // nodes that need no dispatch (views, in-place Concat)
    std::vector<std::string> channelsLast;   // tensors stored NHWC (ops::chooseChannelsLast)
    std::vector<IndexCheck> indexChecks;     // in the status allocation, in lowering order
    SyncMode sync = SyncMode::Minimal;
    Precision precision = Precision::Float32;
    int64_t alignment = 64;
    PlanSummary summary;

    int inputCount = 0;
    int inputAlloc(int i) const { return 2 + i; }
    int outputAlloc(int i) const { return 2 + inputCount + i; }
    int statusAlloc = -1;  // -1: no index checks
};

// Throws Error naming the node, tensor or input at fault.
CompiledPlan compilePlan(const graph::Graph& model, const InputShapes& shapes, const PlanOptions& options,
                         const std::vector<NamedTensor>& values = {});

// The JSON form printed by `vkinfer plan --json` (documented in docs/CLI.md).
std::string planToJson(const CompiledPlan& plan);
// A human-readable listing: one line per dispatch with its wave and barrier.
std::string planToText(const CompiledPlan& plan);

}  // namespace vkinfer::plan
