// Data movement: Concat (in-place and copy paths), the views (Reshape, Flatten, Squeeze,
// Unsqueeze, Identity, Dropout) including graph outputs that alias inputs or each other,
// Transpose, DepthToSpace and SpaceToDepth.
#include <fmt/format.h>

#include <functional>

#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

// Adds a 3x3 pad-1 Conv (C -> M channels) from `in` to `out`, so that `out` is produced by
// a dispatch (and can be written in place into a Concat).
void addConv(OnnxBuilder& b, const std::string& in, const std::string& out, int64_t c, int64_t m, uint32_t seed,
             int64_t k = 3) {
    b.initializer(out + "_w", randomTensor({m, c, k, k}, seed)).initializer(out + "_b", randomTensor({m}, seed + 1));
    attr(b.node("Conv", {in, out + "_w", out + "_b"}, {out}), "pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
}

TEST(ConcatOp, InPlaceFromConvs) {
    VKINFER_REQUIRE_GPU();
    // Batch 1, axis 1: each conv output (16x4x4 floats = 1 KiB, so 64-byte aligned offsets)
    // is written directly into its slice: no copy dispatches.
    OnnxBuilder b;
    b.input("x", {1, 3, 4, 4}).output("y");
    addConv(b, "x", "c1", 3, 16, 1);
    addConv(b, "x", "c2", 3, 16, 2);
    addConv(b, "x", "c3", 3, 32, 3);
    attr(b.node("Concat", {"c1", "c2", "c3"}, {"y"}), "axis", int64_t{1});
    std::vector<NamedTensor> in{{"x", randomTensor({1, 3, 4, 4}, 4)}};
    EXPECT_EQ(planDispatches(b, in), 3) << "in-place Concat should need no copies";
    expectGpuMatchesCpu(b, in, "concat of 3 convs in place");
}

TEST(ConcatOp, InPlaceThenConsumed) {
    VKINFER_REQUIRE_GPU();
    // SqueezeNet's fire module: expand1x1 and expand3x3 concatenated, then read by a conv.
    OnnxBuilder b;
    b.input("x", {1, 8, 9, 9}).output("y");
    addConv(b, "x", "sq", 8, 4, 1, 1);
    addConv(b, "sq", "e1", 4, 16, 2, 1);
    addConv(b, "sq", "e3", 4, 16, 3, 3);
    attr(b.node("Concat", {"e1", "e3"}, {"cat"}), "axis", int64_t{1});
    addConv(b, "cat", "y", 32, 5, 4);
    expectGpuMatchesCpu(b, {{"x", randomTensor({1, 8, 9, 9}, 5)}}, "fire module");
}

TEST(ConcatOp, DenseBlockPrefixesShareTheLastConcat) {
    VKINFER_REQUIRE_GPU();
    // DenseNet's block: layer l concatenates [x0, f1 .. f(l-1)] and convolves it into fl; each
    // shorter Concat is the leading bytes of the block's last one, so every feature is written
    // once, in place, and no Concat copies (16 channels x 4x4 floats: 64-byte aligned slices).
    OnnxBuilder b;
    b.input("x", {1, 3, 4, 4}).output("y");
    addConv(b, "x", "x0", 3, 16, 1);
    std::vector<std::string> features{"x0"};
    for (int l = 1; l <= 3; ++l) {
        std::string cat = fmt::format("cat{}", l), f = fmt::format("f{}", l);
        if (features.size() == 1) {
            addConv(b, features[0], f, 16, 16, 10 * l);
        } else {
            attr(b.node("Concat", features, {cat}), "axis", int64_t{1});
            addConv(b, cat, f, 16 * static_cast<int64_t>(features.size()), 16, 10 * l);
        }
        features.push_back(f);
    }
    attr(b.node("Concat", features, {"cat"}), "axis", int64_t{1});
    addConv(b, "cat", "y", 64, 8, 99, 1);
    std::vector<NamedTensor> in{{"x", randomTensor({1, 3, 4, 4}, 4)}};
    EXPECT_EQ(planDispatches(b, in), 5) << "five convs, no copies";
    expectGpuMatchesCpu(b, in, "dense block");
}

TEST(ConcatOp, SplitKForDenseLayersAndParallelBranches) {
    // 7x7 maps over 64 channels: one output tile each, a 576-long reduction, so each conv
    // splits it (conv + reduce). A dense layer's conv runs alone (the other slices of its
    // Concat are its ancestors or descendants); two branches writing one Concat run side by
    // side and aim at half the split target each (ops/op_util.h, parallelSiblings). On the
    // portable tiles: a CPU's float32 default, the register-direct kernel, does not split.
    const std::vector<NamedTensor> in{{"x", randomTensor({1, 64, 7, 7}, 1)}};
    PlanOptions plan;
    plan.kernels.convTiles = ConvTiles::Small;
    SessionOptions session;
    session.kernels = plan.kernels;
    {
        OnnxBuilder b;
        b.input("x", {1, 64, 7, 7}).output("y");
        addConv(b, "x", "x0", 64, 64, 1, 1);
        addConv(b, "x0", "f1", 64, 32, 2);
        attr(b.node("Concat", {"x0", "f1"}, {"cat1"}), "axis", int64_t{1});
        addConv(b, "cat1", "f2", 96, 32, 3);
        attr(b.node("Concat", {"x0", "f1", "f2"}, {"y"}), "axis", int64_t{1});
        EXPECT_EQ(planDispatches(b, in, plan), 5) << "x0; f1 and f2 each split (two dispatches)";
        if (gpuAvailable()) expectGpuMatchesCpuWith(b, in, "dense layers with split-K", opTolerance(), session);
    }
    {
        OnnxBuilder b;
        b.input("x", {1, 64, 7, 7}).output("y");
        addConv(b, "x", "s", 64, 64, 1, 1);
        addConv(b, "s", "b1", 64, 32, 2);
        addConv(b, "s", "b2a", 64, 64, 3, 1);
        addConv(b, "b2a", "b2", 64, 32, 4);
        attr(b.node("Concat", {"b1", "b2"}, {"y"}), "axis", int64_t{1});
        EXPECT_EQ(planDispatches(b, in, plan), 6) << "s, b2a; b1 and b2 split";
        if (gpuAvailable()) expectGpuMatchesCpuWith(b, in, "parallel branches with split-K", opTolerance(), session);
    }
}

TEST(ConcatOp, PrefixConcatWithACopiedInputKeepsItsOwnStorage) {
    VKINFER_REQUIRE_GPU();
    // The shared leading input is a graph input, so the last Concat copies it, after the
    // shorter Concat's reader ran: the shorter one must not be a view of the longer.
    OnnxBuilder b;
    b.input("x", {1, 16, 4, 4}).output("y");
    addConv(b, "x", "f1", 16, 16, 1);
    attr(b.node("Concat", {"x", "f1"}, {"cat1"}), "axis", int64_t{1});
    addConv(b, "cat1", "f2", 32, 16, 2);
    attr(b.node("Concat", {"x", "f1", "f2"}, {"cat2"}), "axis", int64_t{1});
    addConv(b, "cat2", "y", 48, 8, 3, 1);
    std::vector<NamedTensor> in{{"x", randomTensor({1, 16, 4, 4}, 4)}};
    EXPECT_EQ(planDispatches(b, in), 5) << "three convs; x and f1 copied into cat1 (one dispatch), x into cat2";
    expectGpuMatchesCpu(b, in, "prefix concat with a graph input");
}

TEST(ConcatOp, CopyPaths) {
    VKINFER_REQUIRE_GPU();
    // Batch 2 at axis 1: every input is strided in the output, so each one is copied, both in
    // one dispatch (concat_parts).
    {
        OnnxBuilder b;
        b.input("x", {2, 3, 5, 5}).output("y");
        addConv(b, "x", "c1", 3, 4, 1);
        addConv(b, "x", "c2", 3, 6, 2);
        attr(b.node("Concat", {"c1", "c2"}, {"y"}), "axis", int64_t{1});
        std::vector<NamedTensor> in{{"x", randomTensor({2, 3, 5, 5}, 3)}};
        EXPECT_EQ(planDispatches(b, in), 3) << "two convs and one copy of both parts";
        expectGpuMatchesCpu(b, in, "concat batch 2 axis 1");
    }
    // Unaligned offsets: 3x5x5 floats = 300 bytes, so the second slice cannot be in place.
    {
        OnnxBuilder b;
        b.input("x", {1, 3, 5, 5}).output("y");
        addConv(b, "x", "c1", 3, 3, 1);
        addConv(b, "x", "c2", 3, 3, 2);
        addConv(b, "x", "c3", 3, 5, 3);
        attr(b.node("Concat", {"c1", "c2", "c3"}, {"y"}), "axis", int64_t{1});
        expectGpuMatchesCpu(b, {{"x", randomTensor({1, 3, 5, 5}, 4)}}, "concat unaligned offsets");
    }
    // An in-place-eligible conv output mixed with a graph input.
    {
        OnnxBuilder b;
        b.input("x", {1, 3, 4, 4}).input("z", {1, 5, 4, 4}).output("y");
        addConv(b, "x", "c1", 3, 16, 1);
        attr(b.node("Concat", {"c1", "z"}, {"y"}), "axis", int64_t{1});
        expectGpuMatchesCpu(b, {{"x", randomTensor({1, 3, 4, 4}, 2)}, {"z", randomTensor({1, 5, 4, 4}, 3)}},
                            "concat conv + graph input");
    }
    // Graph input first, then the conv.
    {
        OnnxBuilder b;
        b.input("x", {1, 3, 4, 4}).input("z", {1, 16, 4, 4}).output("y");
        addConv(b, "x", "c1", 3, 16, 1);
        attr(b.node("Concat", {"z", "c1"}, {"y"}), "axis", int64_t{1});
        expectGpuMatchesCpu(b, {{"x", randomTensor({1, 3, 4, 4}, 2)}, {"z", randomTensor({1, 16, 4, 4}, 3)}},
                            "concat graph input + conv");
    }
    // A constant initializer among the inputs.
    {
        OnnxBuilder b;
        b.input("x", {2, 3}).output("y");
        b.initializer("k", randomTensor({2, 4}, 9));
        attr(b.node("Concat", {"x", "k", "x"}, {"y"}), "axis", int64_t{-1});
        expectGpuMatchesCpu(b, {{"x", randomTensor({2, 3}, 8)}}, "concat with a constant");
    }
}

TEST(ConcatOp, SameTensorTwice) {
    VKINFER_REQUIRE_GPU();
    // A conv output used twice cannot live in two slices: the second needs a copy.
    {
        OnnxBuilder b;
        b.input("x", {1, 3, 4, 4}).output("y");
        addConv(b, "x", "c1", 3, 16, 1);
        attr(b.node("Concat", {"c1", "c1"}, {"y"}), "axis", int64_t{1});
        expectGpuMatchesCpu(b, {{"x", randomTensor({1, 3, 4, 4}, 2)}}, "concat(conv, conv)");
    }
    {
        OnnxBuilder b;
        b.input("x", {1, 3, 4, 4}).output("y");
        addConv(b, "x", "c1", 3, 16, 1);
        addConv(b, "x", "c2", 3, 16, 2);
        attr(b.node("Concat", {"c1", "c2", "c1", "x"}, {"y"}), "axis", int64_t{1});
        expectGpuMatchesCpu(b, {{"x", randomTensor({1, 3, 4, 4}, 2)}}, "concat(c1, c2, c1, x)");
    }
    {
        OnnxBuilder b;
        b.input("x", {2, 3, 5}).output("y");
        attr(b.node("Concat", {"x", "x", "x"}, {"y"}), "axis", int64_t{0});
        expectGpuMatchesCpu(b, {{"x", randomTensor({2, 3, 5}, 2)}}, "concat(x, x, x) axis 0");
    }
}

TEST(ConcatOp, InPlaceCornerCases) {
    VKINFER_REQUIRE_GPU();
    // Nested: the inner Concat lives inside the outer one, its convs inside it.
    {
        OnnxBuilder b;
        b.input("x", {1, 3, 4, 4}).output("y");
        addConv(b, "x", "c1", 3, 16, 1);
        addConv(b, "x", "c2", 3, 16, 2);
        addConv(b, "x", "c3", 3, 16, 3);
        attr(b.node("Concat", {"c1", "c2"}, {"inner"}), "axis", int64_t{1});
        attr(b.node("Concat", {"c3", "inner"}, {"y"}), "axis", int64_t{1});
        expectGpuMatchesCpu(b, {{"x", randomTensor({1, 3, 4, 4}, 2)}}, "nested concat");
    }
    // A view of a conv output cannot be placed (its producer is a view): it is copied.
    {
        OnnxBuilder b;
        b.input("x", {1, 3, 4, 4}).output("y");
        addConv(b, "x", "c1", 3, 16, 1);
        addConv(b, "x", "c2", 3, 16, 2);
        b.initializer("s", int64Tensor({4}, {1, 16, 2, 8}));
        b.node("Reshape", {"c1", "s"}, {"v"});
        b.initializer("s2", int64Tensor({4}, {1, 16, 2, 8}));
        b.node("Reshape", {"c2", "s2"}, {"v2"});
        attr(b.node("Concat", {"v", "v2"}, {"y"}), "axis", int64_t{1});
        expectGpuMatchesCpu(b, {{"x", randomTensor({1, 3, 4, 4}, 2)}}, "concat of views");
    }
    // An input that is also a graph output, and one also read by another node.
    {
        OnnxBuilder b;
        b.input("x", {1, 3, 4, 4}).output("y").output("c1").output("z");
        addConv(b, "x", "c1", 3, 16, 1);
        addConv(b, "x", "c2", 3, 16, 2);
        b.node("Sigmoid", {"c2"}, {"z"});
        attr(b.node("Concat", {"c1", "c2"}, {"y"}), "axis", int64_t{1});
        expectGpuMatchesCpu(b, {{"x", randomTensor({1, 3, 4, 4}, 2)}}, "concat inputs observed elsewhere");
    }
    // A single input.
    {
        OnnxBuilder b;
        b.input("x", {1, 3, 4, 4}).output("y");
        addConv(b, "x", "c1", 3, 16, 1);
        attr(b.node("Concat", {"c1"}, {"y"}), "axis", int64_t{1});
        expectGpuMatchesCpu(b, {{"x", randomTensor({1, 3, 4, 4}, 2)}}, "concat of one input");
    }
}

TEST(ConcatOp, Axes) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        int64_t axis;
        std::vector<Shape> shapes;
    };
    for (const Case& c : {Case{0, {{2, 3, 4}, {1, 3, 4}, {3, 3, 4}}}, Case{-1, {{2, 3, 4}, {2, 3, 1}, {2, 3, 7}}},
                          Case{-2, {{2, 3, 4}, {2, 5, 4}}}, Case{2, {{1, 2, 3, 5}, {1, 2, 1, 5}, {1, 2, 4, 5}}},
                          Case{3, {{2, 2, 3, 1}, {2, 2, 3, 2}}}, Case{0, {{5}, {7}, {1}}},
                          Case{1, {{1, 64, 40}, {1, 65, 40}}},
                          Case{2, {{1, 1, 16, 4}, {1, 1, 16, 4}, {1, 1, 3, 4}}},  // in place at axis 2
                          Case{0, {{2, 16}, {1, 16}, {3, 16}}}}) {                // in place at axis 0
        OnnxBuilder b;
        std::vector<NamedTensor> inputs;
        std::vector<std::string> names;
        std::string what = fmt::format("concat axis {}", c.axis);
        for (size_t i = 0; i < c.shapes.size(); ++i) {
            std::string name = fmt::format("x{}", i);
            // A Relu in front gives each input a producing dispatch (in-place candidates).
            b.input(name, c.shapes[i]);
            b.node("Relu", {name}, {name + "_r"});
            names.push_back(name + "_r");
            inputs.push_back({name, randomTensor(c.shapes[i], seedOf(what) + static_cast<uint32_t>(i))});
            what += fmt::format(" {}", shapeToString(c.shapes[i]));
        }
        b.output("y");
        attr(b.node("Concat", names, {"y"}), "axis", c.axis);
        expectGpuMatchesCpu(b, inputs, what);
    }
}

