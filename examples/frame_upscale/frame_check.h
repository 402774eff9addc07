// --check: what a frame must be for the demo to pass, checked on its pixels.
//
//   * the rendered frame has content: not uniform (standard deviation of its luma at least
//     kMinSceneStdDev), and differs from the previous frame (the scene is animated);
//   * the model's panel equals the model's own output for that frame, computed apart by
//     Session::run on CPU tensors in a separate vkinfer Context (within kTolerance LSB per
//     channel, caption boxes excepted): a wrong, shifted, stale or black upscale fails;
//   * the bicubic panel equals a CPU Catmull-Rom 2x upscale of the frame (same tolerance);
//   * the gap between them has its colour.
#pragma once

#include <vkinfer/vkinfer.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "composite_pass.h"

namespace demo {

struct CheckResult {
    bool pass = true;
    std::string summary;  // one line
};

class FrameChecker {
public:
    static constexpr int kTolerance = 2;
    static constexpr double kMinSceneStdDev = 0.05;

    // The reference runs on its own context on the device with `deviceUuid`, in `precision`
    // (the same plan as the pattern's, so the panels agree within the tolerance).
    FrameChecker(const vkinfer::Model& model, const std::array<uint8_t, 16>& deviceUuid, bool validate,
                 vkinfer::Precision precision = vkinfer::Precision::Float32);
    // `scene`: RGBA8 width x height; `composite`: RGBA8 layout.width() x layout.height().
    CheckResult check(const std::vector<uint8_t>& scene, const std::vector<uint8_t>& composite,
                      const CompositeLayout& layout);
    std::vector<std::string> engineMessages();

private:
    std::unique_ptr<vkinfer::Context> context_;
    std::unique_ptr<vkinfer::Session> session_;
    std::string inputName_;
    std::vector<uint8_t> previousScene_;
};

}  // namespace demo
