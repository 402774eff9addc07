// The host side of the kernels' index checks (shaders/index_status.glsl): after a frame's
// fence, each slot of the plan's status allocation says whether its dispatch met an index
// outside its axis. A report fails the frame naming the node, the indices tensor, the index
// and the extent, so that no output computed from a clamped index reaches the caller.
#pragma once

#include "plan/compile.h"
#include "runtime/frame_slot.h"

namespace vkinfer::rt {

// Throws Error (InvalidArgument) for the first slot, in recording order, that holds a report,
// after clearing every slot for the slot's next frame. Call only when the GPU work that wrote
// the slots has finished (after the frame's fence) and before it is submitted again.
void checkIndexStatus(const plan::CompiledPlan& plan, FrameSlot& s);

}  // namespace vkinfer::rt