TEST(ConcatOp, ReferenceMatchesHandComputed) {
    OnnxBuilder b;
    b.input("a", {2, 2}).input("c", {2, 1}).output("y").output("z");
    attr(b.node("Concat", {"a", "c"}, {"y"}), "axis", int64_t{1});
    attr(b.node("Concat", {"a", "a"}, {"z"}), "axis", int64_t{0});
    expectReferenceEquals(b, {{"a", floatTensor({2, 2}, {1, 2, 3, 4})}, {"c", floatTensor({2, 1}, {5, 6})}},
                          {floatTensor({2, 3}, {1, 2, 5, 3, 4, 6}), floatTensor({4, 2}, {1, 2, 3, 4, 1, 2, 3, 4})},
                          "concat example");
}

// ---- views ----

// x -> Relu -> <view> -> Sigmoid -> y: a view between two dispatches.
void runViewBetween(const std::string& what, const Shape& x, const std::function<void(OnnxBuilder&)>& addView,
                    int64_t opset = 13) {
    SCOPED_TRACE(what);
    OnnxBuilder b(opset);
    b.input("x", x).output("y");
    b.node("Relu", {"x"}, {"r"});
    addView(b);  // r -> v
    b.node("Sigmoid", {"v"}, {"y"});
    expectGpuMatchesCpu(b, {{"x", randomTensor(x, seedOf(what))}}, what);
}

