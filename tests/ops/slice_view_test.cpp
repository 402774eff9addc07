// Slice, Split and one-index Gather as views (OpDef::viewOffset): where every output is a
// contiguous run of the input at an offset the device can bind (ShuffleNet's channel halves of
// a batch-1 map, attention's q, k, v of the stacked projections), the plan gives them no
// dispatch; elsewhere they stay copies. And Concat reading its parts through windows
// (passes/concat_views.h): torch.roll's Slices and Swin's patch-merging quarters are no copies
// of their own, and the parts go in one dispatch. A Pad that adds nothing is a view too. Plans
// are checked from the description, and the models run against the CPU reference.
#include <nlohmann/json.hpp>

#include <algorithm>

#include "ops/op_harness.h"
#include "vkinfer/plan.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;
using nlohmann::json;

// A ShuffleNet v2 unit: x -> Relu -> the two channel halves (Split, or two Slices); the second
// half through a 1x1 conv and Relu; Concat; channel shuffle (Reshape, Transpose, Reshape).
OnnxBuilder shuffleUnit(const Shape& x, bool withSplit) {
    const int64_t c = x[1], half = c / 2;
    OnnxBuilder b;
    b.input("x", x).output("y");
    b.node("Relu", {"x"}, {"a"});
    if (withSplit) {
        attr(b.node("Split", {"a"}, {"s1", "s2"}, "split"), "axis", int64_t{1});
    } else {
        b.initializer("zero", int64Tensor({1}, {0})).initializer("mid", int64Tensor({1}, {half}));
        b.initializer("end", int64Tensor({1}, {c})).initializer("axis", int64Tensor({1}, {1}));
        b.node("Slice", {"a", "zero", "mid", "axis"}, {"s1"}, "first");
        b.node("Slice", {"a", "mid", "end", "axis"}, {"s2"}, "second");
    }
    b.initializer("w", randomTensor({half, half, 1, 1}, 11, -1.0f, 1.0f));
    b.node("Conv", {"s2", "w"}, {"t"}, "branch");
    b.node("Relu", {"t"}, {"r"});
    attr(b.node("Concat", {"s1", "r"}, {"cat"}), "axis", int64_t{1});
    b.initializer("split_shape", int64Tensor({5}, {x[0], 2, half, x[2], x[3]}));
    b.initializer("merged_shape", int64Tensor({4}, {x[0], c, x[2], x[3]}));
    b.node("Reshape", {"cat", "split_shape"}, {"grouped"});
    attr(b.node("Transpose", {"grouped"}, {"swapped"}), "perm", std::vector<int64_t>{0, 2, 1, 3, 4});
    b.node("Reshape", {"swapped", "merged_shape"}, {"y"});
    return b;
}

// The plan's view nodes and dispatch kernels at a binding alignment of `alignment`.
struct PlanFacts {
    std::vector<std::string> views, kernels;
    bool has(const std::string& view) const { return std::find(views.begin(), views.end(), view) != views.end(); }
};

PlanFacts planFacts(const OnnxBuilder& b, const Shape& x, uint32_t alignment,
                    Precision precision = Precision::Float32) {
    auto model = b.build();
    EXPECT_TRUE(model.ok()) << model.status().toString();
    PlanOptions o;
    o.precision = precision;
    o.device.storageBufferOffsetAlignment = alignment;
    auto j = planJson(*model, {{"x", x}}, o);
    EXPECT_TRUE(j.ok()) << j.status().toString();
    PlanFacts f;
    if (!j.ok()) return f;
    const json plan = json::parse(*j);
    for (const auto& v : plan["views"]) f.views.push_back(v);
    for (const auto& d : plan["schedule"]) f.kernels.push_back(d["kernel"]);
    return f;
}

