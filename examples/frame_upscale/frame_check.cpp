#include "frame_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "pattern.h"
#include "vk_util.h"

namespace demo {

namespace {

uint8_t toByte(float v) {
    return static_cast<uint8_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
}

// Worst difference and the number of values above the tolerance, over one panel.
struct PanelDiff {
    int worst = 0;
    size_t over = 0, compared = 0;
};

// The same arithmetic as bicubicPixel in shaders/composite.frag (Catmull-Rom, clamped taps).
void catmullRom(float f, float w[4]) {
    w[0] = ((-0.5f * f + 1.0f) * f - 0.5f) * f;
    w[1] = (1.5f * f - 2.5f) * f * f + 1.0f;
    w[2] = ((-1.5f * f + 2.0f) * f + 0.5f) * f;
    w[3] = (0.5f * f - 0.5f) * f * f;
}

float bicubic(const std::vector<uint8_t>& scene, int W, int H, int qx, int qy, int c) {
    float sx = (qx + 0.5f) * 0.5f - 0.5f, sy = (qy + 0.5f) * 0.5f - 0.5f;
    float bx = std::floor(sx), by = std::floor(sy);
    float wx[4], wy[4];
    catmullRom(sx - bx, wx);
    catmullRom(sy - by, wy);
    float sum = 0;
    for (int j = 0; j < 4; ++j) {
        float row = 0;
        for (int i = 0; i < 4; ++i) {
            int x = std::clamp(static_cast<int>(bx) + i - 1, 0, W - 1),
                y = std::clamp(static_cast<int>(by) + j - 1, 0, H - 1);
            row += wx[i] * (scene[4 * (size_t(y) * W + x) + c] / 255.0f);
        }
        sum += wy[j] * row;
    }
    return sum;
}

bool inCaption(const CompositeLayout& l, int x, int y) {
    for (int i = 0; i < 3; ++i)
        if (l.box(i).contains(x, y)) return true;
    return false;
}

}  // namespace

FrameChecker::FrameChecker(const vkinfer::Model& model, const std::array<uint8_t, 16>& deviceUuid, bool validate,
                           vkinfer::Precision precision)
    : inputName_(model.inputs().at(0).name) {
    vkinfer::ContextOptions co;
    co.deviceUuid = deviceUuid;
    co.validate = validate;
    auto context = vkinfer::Context::create(co);
    demo::check(context.status(), "creating the reference context of --check");
    context_ = std::make_unique<vkinfer::Context>(std::move(context).value());
    vkinfer::SessionOptions options;
    options.precision = precision;
    auto session = vkinfer::Session::create(*context_, model, options);
    demo::check(session.status(), "creating the reference session of --check");
    session_ = std::make_unique<vkinfer::Session>(std::move(session).value());
}

std::vector<std::string> FrameChecker::engineMessages() {
    return context_->takeValidationMessages();
}

CheckResult FrameChecker::check(const std::vector<uint8_t>& scene, const std::vector<uint8_t>& composite,
                                const CompositeLayout& layout) {
    const int W = static_cast<int>(layout.sceneWidth), H = static_cast<int>(layout.sceneHeight);
    const int CW = static_cast<int>(layout.width());
    const size_t plane = size_t(W) * H;
    std::vector<std::string> failures;

    // The rendered frame has content and moves.
    double sum = 0, sumSq = 0;
    for (size_t i = 0; i < plane; ++i) {
        double luma = (0.299 * scene[4 * i] + 0.587 * scene[4 * i + 1] + 0.114 * scene[4 * i + 2]) / 255.0;
        sum += luma;
        sumSq += luma * luma;
    }
    double mean = sum / plane, stddev = std::sqrt(std::max(0.0, sumSq / plane - mean * mean));
    if (stddev < kMinSceneStdDev)
        failures.push_back("the rendered frame is nearly uniform (luma standard deviation " + std::to_string(stddev) +
                           ")");
    if (!previousScene_.empty() && previousScene_ == scene)
        failures.push_back("the rendered frame is identical to the previous one (no animation)");
    previousScene_ = scene;

    // The reference: the same frame through Session::run.
    vkinfer::Tensor input(vkinfer::DataType::Float32, {1, 3, H, W});
    float* t = input.as<float>();
    for (size_t i = 0; i < plane; ++i)
        for (int c = 0; c < 3; ++c) t[c * plane + i] = scene[4 * i + c] / 255.0f;
    auto ref = session_->run({{inputName_, input}});
    demo::check(ref.status(), "running the reference of --check");
    const vkinfer::Tensor& out = ref->at(0).tensor;
    if (out.shape() != std::vector<int64_t>{1, 3, 2 * H, 2 * W})
        throw DemoError("--check: the reference output has another shape");
    const float* o = out.as<float>();
    const size_t outPlane = size_t(4) * plane;

    PanelDiff model, cubic;
    int gapWorst = 0;
    size_t modelStd = 0;
    double mSum = 0, mSumSq = 0;
    const uint8_t gapValue = toByte(0.08f);
    for (int y = 0; y < 2 * H; ++y)
        for (int x = 0; x < CW; ++x) {
            if (inCaption(layout, x, y)) continue;
            const uint8_t* px = &composite[4 * (size_t(y) * CW + x)];
            if (x < 2 * W) {
                for (int c = 0; c < 3; ++c) {
                    int d = std::abs(int(px[c]) - int(toByte(o[c * outPlane + size_t(y) * 2 * W + x])));
                    model.worst = std::max(model.worst, d);
                    model.over += d > kTolerance;
                }
                double luma = (0.299 * px[0] + 0.587 * px[1] + 0.114 * px[2]) / 255.0;
                mSum += luma;
                mSumSq += luma * luma;
                ++modelStd;
                ++model.compared;
            } else if (x < static_cast<int>(layout.bicubicX())) {
                for (int c = 0; c < 3; ++c) gapWorst = std::max(gapWorst, std::abs(int(px[c]) - int(gapValue)));
            } else {
                int qx = x - static_cast<int>(layout.bicubicX());
                for (int c = 0; c < 3; ++c) {
                    int d = std::abs(int(px[c]) - int(toByte(bicubic(scene, W, H, qx, y, c))));
                    cubic.worst = std::max(cubic.worst, d);
                    cubic.over += d > kTolerance;
                }
                ++cubic.compared;
            }
        }
    if (model.compared == 0 || cubic.compared == 0) failures.push_back("no pixel of a panel could be compared");
    if (model.over)
        failures.push_back(std::to_string(model.over) +
                           " model panel values differ from Session::run's output by more than " +
                           std::to_string(kTolerance) + " (worst " + std::to_string(model.worst) + ")");
    if (cubic.over)
        failures.push_back(std::to_string(cubic.over) +
                           " bicubic panel values differ from the CPU bicubic by more than " +
                           std::to_string(kTolerance) + " (worst " + std::to_string(cubic.worst) + ")");
    if (gapWorst > kTolerance) failures.push_back("the gap between the panels has another colour");
    double mMean = modelStd ? mSum / modelStd : 0;
    double mStd = modelStd ? std::sqrt(std::max(0.0, mSumSq / modelStd - mMean * mMean)) : 0;

    char line[512];
    std::snprintf(
        line, sizeof(line),
        "scene luma stddev %.3f; model panel vs Session::run: worst %d LSB over %zu pixels (luma stddev %.3f); "
        "bicubic panel vs CPU: worst %d LSB; gap: worst %d LSB",
        stddev, model.worst, model.compared, mStd, cubic.worst, gapWorst);
    CheckResult r;
    r.summary = line;
    r.pass = failures.empty();
    for (const auto& f : failures) r.summary += "\n  FAILED: " + f;
    return r;
}

}  // namespace demo