TEST(ViewOp, ReshapeFlattenSqueezeUnsqueeze) {
    VKINFER_REQUIRE_GPU();
    runViewBetween("reshape 0 and -1", {2, 3, 4, 5}, [](OnnxBuilder& b) {
        b.initializer("s", int64Tensor({3}, {0, -1, 5}));
        b.node("Reshape", {"r", "s"}, {"v"});
    });
    runViewBetween("reshape to 1-D", {2, 3, 4}, [](OnnxBuilder& b) {
        b.initializer("s", int64Tensor({1}, {-1}));
        b.node("Reshape", {"r", "s"}, {"v"});
    });
    for (int64_t axis : {0, 1, 2, -1}) {
        runViewBetween("flatten axis " + std::to_string(axis), {2, 3, 4, 5}, [axis](OnnxBuilder& b) {
            attr(b.node("Flatten", {"r"}, {"v"}), "axis", axis);
        });
    }
    runViewBetween("squeeze axes input", {1, 3, 1, 5}, [](OnnxBuilder& b) {
        b.initializer("ax", int64Tensor({2}, {0, -2}));
        b.node("Squeeze", {"r", "ax"}, {"v"});
    });
    runViewBetween("squeeze all unit dims", {1, 3, 1, 5, 1}, [](OnnxBuilder& b) { b.node("Squeeze", {"r"}, {"v"}); });
    runViewBetween("unsqueeze axes input", {3, 5}, [](OnnxBuilder& b) {
        b.initializer("ax", int64Tensor({3}, {0, -1, 2}));
        b.node("Unsqueeze", {"r", "ax"}, {"v"});
    });
    runViewBetween(
        "squeeze/unsqueeze opset 11 attributes", {1, 4, 1, 3},
        [](OnnxBuilder& b) {
            attr(b.node("Squeeze", {"r"}, {"s"}), "axes", std::vector<int64_t>{0, 2});
            attr(b.node("Unsqueeze", {"s"}, {"v"}), "axes", std::vector<int64_t>{1, 3});
        },
        11);
    runViewBetween("identity", {4, 6}, [](OnnxBuilder& b) { b.node("Identity", {"r"}, {"v"}); });
    runViewBetween("dropout", {4, 6}, [](OnnxBuilder& b) { b.node("Dropout", {"r"}, {"v"}); });
    runViewBetween("chain of views", {2, 3, 4}, [](OnnxBuilder& b) {
        b.initializer("s", int64Tensor({2}, {6, 4}));
        b.initializer("ax", int64Tensor({1}, {1}));
        b.node("Reshape", {"r", "s"}, {"t"});
        b.node("Unsqueeze", {"t", "ax"}, {"u"});
        b.node("Identity", {"u"}, {"w"});
        attr(b.node("Flatten", {"w"}, {"v"}), "axis", int64_t{2});
    });
}

