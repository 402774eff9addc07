// Softmax/LogSoftmax (src/ops/softmax.cpp: opset < 13 coerces to 2-D at axis, opset 13
// normalizes one axis) and LayerNormalization / InstanceNormalization
// (src/ops/normalization.cpp) and BatchNormalization with non-constant statistics: GPU
// against the CPU reference in both kernel modes, and the reference against hand-computed values.
#include <cmath>

#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

OnnxBuilder softmaxModel(const std::string& op, const Shape& x, int64_t axis, int64_t opset) {
    OnnxBuilder m(opset);
    m.input("x", x).output("y");
    auto& n = m.node(op, {"x"}, {"y"});
    if (axis != 100) attr(n, "axis", axis);
    return m;
}

TEST(SoftmaxOp, AxesAndOpsets) {
    VKINFER_REQUIRE_GPU();
    for (const char* op : {"Softmax", "LogSoftmax"})
        for (int64_t opset : {11, 13})
            for (int64_t axis : {100, 0, 1, -1}) {  // 100: the default
                Shape x = {3, 4, 5};
                std::string what = std::string(op) + " opset " + std::to_string(opset) + " axis " + std::to_string(axis);
                SCOPED_TRACE(what);
                expectGpuMatchesCpu(softmaxModel(op, x, axis, opset), {{"x", randomTensor(x, seedOf(what), -5, 5)}}, what);
            }
    // Long rows (one workgroup per row), strided rows, many rows.
    expectGpuMatchesCpu(softmaxModel("Softmax", {2, 3, 1000}, -1, 13), {{"x", randomTensor({2, 3, 1000}, 1, -10, 10)}},
                        "Softmax rows of 1000");
    expectGpuMatchesCpu(softmaxModel("LogSoftmax", {2, 300, 7}, 1, 13), {{"x", randomTensor({2, 300, 7}, 2, -10, 10)}},
                        "LogSoftmax strided rows of 300");
    expectGpuMatchesCpu(softmaxModel("Softmax", {20000, 4}, -1, 13), {{"x", randomTensor({20000, 4}, 3, -10, 10)}},
                        "Softmax 20000 rows");
}

TEST(SoftmaxOp, ReferenceMatchesHandComputed) {
    // Rows [1, 2, 3] and [1000, 1000, 1000] (large: must not overflow).
    Tensor x = floatTensor({2, 3}, {1, 2, 3, 1000, 1000, 1000});
    double s = std::exp(-2.0) + std::exp(-1.0) + 1.0;
    std::vector<float> soft = {static_cast<float>(std::exp(-2.0) / s), static_cast<float>(std::exp(-1.0) / s),
                               static_cast<float>(1.0 / s), 1.0f / 3, 1.0f / 3, 1.0f / 3};
    std::vector<float> logSoft = {static_cast<float>(-2 - std::log(s)), static_cast<float>(-1 - std::log(s)),
                                  static_cast<float>(-std::log(s)), -std::log(3.0f), -std::log(3.0f), -std::log(3.0f)};
    expectReferenceEquals(softmaxModel("Softmax", {2, 3}, -1, 13), {{"x", x}}, {floatTensor({2, 3}, soft)}, "Softmax");
    expectReferenceEquals(softmaxModel("LogSoftmax", {2, 3}, -1, 13), {{"x", x}}, {floatTensor({2, 3}, logSoft)}, "LogSoftmax");
    // Opset 11 at axis 0 normalizes over all six elements at once.
    Tensor y = floatTensor({2, 3}, {0, 0, 0, 0, 0, std::log(5.0f)});
    expectReferenceEquals(softmaxModel("Softmax", {2, 3}, 0, 11), {{"x", y}},
                          {floatTensor({2, 3}, {0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.5f})}, "Softmax opset 11 axis 0 (2-D coercion)");
}

OnnxBuilder layerNormModel(const Shape& x, int64_t axis, bool bias, bool stats, bool constParams = false) {
    OnnxBuilder m(17);
    m.input("x", x);
    int64_t rank = static_cast<int64_t>(x.size());
    Shape p(x.begin() + (axis < 0 ? axis + rank : axis), x.end());
    if (constParams) {
        m.initializer("scale", randomTensor(p, 11, 0.5f, 1.5f));
        if (bias) m.initializer("bias", randomTensor(p, 12));
    } else {
        m.input("scale", p);
        if (bias) m.input("bias", p);
    }
    m.output("y");
    std::vector<std::string> outs = {"y"};
    if (stats) {
        m.output("mean").output("inv_std");
        outs.insert(outs.end(), {"mean", "inv_std"});
    }
    auto& n = m.node("LayerNormalization", bias ? std::vector<std::string>{"x", "scale", "bias"}
                                                : std::vector<std::string>{"x", "scale"},
                     outs);
    attr(n, "axis", axis);
    attr(n, "epsilon", 1e-3f);
    return m;
}

