// Barrier placement for a fixed command order (pure; no Vulkan).
//
// Rules (DESIGN.md): between an earlier and a later access to overlapping bytes of one
// allocation, write->read (RAW) and write->write (WAW) need a memory dependency,
// read->write (WAR) an execution dependency only, read->read nothing. A barrier's second
// scope holds every later command, so once a barrier is recorded, every access before it
// is ordered against everything after it. All hazards found before one command go into one
// barrier (one vkCmdPipelineBarrier call). A barrier made only for WAR hazards is an
// execution dependency; the writes it orders stay tracked until a later memory dependency
// makes them visible, so a reader after it still gets one.
#pragma once

#include <vector>

#include "plan/access.h"

namespace vkinfer::plan {

enum class HazardKind { RAW, WAW, WAR };
const char* hazardKindName(HazardKind kind);

struct Hazard {
    HazardKind kind;
    int alloc;
    int earlierCommand;
    int earlierTag;  // the tensor the earlier command accessed
    int laterTag;    // the tensor this command accesses
};

struct Barrier {
    bool present = false;
    std::vector<Hazard> hazards;  // empty in conservative mode where no hazard exists
    // True when some hazard needs a memory dependency (RAW/WAW): record a
    // SHADER_WRITE -> SHADER_READ|SHADER_WRITE memory barrier. False for WAR-only barriers,
    // which need an execution dependency only. (Conservative barriers always carry one.)
    bool needsMemoryDependency() const;
};

// One entry per command: the barrier to record just before it. Minimal mode places a
// barrier only where a hazard is not yet ordered; conservative mode before every command
// but the first (reporting the hazards it would have had).
std::vector<Barrier> placeBarriers(const std::vector<Command>& commands, bool conservative);

}  // namespace vkinfer::plan