TEST(ViewOp, ReferenceShapes) {
    // The views' output shapes, checked through the reference (values pass through).
    struct Case {
        const char* what;
        Shape in, out;
        std::function<void(OnnxBuilder&)> add;
    };
    std::vector<Case> cases{
        {"reshape 0,-1", {2, 3, 4}, {2, 12}, [](OnnxBuilder& b) {
             b.initializer("s", int64Tensor({2}, {0, -1}));
             b.node("Reshape", {"x", "s"}, {"y"});
         }},
        {"flatten axis 0", {2, 3, 4}, {1, 24}, [](OnnxBuilder& b) { attr(b.node("Flatten", {"x"}, {"y"}), "axis", int64_t{0}); }},
        {"flatten axis 2", {2, 3, 4}, {6, 4}, [](OnnxBuilder& b) { attr(b.node("Flatten", {"x"}, {"y"}), "axis", int64_t{2}); }},
        {"flatten axis = rank", {2, 3, 4}, {24, 1}, [](OnnxBuilder& b) { attr(b.node("Flatten", {"x"}, {"y"}), "axis", int64_t{3}); }},
        {"flatten axis -1", {2, 3, 4}, {6, 4}, [](OnnxBuilder& b) { attr(b.node("Flatten", {"x"}, {"y"}), "axis", int64_t{-1}); }},
        {"flatten default", {2, 3, 4}, {2, 12}, [](OnnxBuilder& b) { b.node("Flatten", {"x"}, {"y"}); }},
        {"squeeze", {1, 3, 1, 2}, {3, 2}, [](OnnxBuilder& b) { b.node("Squeeze", {"x"}, {"y"}); }},
        {"unsqueeze -1", {3, 2}, {3, 2, 1}, [](OnnxBuilder& b) {
             b.initializer("ax", int64Tensor({1}, {-1}));
             b.node("Unsqueeze", {"x", "ax"}, {"y"});
         }},
    };
    for (const auto& c : cases) {
        OnnxBuilder b;
        b.input("x", c.in).output("y");
        c.add(b);
        Tensor x = iotaTensor(c.in);
        Tensor want = iotaTensor(c.out);
        expectReferenceEquals(b, {{"x", x}}, {want}, c.what);
    }
}

