// Common subexpressions (passes/common_subexpressions.h), with no GPU: what merges (the same
// op, attributes and inputs; chains of them), what does not (other attributes, other inputs,
// a repeated graph output), that the merged graph computes what the model does (the CPU
// reference on both), and a LayerNorm whose variance takes its own mean (two ReduceMeans,
// two Subs, as a model computing `x.var()` beside `x.mean()` is exported) becoming one
// LayerNormalization once the copies are merged.
#include <gtest/gtest.h>

#include <algorithm>

#include "passes/common_subexpressions.h"
#include "passes/specialize.h"
#include "plan/fusion_test_util.h"
#include "runtime/model_data.h"
#include "support/onnx_builder.h"

namespace vkinfer::passes {
namespace {

using testing::attr;
using testing::OnnxBuilder;
using testing::randomTensor;

struct Merged {
    graph::Graph graph;
    int merged = 0;
};

Merged mergeIn(const OnnxBuilder& b) {
    auto m = b.build();
    if (!m.ok()) throw std::runtime_error(m.status().toString());
    auto shapes = m->resolveShapes({});
    if (!shapes.ok()) throw std::runtime_error(shapes.status().toString());
    Merged r{specialize(m->data()->graph, *shapes)};
    r.merged = mergeCommonSubexpressions(r.graph);
    return r;
}

size_t live(const graph::Graph& g, const std::string& op) {
    return static_cast<size_t>(
        std::count_if(g.nodes.begin(), g.nodes.end(), [&](const graph::Node& n) { return !n.removed && n.opType == op; }));
}

// The merged graph on the CPU against the model on the CPU: equal, element for element.
void expectSameOutputs(const OnnxBuilder& b, const graph::Graph& merged, const std::vector<NamedTensor>& inputs) {
    plan::testutil::expectComputesTheSame(b, merged, inputs, 0.0, 0.0);
}

TEST(CommonSubexpressions, RepeatedNodesAndTheirChainsMerge) {
    // relu(x) + relu(x), and sigmoid of each: the second Relu and then the second Sigmoid
    // (whose input became the first Relu's output) merge.
    OnnxBuilder b(13);
    b.input("x", {2, 3, 4}).output("y");
    b.node("Relu", {"x"}, {"r1"});
    b.node("Relu", {"x"}, {"r2"});
    b.node("Sigmoid", {"r1"}, {"s1"});
    b.node("Sigmoid", {"r2"}, {"s2"});
    b.node("Add", {"s1", "s2"}, {"y"});
    Merged r = mergeIn(b);
    EXPECT_EQ(r.merged, 2);
    EXPECT_EQ(live(r.graph, "Relu"), 1u);
    EXPECT_EQ(live(r.graph, "Sigmoid"), 1u);
    expectSameOutputs(b, r.graph, {{"x", randomTensor({2, 3, 4}, 1)}});
}

TEST(CommonSubexpressions, OtherAttributesOtherInputsAndGraphOutputsStay) {
    OnnxBuilder b(13);
    b.input("x", {2, 3, 4}).input("z", {2, 3, 4}).output("y").output("o1").output("o2");
    attr(b.node("LeakyRelu", {"x"}, {"a"}), "alpha", 0.1f);
    attr(b.node("LeakyRelu", {"x"}, {"c"}), "alpha", 0.2f);  // another slope
    b.node("Relu", {"z"}, {"d"});                              // another input
    b.node("Relu", {"x"}, {"o1"});
    b.node("Relu", {"x"}, {"o2"});  // the same as o1, but both are outputs
    b.node("Add", {"a", "c"}, {"ac"});
    b.node("Add", {"ac", "d"}, {"y"});
    Merged r = mergeIn(b);
    EXPECT_EQ(r.merged, 0);
    EXPECT_EQ(live(r.graph, "LeakyRelu"), 2u);
    EXPECT_EQ(live(r.graph, "Relu"), 3u);
    expectSameOutputs(b, r.graph, {{"x", randomTensor({2, 3, 4}, 2)}, {"z", randomTensor({2, 3, 4}, 3)}});
}

// mean(x), and var(x) as (x - mean(x))^2 averaged with its own mean: after the merge the
// LayerNorm pattern sees one mean and one difference, and the plan one LayerNormalization.
TEST(CommonSubexpressions, AVarianceWithItsOwnMeanBecomesOneLayerNormalization) {
    OnnxBuilder b(17);
    b.input("x", {2, 5, 24}).output("y");
    b.initializer("eps", testing::floatTensor({}, {1e-5f})).initializer("two", testing::floatTensor({}, {2.0f}));
    b.initializer("gamma", randomTensor({24}, 4, 0.5f, 1.5f)).initializer("beta", randomTensor({24}, 5));
    auto mean = [&](const std::string& in, const std::string& out) {
        attr(b.node("ReduceMean", {in}, {out}), "axes", std::vector<int64_t>{-1});
    };
    mean("x", "mu");
    b.node("Sub", {"x", "mu"}, {"d"});
    mean("x", "mu_for_var");  // x.var() computes its own mean
    b.node("Sub", {"x", "mu_for_var"}, {"d_for_var"});
    b.node("Pow", {"d_for_var", "two"}, {"d2"});
    mean("d2", "var");
    b.node("Add", {"var", "eps"}, {"ve"});
    b.node("Sqrt", {"ve"}, {"sd"});
    b.node("Div", {"d", "sd"}, {"n"});
    b.node("Mul", {"n", "gamma"}, {"ng"});
    b.node("Add", {"ng", "beta"}, {"y"});
    Merged r = mergeIn(b);
    EXPECT_EQ(r.merged, 2);  // the second mean, then the second difference
    expectSameOutputs(b, r.graph, {{"x", randomTensor({2, 5, 24}, 6)}});

    plan::CompiledPlan p = plan::testutil::compileModel(b, PlanOptions{});
    EXPECT_EQ(p.summary.dispatches, 1u);
    EXPECT_EQ(live(p.graph, "LayerNormalization"), 1u);
}

}  // namespace
}  // namespace vkinfer::passes