TEST(SliceView, ChannelHalvesOfABatchOneMapAreViews) {
    const Shape x{1, 16, 6, 6};  // a channel is 144 bytes in float32, 72 in float16
    for (bool split : {false, true}) {
        SCOPED_TRACE(split ? "Split" : "Slice");
        PlanFacts f = planFacts(shuffleUnit(x, split), x, 16);
        if (split) {
            EXPECT_TRUE(f.has("split"));
        } else {
            // The first half, read only by the Concat, is read through its window there.
            EXPECT_FALSE(f.has("first"));
            EXPECT_TRUE(f.has("second"));
        }
        // Only the Concat's copy of the first half and the Transpose move bytes.
        EXPECT_EQ(std::count_if(f.kernels.begin(), f.kernels.end(),
                                [](const std::string& k) { return k.rfind("copy_strided", 0) == 0; }),
                  2)
            << ::testing::PrintToString(f.kernels);
        // Float16: 8 channels are 576 bytes, a multiple of 64 too.
        EXPECT_TRUE(planFacts(shuffleUnit(x, split), x, 64, Precision::Float16).has(split ? "split" : "second"));
    }
    // 3x3 maps: the second half starts at 8 * 36 = 288 bytes, a multiple of 16 but not of 64.
    const Shape small{1, 16, 3, 3};
    EXPECT_TRUE(planFacts(shuffleUnit(small, false), small, 16).has("second"));
    EXPECT_FALSE(planFacts(shuffleUnit(small, false), small, 64).has("second"));
}

// Windows that are not one contiguous run, and outputs that must have storage of their own.
TEST(SliceView, OtherWindowsAndGraphOutputsStayCopies) {
    auto sliceOf = [](const Shape& x, int64_t axis, int64_t begin, int64_t end, int64_t step, bool output) {
        OnnxBuilder b;
        b.input("x", x).output("y");
        b.node("Relu", {"x"}, {"a"});
        b.initializer("b", int64Tensor({1}, {begin})).initializer("e", int64Tensor({1}, {end}));
        b.initializer("ax", int64Tensor({1}, {axis})).initializer("st", int64Tensor({1}, {step}));
        b.node("Slice", {"a", "b", "e", "ax", "st"}, {output ? "y" : "s"}, "slice");
        if (!output) b.node("Relu", {"s"}, {"y"});
        return b;
    };
    const Shape x{2, 8, 4, 4};
    EXPECT_TRUE(planFacts(sliceOf(x, 0, 1, 2, 1, false), x, 16).has("slice")) << "one batch element";
    EXPECT_FALSE(planFacts(sliceOf(x, 1, 0, 4, 1, false), x, 16).has("slice")) << "channels of batch 2";
    EXPECT_FALSE(planFacts(sliceOf(x, 3, 0, 2, 1, false), x, 16).has("slice")) << "columns";
    EXPECT_FALSE(planFacts(sliceOf(x, 0, 1, 2, 1, true), x, 16).has("slice")) << "a graph output";
    const Shape one{1, 8, 4, 4};
    EXPECT_TRUE(planFacts(sliceOf(one, 1, 2, 6, 1, false), one, 16).has("slice"));
    EXPECT_FALSE(planFacts(sliceOf(one, 1, 0, 8, 2, false), one, 16).has("slice")) << "every other channel";
    EXPECT_FALSE(planFacts(sliceOf(one, 1, 7, -9, -1, false), one, 16).has("slice")) << "reversed";
    const Shape narrow{1, 8, 3, 1};  // a channel is 12 bytes
    EXPECT_FALSE(planFacts(sliceOf(narrow, 1, 1, 6, 1, false), narrow, 16).has("slice")) << "at byte 12";
    EXPECT_TRUE(planFacts(sliceOf(narrow, 1, 4, 6, 1, false), narrow, 16).has("slice")) << "at byte 48";
}

TEST(SliceView, ViewsMatchCpuReference) {
    VKINFER_REQUIRE_GPU();
    for (const Shape& x : {Shape{1, 16, 6, 6}, Shape{1, 24, 3, 3}, Shape{2, 16, 5, 5}}) {
        for (bool split : {false, true}) {
            const std::string what = std::string(split ? "Split" : "Slice") + " unit " + ::testing::PrintToString(x);
            OnnxBuilder b = shuffleUnit(x, split);
            std::vector<NamedTensor> in{{"x", randomTensor(x, seedOf(what), -1.0f, 1.0f)}};
            expectGpuMatchesCpu(b, in, what);
            expectGpuMatchesCpu(b, in, what + " fp16", Tolerance{1e-2, 2e-3, true}, Precision::Float16);
        }
    }
}