TEST(ViewOp, OutputAliasesGraphInput) {
    VKINFER_REQUIRE_GPU();
    // The output is a view of the graph input: it needs its own bytes (a copy).
    {
        OnnxBuilder b;
        b.input("x", {2, 3, 4}).output("y");
        b.initializer("s", int64Tensor({2}, {6, 4}));
        b.node("Reshape", {"x", "s"}, {"y"});
        expectGpuMatchesCpu(b, {{"x", randomTensor({2, 3, 4}, 1)}}, "reshape of graph input as output");
    }
    {
        OnnxBuilder b;
        b.input("x", {5, 7}).output("y");
        b.node("Identity", {"x"}, {"y"});
        expectGpuMatchesCpu(b, {{"x", randomTensor({5, 7}, 2)}}, "identity of graph input");
    }
    // The output is a constant (folded): it is copied out of the weights.
    {
        OnnxBuilder b;
        b.input("x", {3}).output("y").output("k2");
        b.initializer("k", randomTensor({2, 3}, 3));
        b.node("Relu", {"x"}, {"y"});
        b.node("Flatten", {"k"}, {"k2"});
        expectGpuMatchesCpu(b, {{"x", randomTensor({3}, 4)}}, "constant output");
    }
}

TEST(ViewOp, ViewOfGraphInputFeedsDispatch) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder b;
    b.input("x", {2, 48}).output("y");
    b.initializer("s", int64Tensor({4}, {2, 3, 4, 4}));
    b.node("Reshape", {"x", "s"}, {"v"});
    b.initializer("w", randomTensor({5, 3, 3, 3}, 1));
    attr(b.node("Conv", {"v", "w"}, {"y"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
    expectGpuMatchesCpu(b, {{"x", randomTensor({2, 48}, 2)}}, "reshape of input -> conv");
}

TEST(ViewOp, GraphOutputIsGraphInput) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder b;
    b.input("x", {3, 5}).output("x").output("y");
    b.node("Relu", {"x"}, {"y"});
    expectGpuMatchesCpu(b, {{"x", randomTensor({3, 5}, 1)}}, "input passed straight through");
}

TEST(ViewOp, TwoOutputsAliasTheSameTensor) {
    VKINFER_REQUIRE_GPU();
    {
        OnnxBuilder b;
        b.input("x", {2, 3, 4}).output("a").output("b").output("r");
        b.node("Relu", {"x"}, {"r"});
        attr(b.node("Flatten", {"r"}, {"a"}), "axis", int64_t{2});
        b.initializer("s", int64Tensor({1}, {-1}));
        b.node("Reshape", {"r", "s"}, {"b"});
        expectGpuMatchesCpu(b, {{"x", randomTensor({2, 3, 4}, 1)}}, "three outputs on one tensor");
    }
    {
        OnnxBuilder b;
        b.input("x", {4, 5}).output("a").output("b");
        b.node("Identity", {"x"}, {"a"});
        b.node("Identity", {"x"}, {"b"});
        expectGpuMatchesCpu(b, {{"x", randomTensor({4, 5}, 2)}}, "two identities of an input");
    }
}

// ---- other element types: copies move 32-bit words, 8-byte elements as two words ----

Tensor intTensor(DataType type, const Shape& shape, int64_t start) {
    Tensor t(type, shape);
    for (int64_t i = 0; i < t.elementCount(); ++i) {
        int64_t v = (start + i * 7919) % 100003 - 50000;
        if (type == DataType::Int64) t.as<int64_t>()[i] = v * 1000003;  // uses the high word
        else t.as<int32_t>()[i] = static_cast<int32_t>(v);
    }
    return t;
}

TEST(LayoutOp, IntegerTensors) {
    VKINFER_REQUIRE_GPU();
    for (DataType type : {DataType::Int64, DataType::Int32}) {
        std::string tn = dataTypeName(type);
        {
            OnnxBuilder b;
            b.input("a", {2, 3, 5}, type).input("c", {2, 4, 5}, type).output("y", type);
            attr(b.node("Concat", {"a", "c", "a"}, {"y"}), "axis", int64_t{1});
            expectGpuMatchesCpu(b, {{"a", intTensor(type, {2, 3, 5}, 1)}, {"c", intTensor(type, {2, 4, 5}, 2)}},
                                "concat " + tn);
        }
        {
            OnnxBuilder b;
            b.input("a", {2, 3, 4, 5}, type).output("y", type);
            attr(b.node("Transpose", {"a"}, {"y"}), "perm", std::vector<int64_t>{3, 1, 0, 2});
            expectGpuMatchesCpu(b, {{"a", intTensor(type, {2, 3, 4, 5}, 3)}}, "transpose " + tn);
        }
        {
            OnnxBuilder b;
            b.input("a", {1, 8, 3, 2}, type).output("y", type);
            attr(b.node("DepthToSpace", {"a"}, {"d"}), "blocksize", int64_t{2});
            b.initializer("s", int64Tensor({2}, {4, -1}));
            b.node("Reshape", {"d", "s"}, {"y"});
            expectGpuMatchesCpu(b, {{"a", intTensor(type, {1, 8, 3, 2}, 4)}}, "depth-to-space + reshape " + tn);
        }
    }
}

// ---- Transpose, DepthToSpace, SpaceToDepth ----

void runPermutation(const std::string& what, const Shape& x, const std::function<void(OnnxBuilder&)>& addOp) {
    SCOPED_TRACE(what);
    OnnxBuilder b;
    b.input("x", x).output("y");
    addOp(b);
    expectGpuMatchesCpu(b, {{"x", randomTensor(x, seedOf(what))}}, what);
}

TEST(TransposeOp, Perms) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        Shape x;
        std::vector<int64_t> perm;  // empty: default (reverse)
    };
    for (const Case& c : {Case{{7, 13}, {}}, Case{{7, 13}, {1, 0}}, Case{{7, 13}, {0, 1}}, Case{{2, 3, 4}, {1, 0, 2}},
                          Case{{2, 3, 4}, {2, 0, 1}}, Case{{2, 3, 4}, {}}, Case{{2, 3, 5, 7}, {0, 2, 3, 1}},
                          Case{{2, 5, 7, 3}, {0, 3, 1, 2}}, Case{{1, 3, 1, 7}, {3, 1, 2, 0}},
                          Case{{2, 3, 4, 5, 6}, {4, 2, 0, 3, 1}}, Case{{2, 3, 4, 5, 6}, {0, 1, 2, 4, 3}},
                          Case{{1, 64, 32, 33}, {0, 2, 3, 1}}}) {
        std::string what = "transpose " + shapeToString(c.x) + " perm";
        for (auto p : c.perm) what += fmt::format(" {}", p);
        runPermutation(what, c.x, [&c](OnnxBuilder& b) {
            auto& n = b.node("Transpose", {"x"}, {"y"});
            if (!c.perm.empty()) attr(n, "perm", c.perm);
        });
    }
}

