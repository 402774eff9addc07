#include "frame_loop.h"

#include <chrono>

namespace demo {

namespace {
using Clock = std::chrono::steady_clock;
double msBetween(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}
}  // namespace

FrameRun runFrames(Pattern& pattern, uint32_t frames, const std::function<void(double)>& onWarmup,
                   const std::function<void(uint32_t, FrameOutput&)>& onFrame) {
    FrameRun run;
    Clock::time_point warmStart = Clock::now();
    pattern.submit(0);
    (void)pattern.collect(0);
    run.warmupMs = msBetween(warmStart, Clock::now());
    onWarmup(run.warmupMs);

    run.times.resize(frames);
    std::vector<double> submitMs(frames);
    Clock::time_point previous = Clock::now();
    double excluded = 0;  // onFrame's time since the previous frame finished
    auto finish = [&](uint32_t k) {
        FrameOutput f = pattern.collect(k);
        Clock::time_point done = Clock::now();
        f.times.totalMs = msBetween(previous, done) - excluded;
        f.times.cpuMs = submitMs[k];
        settleSync(f.times);
        run.times[k] = f.times;
        onFrame(k, f);
        excluded = msBetween(done, Clock::now());
        previous = done;
    };
    const uint32_t inFlight = pattern.framesInFlight();
    for (uint32_t k = 0; k < frames; ++k) {
        if (k >= inFlight) finish(k - inFlight);
        Clock::time_point t0 = Clock::now();
        pattern.submit(k);
        submitMs[k] = msBetween(t0, Clock::now());
    }
    for (uint32_t k = frames > inFlight ? frames - inFlight : 0; k < frames; ++k) finish(k);
    return run;
}

}  // namespace demo
