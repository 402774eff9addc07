// The frame loop of the demo and the patterns benchmark: one warm-up frame (drivers compile
// pipelines at first use), then frame after frame with the pattern's frames in flight, each
// frame's period measured from the previous frame's completion to its own.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "pattern.h"

namespace demo {

struct FrameRun {
    double warmupMs = 0;            // the warm-up frame, not counted
    std::vector<FrameTimes> times;  // per frame, totalMs and syncMs filled in
};

// Runs `frames` frames (scenes 0 .. frames-1) after the warm-up, which `onWarmup(ms)` is told
// of. `onFrame(k, output)` sees each finished frame in order; the time it takes (writing PNGs,
// checking) is left out of the next frame's period.
FrameRun runFrames(Pattern& pattern, uint32_t frames, const std::function<void(double)>& onWarmup,
                   const std::function<void(uint32_t, FrameOutput&)>& onFrame);

}  // namespace demo