TEST(DepthSpaceOp, Shapes) {
    VKINFER_REQUIRE_GPU();
    for (const char* mode : {"DCR", "CRD"})
        for (const auto& [x, bs] : std::vector<std::pair<Shape, int64_t>>{
                 {{1, 8, 2, 3}, 2}, {{2, 18, 5, 4}, 3}, {{1, 4, 7, 9}, 2}, {{1, 32, 6, 5}, 4}}) {
            std::string what = std::string("DepthToSpace ") + mode + " " + shapeToString(x) + " b" + std::to_string(bs);
            int64_t blk = bs;
            std::string m = mode;
            runPermutation(what, x, [blk, m](OnnxBuilder& b) {
                auto& n = b.node("DepthToSpace", {"x"}, {"y"});
                attr(n, "blocksize", blk);
                attr(n, "mode", m);
            });
        }
    for (const auto& [x, bs] : std::vector<std::pair<Shape, int64_t>>{
             {{1, 2, 4, 6}, 2}, {{2, 3, 9, 6}, 3}, {{1, 5, 8, 12}, 4}, {{1, 1, 2, 2}, 2}}) {
        std::string what = "SpaceToDepth " + shapeToString(x) + " b" + std::to_string(bs);
        int64_t blk = bs;
        runPermutation(what, x, [blk](OnnxBuilder& b) { attr(b.node("SpaceToDepth", {"x"}, {"y"}), "blocksize", blk); });
    }
    // DepthToSpace then SpaceToDepth (DCR) is the identity.
    runPermutation("DepthToSpace/SpaceToDepth round trip", {1, 12, 5, 3}, [](OnnxBuilder& b) {
        attr(b.node("DepthToSpace", {"x"}, {"d"}), "blocksize", int64_t{2});
        attr(b.node("SpaceToDepth", {"d"}, {"y"}), "blocksize", int64_t{2});
    });
}