// Attention's q, k, v as the exporters write them: Gather(qkv, 0 | 1 | 2) on axis 0 of the
// stacked projections [3, heads, tokens, head], each a matrix product's operand; and a class
// token x[:, 0] of one image. One constant index taking a contiguous run is a view.
OnnxBuilder gatherOf(const Shape& x, int64_t axis, const std::vector<int64_t>& indexShape, int64_t index,
                     bool output) {
    OnnxBuilder b;
    b.input("x", x).output("y");
    b.node("Relu", {"x"}, {"a"});
    b.initializer("i", int64Tensor(indexShape, {index}));
    attr(b.node("Gather", {"a", "i"}, {output ? "y" : "g"}, "gather"), "axis", axis);
    if (!output) b.node("Sigmoid", {"g"}, {"y"});
    return b;
}

OnnxBuilder qkvAttentionScores(const Shape& qkv) {
    OnnxBuilder b;
    b.input("x", qkv).output("y");
    b.node("Relu", {"x"}, {"a"});
    for (int k = 0; k < 2; ++k) {
        b.initializer("i" + std::to_string(k), int64Tensor({}, {k}));
        b.node("Gather", {"a", "i" + std::to_string(k)}, {k == 0 ? "q" : "k"}, k == 0 ? "take_q" : "take_k");
    }
    attr(b.node("Transpose", {"k"}, {"kt"}), "perm", std::vector<int64_t>{0, 2, 1});
    b.node("MatMul", {"q", "kt"}, {"y"}, "scores");
    return b;
}

TEST(GatherView, OneIndexOfAContiguousRunIsAView) {
    const Shape qkv{3, 4, 8, 16};  // q, k, v: 4 heads of 8 tokens x 16
    EXPECT_TRUE(planFacts(gatherOf(qkv, 0, {}, 2, false), qkv, 16).has("gather")) << "v";
    EXPECT_TRUE(planFacts(gatherOf(qkv, 0, {}, -3, false), qkv, 16).has("gather")) << "q, counted from the end";
    EXPECT_TRUE(planFacts(gatherOf(qkv, 0, {1}, 1, false), qkv, 16).has("gather")) << "an index of shape [1]";
    const Shape tokens{1, 17, 64};  // a class token of one image
    EXPECT_TRUE(planFacts(gatherOf(tokens, 1, {}, 0, false), tokens, 16).has("gather"));
    const Shape batch{2, 17, 64};
    EXPECT_FALSE(planFacts(gatherOf(batch, 1, {}, 0, false), batch, 16).has("gather")) << "a token of each image";
    EXPECT_FALSE(planFacts(gatherOf(qkv, 0, {2}, 1, false), qkv, 16).has("gather")) << "two indices";
    EXPECT_FALSE(planFacts(gatherOf(qkv, 0, {}, 1, true), qkv, 16).has("gather")) << "a graph output";
    const Shape odd{3, 1, 1, 3};  // 12 bytes a row
    EXPECT_FALSE(planFacts(gatherOf(odd, 0, {}, 1, false), odd, 16).has("gather")) << "at byte 12";
    // q and k read by the product through windows of the stacked projections (the Gathers fold
    // into its operands, passes::foldViewsIntoMatMul, so they are not even views of the plan):
    // the dispatches are the Relu and the product.
    PlanFacts f = planFacts(qkvAttentionScores(qkv), qkv, 16);
    EXPECT_FALSE(f.has("take_q") || f.has("take_k")) << ::testing::PrintToString(f.views);
    EXPECT_EQ(f.kernels.size(), 2u) << ::testing::PrintToString(f.kernels);
}