TEST(LayerNormOp, AxesBiasStats) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        Shape x;
        int64_t axis;
    };
    // (3 x 201 rows of 40 and 600 of 250: many short rows, 8 rows of 32 lanes a workgroup,
    // the last workgroup part empty; a lane's share 1 or 2 elements, or 7 or 8. Rows of 600,
    // 768 and 1024 and of 1000 over two axes: a workgroup of 256 a row in registers, its last
    // invocations with 2 of 4 or all 4 elements; rows of 1030: a workgroup a row walking it.)
    const Case cases[] = {{{2, 3, 8}, -1},  {{2, 3, 4, 5}, 1}, {{4, 600}, 1},    {{20000, 3}, -1},
                          {{3, 5}, 0},      {{3, 201, 40}, -1}, {{600, 250}, 1}, {{5, 768}, -1},
                          {{2, 1024}, -1},  {{3, 40, 25}, 1},   {{2, 1030}, -1}};
    for (const auto& c : cases)
        for (int variant = 0; variant < 3; ++variant) {  // bias + stats, no bias, bias without stats
            bool bias = variant != 1, stats = variant == 0;
            std::string what = "LayerNorm " + shapeToString(c.x) + " axis " + std::to_string(c.axis) + (bias ? " bias" : "") +
                               (stats ? " stats" : "");
            SCOPED_TRACE(what);
            int64_t rank = static_cast<int64_t>(c.x.size());
            Shape p(c.x.begin() + (c.axis < 0 ? c.axis + rank : c.axis), c.x.end());
            std::vector<NamedTensor> in = {{"x", randomTensor(c.x, seedOf(what), -3, 5)},
                                           {"scale", randomTensor(p, seedOf(what) + 1, 0.5f, 1.5f)}};
            if (bias) in.push_back({"bias", randomTensor(p, seedOf(what) + 2)});
            expectGpuMatchesCpu(layerNormModel(c.x, c.axis, bias, stats), in, what);
        }
    // Many short rows in float16 (ConvNeXt's 3136 tokens of 96 channels).
    {
        const Shape x{1, 3136, 96};
        std::vector<NamedTensor> in = {{"x", randomTensor(x, 41, -3, 5)},
                                       {"scale", randomTensor({96}, 42, 0.5f, 1.5f)},
                                       {"bias", randomTensor({96}, 43)}};
        expectGpuMatchesCpu(layerNormModel(x, -1, true, false), in, "LayerNorm 3136 x 96 fp16", Tolerance{1e-2, 1e-2, true},
                            Precision::Float16);
    }
    // A constant scale that broadcasts over the normalized shape [4, 5] is expanded at load time.
    OnnxBuilder m(17);
    m.input("x", {2, 4, 5}).output("y");
    m.initializer("scale", randomTensor({5}, 3, 0.5f, 1.5f));
    m.initializer("bias", randomTensor({4, 1}, 4));
    attr(m.node("LayerNormalization", {"x", "scale", "bias"}, {"y"}), "axis", int64_t{1});
    expectGpuMatchesCpu(m, {{"x", randomTensor({2, 4, 5}, 5)}}, "LayerNorm broadcast constant parameters");
}

TEST(LayerNormOp, ReferenceMatchesHandComputed) {
    // Row [1, 2, 3, 6]: mean 3, variance (4 + 1 + 0 + 9) / 4 = 3.5.
    OnnxBuilder m(17);
    m.input("x", {1, 4}).output("y").output("mean").output("inv_std");
    m.initializer("scale", floatTensor({4}, {1, 2, 1, 1}));
    m.initializer("bias", floatTensor({4}, {0, 0, 1, 0}));
    attr(m.node("LayerNormalization", {"x", "scale", "bias"}, {"y", "mean", "inv_std"}), "epsilon", 0.5f);
    float inv = 1.0f / std::sqrt(3.5f + 0.5f);  // = 0.5
    expectReferenceEquals(m, {{"x", floatTensor({1, 4}, {1, 2, 3, 6})}},
                          {floatTensor({1, 4}, {-2 * inv, -1 * inv * 2, 1, 3 * inv}), floatTensor({1, 1}, {3}),
                           floatTensor({1, 1}, {inv})},
                          "LayerNorm with stats");
}