TEST(DepthSpaceOp, ReferenceMatchesHandComputed) {
    // ONNX DepthToSpace operator examples: x = 0..47 of shape [1, 8, 2, 3], blocksize 2.
    Tensor x = iotaTensor({1, 8, 2, 3});
    {
        OnnxBuilder b;
        b.input("x", {1, 8, 2, 3}).output("y");
        auto& n = b.node("DepthToSpace", {"x"}, {"y"});
        attr(n, "blocksize", int64_t{2});
        attr(n, "mode", std::string("DCR"));
        expectReferenceEquals(b, {{"x", x}},
                              {floatTensor({1, 2, 4, 6}, {0,  12, 1,  13, 2,  14, 24, 36, 25, 37, 26, 38, 3,  15, 4,  16,
                                                          5,  17, 27, 39, 28, 40, 29, 41, 6,  18, 7,  19, 8,  20, 30, 42,
                                                          31, 43, 32, 44, 9,  21, 10, 22, 11, 23, 33, 45, 34, 46, 35, 47})},
                              "DepthToSpace DCR example");
    }
    {
        OnnxBuilder b;
        b.input("x", {1, 8, 2, 3}).output("y");
        auto& n = b.node("DepthToSpace", {"x"}, {"y"});
        attr(n, "blocksize", int64_t{2});
        attr(n, "mode", std::string("CRD"));
        expectReferenceEquals(b, {{"x", x}},
                              {floatTensor({1, 2, 4, 6}, {0,  6,  1,  7,  2,  8,  12, 18, 13, 19, 14, 20, 3,  9,  4,  10,
                                                          5,  11, 15, 21, 16, 22, 17, 23, 24, 30, 25, 31, 26, 32, 36, 42,
                                                          37, 43, 38, 44, 27, 33, 28, 34, 29, 35, 39, 45, 40, 46, 41, 47})},
                              "DepthToSpace CRD example");
    }
    // SpaceToDepth of a 1x1x2x4 image, blocksize 2: channel (by, bx) takes pixel (2y+by, 2x+bx).
    {
        OnnxBuilder b;
        b.input("x", {1, 1, 2, 4}).output("y");
        attr(b.node("SpaceToDepth", {"x"}, {"y"}), "blocksize", int64_t{2});
        expectReferenceEquals(b, {{"x", iotaTensor({1, 1, 2, 4})}},
                              {floatTensor({1, 4, 1, 2}, {0, 2, 1, 3, 4, 6, 5, 7})}, "SpaceToDepth 2x4");
    }
    // Transpose [2,3] -> [3,2].
    {
        OnnxBuilder b;
        b.input("x", {2, 3}).output("y");
        b.node("Transpose", {"x"}, {"y"});
        expectReferenceEquals(b, {{"x", iotaTensor({2, 3})}}, {floatTensor({3, 2}, {0, 3, 1, 4, 2, 5})}, "transpose 2x3");
    }
    // Transpose [2,3,4] perm [2,0,1]: y[k][i][j] = x[i][j][k] = 12 i + 4 j + k.
    {
        OnnxBuilder b;
        b.input("x", {2, 3, 4}).output("y");
        attr(b.node("Transpose", {"x"}, {"y"}), "perm", std::vector<int64_t>{2, 0, 1});
        std::vector<float> want;
        for (int k = 0; k < 4; ++k)
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 3; ++j) want.push_back(static_cast<float>(12 * i + 4 * j + k));
        expectReferenceEquals(b, {{"x", iotaTensor({2, 3, 4})}}, {floatTensor({4, 2, 3}, want)}, "transpose perm 2,0,1");
    }
}

}  // namespace
}  // namespace vkinfer::testing