TEST(GatherView, ViewsMatchCpuReference) {
    VKINFER_REQUIRE_GPU();
    const Shape qkv{3, 4, 8, 16}, tokens{1, 17, 64}, batch{2, 17, 64};
    struct Case {
        std::string what;
        OnnxBuilder b;
        Shape x;
    };
    const std::vector<Case> cases = {{"v of qkv", gatherOf(qkv, 0, {}, 2, false), qkv},
                                     {"q from the end", gatherOf(qkv, 0, {1}, -3, false), qkv},
                                     {"class token", gatherOf(tokens, 1, {}, 0, false), tokens},
                                     {"a token of each image (a copy)", gatherOf(batch, 1, {}, 5, false), batch},
                                     {"scores from q and k views", qkvAttentionScores(qkv), qkv}};
    for (const Case& c : cases) {
        std::vector<NamedTensor> in{{"x", randomTensor(c.x, seedOf(c.what), -1.0f, 1.0f)}};
        expectGpuMatchesCpu(c.b, in, c.what);
        expectGpuMatchesCpu(c.b, in, c.what + " fp16", Tolerance{1e-2, 2e-3, true}, Precision::Float16);
    }
}

// ---- Concat reading its parts through windows ----

OnnxBuilder& sliceNode(OnnxBuilder& b, const std::string& in, const std::string& out, const std::string& name,
                       const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                       const std::vector<int64_t>& axes, const std::vector<int64_t>& steps) {
    const int64_t n = static_cast<int64_t>(axes.size());
    b.initializer(name + "_b", int64Tensor({n}, starts)).initializer(name + "_e", int64Tensor({n}, ends));
    b.initializer(name + "_a", int64Tensor({n}, axes)).initializer(name + "_s", int64Tensor({n}, steps));
    b.node("Slice", {in, name + "_b", name + "_e", name + "_a", name + "_s"}, {out}, name);
    return b;
}

// torch.roll(x, shifts=(sh, sw), dims=(1, 2)) of a channels-last map [N, H, W, C] as the exporter
// writes it: per dimension, the last `shift` rows and the rest, concatenated.
OnnxBuilder rolled(const Shape& x, int64_t sh, int64_t sw) {
    OnnxBuilder b;
    b.input("x", x).output("y");
    b.node("Relu", {"x"}, {"a"});
    std::string in = "a";
    for (int64_t axis : {1, 2}) {
        const int64_t len = x[static_cast<size_t>(axis)], shift = ((axis == 1 ? sh : sw) % len + len) % len;
        const std::string tag = std::to_string(axis);
        sliceNode(b, in, "tail" + tag, "roll_tail" + tag, {len - shift}, {len}, {axis}, {1});
        sliceNode(b, in, "head" + tag, "roll_head" + tag, {0}, {len - shift}, {axis}, {1});
        attr(b.node("Concat", {"tail" + tag, "head" + tag}, {"roll" + tag}, "roll" + tag), "axis", axis);
        in = "roll" + tag;
    }
    b.node("Sigmoid", {in}, {"y"});
    return b;
}

// Swin's patch merging: the four quarters x[:, i::2, j::2, :] concatenated on the channels.
OnnxBuilder patchMerged(const Shape& x) {
    OnnxBuilder b;
    b.input("x", x).output("y");
    b.node("Relu", {"x"}, {"a"});
    std::vector<std::string> quarters;
    for (int64_t j : {0, 1})
        for (int64_t i : {0, 1}) {
            const std::string q = "q" + std::to_string(i) + std::to_string(j);
            sliceNode(b, "a", q, "take_" + q, {i, j}, {x[1], x[2]}, {1, 2}, {2, 2});
            quarters.push_back(q);
        }
    attr(b.node("Concat", quarters, {"merged"}, "merge"), "axis", int64_t{-1});
    b.node("Sigmoid", {"merged"}, {"y"});
    return b;
}