TEST(InstanceNormOp, MatchesReference) {
    VKINFER_REQUIRE_GPU();
    for (const Shape& x : {Shape{2, 3, 4, 5}, Shape{1, 2, 1, 3}, Shape{2, 4, 30, 30}, Shape{2, 3, 7}}) {
        std::string what = "InstanceNorm " + shapeToString(x);
        OnnxBuilder m(6);
        m.input("x", x).input("s", {x[1]}).input("b", {x[1]}).output("y");
        attr(m.node("InstanceNormalization", {"x", "s", "b"}, {"y"}), "epsilon", 1e-2f);
        expectGpuMatchesCpu(m,
                            {{"x", randomTensor(x, seedOf(what), -2, 4)},
                             {"s", randomTensor({x[1]}, seedOf(what) + 1)},
                             {"b", randomTensor({x[1]}, seedOf(what) + 2)}},
                            what);
    }
    // Channel planes [0, 2] and [4, 6] (variance 1): (x - mean) / sqrt(var + eps) * s + b, eps = 0.
    OnnxBuilder m(6);
    m.input("x", {1, 2, 2}).output("y");
    m.initializer("s", floatTensor({2}, {2, 1}));
    m.initializer("b", floatTensor({2}, {0, 7}));
    attr(m.node("InstanceNormalization", {"x", "s", "b"}, {"y"}), "epsilon", 0.0f);
    expectReferenceEquals(m, {{"x", floatTensor({1, 2, 2}, {0, 2, 4, 6})}}, {floatTensor({1, 2, 2}, {-2, 2, 6, 8})},
                          "InstanceNorm hand-computed", Tolerance{1e-5, 1e-6, true});
}

TEST(BatchNormOp, StatisticsAsInputs) {
    VKINFER_REQUIRE_GPU();
    // Statistics that are graph inputs cannot be folded into a scale and shift at load time.
    OnnxBuilder m(15);
    m.input("x", {2, 3, 4, 5}).input("s", {3}).input("b", {3}).input("mean", {3}).input("var", {3}).output("y");
    attr(m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y"}), "epsilon", 1e-2f);
    expectGpuMatchesCpu(m,
                        {{"x", randomTensor({2, 3, 4, 5}, 1)},
                         {"s", randomTensor({3}, 2)},
                         {"b", randomTensor({3}, 3)},
                         {"mean", randomTensor({3}, 4)},
                         {"var", randomTensor({3}, 5, 0.1f, 2.0f)}},
                        "BatchNorm with input statistics");
}

TEST(BatchNormOp, TrainingMode) {
    VKINFER_REQUIRE_GPU();
    // Batch statistics normalize y; outputs 1 and 2 are the updated running statistics.
    for (bool stats : {true, false}) {
        OnnxBuilder m(15);
        m.input("x", {3, 4, 5, 6}).input("s", {4}).input("b", {4}).input("mean", {4}).input("var", {4}).output("y");
        std::vector<std::string> outs = {"y"};
        if (stats) {
            m.output("running_mean").output("running_var");
            outs.insert(outs.end(), {"running_mean", "running_var"});
        }
        auto& n = m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, outs);
        attr(n, "training_mode", int64_t{1});
        attr(n, "momentum", 0.8f);
        expectGpuMatchesCpu(m,
                            {{"x", randomTensor({3, 4, 5, 6}, 1, -1, 3)},
                             {"s", randomTensor({4}, 2)},
                             {"b", randomTensor({4}, 3)},
                             {"mean", randomTensor({4}, 4)},
                             {"var", randomTensor({4}, 5, 0.1f, 2.0f)}},
                            std::string("BatchNorm training mode") + (stats ? " with running statistics" : ""));
    }
    // One channel, batch [1, 3] and [5, 7]: mean 4, variance 5; running mean 0 * 0.9 + 4 * 0.1,
    // running variance 1 * 0.9 + 5 * 0.1.
    OnnxBuilder m(15);
    m.input("x", {2, 1, 2}).output("y").output("rm").output("rv");
    m.initializer("s", floatTensor({1}, {1}));
    m.initializer("b", floatTensor({1}, {0}));
    m.initializer("mean", floatTensor({1}, {0}));
    m.initializer("var", floatTensor({1}, {1}));
    auto& n = m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y", "rm", "rv"});
    attr(n, "training_mode", int64_t{1});
    attr(n, "epsilon", 0.0f);
    float r5 = 1.0f / std::sqrt(5.0f);
    expectReferenceEquals(m, {{"x", floatTensor({2, 1, 2}, {1, 3, 5, 7})}},
                          {floatTensor({2, 1, 2}, {-3 * r5, -r5, r5, 3 * r5}), floatTensor({1}, {0.4f}), floatTensor({1}, {1.4f})},
                          "BatchNorm training mode hand-computed");
}

}  // namespace
}  // namespace vkinfer::testing