// Channels of two maps, one of them transposed (H and W swapped): batch 2, so no part can be
// written in place; with `parts` inputs where more than two (the plain map repeated).
OnnxBuilder concatWithTranspose(const Shape& x, int parts) {
    OnnxBuilder b;
    b.input("x", x).output("y");
    b.node("Relu", {"x"}, {"a"});
    attr(b.node("Transpose", {"a"}, {"t"}, "swap"), "perm", std::vector<int64_t>{0, 1, 3, 2});
    b.node("Sigmoid", {"x"}, {"s"});
    std::vector<std::string> in{"t"};
    for (int k = 1; k < parts; ++k) {
        b.node("Sigmoid", {k == 1 ? "s" : "p" + std::to_string(k - 1)}, {"p" + std::to_string(k)});
        in.push_back("p" + std::to_string(k));
    }
    attr(b.node("Concat", in, {"y"}, "cat"), "axis", int64_t{1});
    return b;
}

int64_t countOf(const PlanFacts& f, const std::string& prefix) {
    return std::count_if(f.kernels.begin(), f.kernels.end(), [&](const std::string& k) { return k.rfind(prefix, 0) == 0; });
}

TEST(ConcatView, RollsAndPatchMergingAreOneDispatchEach) {
    const Shape map{1, 8, 6, 4};
    PlanFacts roll = planFacts(rolled(map, 3, -2), map, 16);
    // Relu, one Concat per rolled dimension, Sigmoid: no Slice copies, one dispatch per Concat.
    EXPECT_EQ(roll.kernels.size(), 4u) << ::testing::PrintToString(roll.kernels);
    EXPECT_EQ(countOf(roll, "concat_parts_b32"), 2) << ::testing::PrintToString(roll.kernels);
    EXPECT_EQ(countOf(planFacts(rolled(map, 3, -2), map, 16, Precision::Float16), "concat_parts_b16"), 2);
    PlanFacts merge = planFacts(patchMerged(map), map, 16);
    EXPECT_EQ(merge.kernels.size(), 3u) << ::testing::PrintToString(merge.kernels);
    EXPECT_EQ(countOf(merge, "concat_parts_b32"), 1);
    const Shape x{2, 4, 5, 5};
    PlanFacts two = planFacts(concatWithTranspose(x, 2), x, 16);
    EXPECT_EQ(countOf(two, "concat_parts_b32"), 1) << ::testing::PrintToString(two.kernels);
    EXPECT_EQ(countOf(two, "copy_strided"), 0) << "the Transpose is read through its window";
    // Five parts are more than the kernel takes: one strided copy each.
    PlanFacts five = planFacts(concatWithTranspose(x, 5), x, 16);
    EXPECT_EQ(countOf(five, "concat_parts"), 0);
    EXPECT_EQ(countOf(five, "copy_strided"), 5) << ::testing::PrintToString(five.kernels);
}

// A batch-1 channel Concat: the produced part is written in place by its producer and only the
// windowed part is copied.
OnnxBuilder inPlaceBesideWindow(const Shape& x) {
    OnnxBuilder b;
    b.input("x", x).output("y");
    b.node("Relu", {"x"}, {"a"});
    b.node("Sigmoid", {"x"}, {"s"});
    sliceNode(b, "a", "every_other", "every_other", {0}, {x[1]}, {1}, {2});
    attr(b.node("Concat", {"s", "every_other"}, {"cat"}, "cat"), "axis", int64_t{1});
    b.node("Tanh", {"cat"}, {"y"});
    return b;
}

TEST(ConcatView, InPlacePartsStayInPlace) {
    const Shape x{1, 8, 4, 4};
    PlanFacts f = planFacts(inPlaceBesideWindow(x), x, 16);
    // Relu, Sigmoid (into the Concat's output), the window's copy, Tanh.
    EXPECT_EQ(f.kernels.size(), 4u) << ::testing::PrintToString(f.kernels);
    EXPECT_EQ(countOf(f, "copy_strided"), 1) << ::testing::PrintToString(f.kernels);
}

TEST(ConcatView, WindowsMatchCpuReference) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        std::string what;
        OnnxBuilder b;
        Shape x;
    };
    const Shape map{1, 8, 6, 4}, odd{2, 7, 5, 3}, even{2, 6, 10, 3}, x{2, 4, 5, 5};
    const std::vector<Case> cases = {{"roll (3, -2)", rolled(map, 3, -2), map},
                                     {"roll (-1, 4) of batch 2", rolled(odd, -1, 4), odd},
                                     {"roll by a whole turn", rolled(map, 8, 0), map},
                                     {"patch merging", patchMerged(map), map},
                                     {"patch merging of batch 2", patchMerged(even), even},
                                     {"channels beside a transpose", concatWithTranspose(x, 2), x},
                                     {"four parts", concatWithTranspose(x, 4), x},
                                     {"five parts (copies)", concatWithTranspose(x, 5), x},
                                     {"in place beside a window", inPlaceBesideWindow({1, 8, 4, 4}), {1, 8, 4, 4}}};
    for (const Case& c : cases) {
        std::vector<NamedTensor> in{{"x", randomTensor(c.x, seedOf(c.what), -1.0f, 1.0f)}};
        expectGpuMatchesCpu(c.b, in, c.what, exactTolerance());
        expectGpuMatchesCpu(c.b, in, c.what + " fp16", Tolerance{1e-2, 2e-3, true}, Precision::Float16);
    }
}

// ---- Pad that adds nothing ----

// torchvision's Swin pads a map to a multiple of its window before the windows are cut: zero
// pads where the map already is one.
OnnxBuilder padded(const Shape& x, const std::vector<int64_t>& pads, bool output, const std::string& mode = "constant") {
    OnnxBuilder b;
    b.input("x", x).output("y");
    b.node("Relu", {"x"}, {"a"});
    b.initializer("pads", int64Tensor({static_cast<int64_t>(pads.size())}, pads));
    attr(b.node("Pad", {"a", "pads"}, {output ? "y" : "p"}, "pad"), "mode", std::string(mode));
    if (!output) b.node("Sigmoid", {"p"}, {"y"});
    return b;
}

TEST(PadView, APadThatAddsNothingIsAView) {
    const Shape x{1, 7, 7, 8};
    const std::vector<int64_t> none(8, 0), right{0, 0, 0, 0, 0, 0, 1, 0}, shifted{0, -1, 0, 0, 0, 1, 0, 0};
    EXPECT_TRUE(planFacts(padded(x, none, false), x, 16).has("pad"));
    EXPECT_TRUE(planFacts(padded(x, none, false, "reflect"), x, 16).has("pad")) << "any mode";
    EXPECT_TRUE(planFacts(padded(x, none, false), x, 16, Precision::Float16).has("pad"));
    EXPECT_FALSE(planFacts(padded(x, right, false), x, 16).has("pad")) << "a column added";
    EXPECT_FALSE(planFacts(padded(x, shifted, false), x, 16).has("pad")) << "cropped at one end, padded at the other";
    EXPECT_FALSE(planFacts(padded(x, none, true), x, 16).has("pad")) << "a graph output";
}

TEST(PadView, ViewsMatchCpuReference) {
    VKINFER_REQUIRE_GPU();
    const Shape x{1, 7, 7, 8};
    const std::vector<int64_t> none(8, 0), shifted{0, -1, 0, 0, 0, 1, 0, 0};
    for (const auto& [what, b] : std::vector<std::pair<std::string, OnnxBuilder>>{
             {"zero pads", padded(x, none, false)},
             {"zero pads, a graph output", padded(x, none, true)},
             {"cropped and padded", padded(x, shifted, false)}}) {
        std::vector<NamedTensor> in{{"x", randomTensor(x, seedOf(what), -1.0f, 1.0f)}};
        expectGpuMatchesCpu(b, in, what, exactTolerance());
        expectGpuMatchesCpu(b, in, what + " fp16", Tolerance{1e-2, 2e-3, true}, Precision::Float16);
    }
}

}  // namespace
}  // namespace vkinfer::testing
