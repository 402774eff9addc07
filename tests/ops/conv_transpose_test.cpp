// ConvTranspose (1-D, 2-D, 3-D; strides, pads, auto_pad, dilations, group, output_padding,
// output_shape, bias).
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

struct TConv {
    std::string what;
    Shape x, w;
    bool bias = false;
    Shape strides, pads, dilations, outputPadding, outputShape;
    int64_t group = 1;
    std::string autoPad;
};

OnnxBuilder tconvModel(const TConv& c) {
    OnnxBuilder b;
    b.input("x", c.x).output("y");
    b.initializer("w", randomTensor(c.w, seedOf(c.what + "w")));
    std::vector<std::string> in{"x", "w"};
    if (c.bias) {
        b.initializer("b", randomTensor({c.w[1] * c.group}, seedOf(c.what + "b")));
        in.push_back("b");
    }
    auto& n = b.node("ConvTranspose", in, {"y"});
    if (!c.strides.empty()) attr(n, "strides", c.strides);
    if (!c.pads.empty()) attr(n, "pads", c.pads);
    if (!c.dilations.empty()) attr(n, "dilations", c.dilations);
    if (!c.outputPadding.empty()) attr(n, "output_padding", c.outputPadding);
    if (!c.outputShape.empty()) attr(n, "output_shape", c.outputShape);
    if (c.group != 1) attr(n, "group", c.group);
    if (!c.autoPad.empty()) attr(n, "auto_pad", c.autoPad);
    return b;
}

TEST(ConvTransposeOp, ReferenceValues) {
    // x = [[1, 2], [3, 4]], w = [[1, 1], [1, 1]]: each input spreads over a 2x2 block.
    OnnxBuilder b;
    b.input("x", {1, 1, 2, 2}).output("y");
    b.initializer("w", floatTensor({1, 1, 2, 2}, {1, 1, 1, 1}));
    b.node("ConvTranspose", {"x", "w"}, {"y"});
    expectReferenceEquals(b, {{"x", floatTensor({1, 1, 2, 2}, {1, 2, 3, 4})}},
                          {floatTensor({1, 1, 3, 3}, {1, 3, 2, 4, 10, 6, 3, 7, 4})}, "stride 1");
    // Stride 2 with pads 1 on the left of W and output_padding 1: blocks do not overlap.
    OnnxBuilder c;
    c.input("x", {1, 1, 1, 2}).output("y");
    c.initializer("w", floatTensor({1, 2, 1, 2}, {1, 2, 10, 20})).initializer("b", floatTensor({2}, {0.5f, -1}));
    auto& n = c.node("ConvTranspose", {"x", "w", "b"}, {"y"});
    attr(n, "strides", Shape{1, 2});
    attr(n, "pads", Shape{0, 1, 0, 0});
    attr(n, "output_padding", Shape{0, 1});
    // Full width 2*(2-1)+1+2 = 5, minus the left pad: 4 columns; x = [3, 5].
    expectReferenceEquals(c, {{"x", floatTensor({1, 1, 1, 2}, {3, 5})}},
                          {floatTensor({1, 2, 1, 4}, {6.5f, 5.5f, 10.5f, 0.5f, 59, 49, 99, -1})},
                          "stride 2, pad, output_padding, bias, two output channels");
}

TEST(ConvTransposeOp, GpuMatchesCpu) {
    VKINFER_REQUIRE_GPU();
    const std::vector<TConv> cases = {
        {"3x3 stride 1", {1, 3, 5, 5}, {3, 4, 3, 3}, true},
        {"stride 2 pads 1 output_padding 1", {2, 4, 6, 7}, {4, 3, 3, 3}, true, {2, 2}, {1, 1, 1, 1}, {}, {1, 1}},
        {"strides 3x2 asymmetric pads", {1, 2, 4, 5}, {2, 2, 3, 4}, false, {3, 2}, {1, 0, 2, 1}},
        {"dilations", {1, 2, 5, 4}, {2, 3, 3, 2}, true, {1, 2}, {}, {2, 3}},
        {"group 2", {1, 4, 5, 5}, {4, 3, 3, 3}, true, {2, 1}, {0, 1, 0, 1}, {}, {}, {}, 2},
        {"depthwise", {1, 6, 4, 4}, {6, 1, 4, 4}, true, {2, 2}, {1, 1, 1, 1}, {}, {}, {}, 6},
        {"output_shape", {1, 2, 3, 3}, {2, 2, 3, 3}, false, {3, 2}, {}, {}, {}, {10, 8}},
        {"auto_pad SAME_UPPER", {1, 1, 3, 4}, {1, 2, 3, 3}, false, {2, 2}, {}, {}, {}, {}, 1, "SAME_UPPER"},
        {"auto_pad SAME_LOWER", {1, 1, 3, 4}, {1, 2, 3, 3}, false, {2, 2}, {}, {}, {}, {}, 1, "SAME_LOWER"},
        {"1-D", {2, 3, 9}, {3, 2, 4}, true, {3}, {1, 2}},
        {"3-D", {1, 2, 3, 4, 3}, {2, 2, 2, 3, 2}, true, {2, 1, 2}, {0, 1, 0, 1, 0, 1}},
        {"many outputs", {1, 16, 24, 24}, {16, 8, 4, 4}, true, {2, 2}, {1, 1, 1, 1}},
        // FSRCNN's last layer: 9x9, stride 2, pads 4, output_padding 1, to 3 channels.
        {"FSRCNN x2 deconv", {1, 32, 9, 11}, {32, 3, 9, 9}, true, {2, 2}, {4, 4, 4, 4}, {}, {1, 1}},
        // Large enough for several output channels per invocation (ops/conv/transpose_tile.h):
        // four of 32 (524 k outputs), and six per group as a block of four and one of two.
        {"four channels per invocation", {1, 8, 64, 64}, {8, 32, 3, 3}, true, {2, 2}, {1, 1, 1, 1}, {}, {1, 1}},
        {"group 2, six outputs each, in blocks", {1, 4, 128, 128}, {4, 6, 3, 3}, true, {2, 2}, {1, 1, 1, 1}, {}, {1, 1},
         {}, 2},
    };
    // Each case on both paths: 2-D ones as a sub-pixel Conv (passes/subpixel_deconv.h) where
    // it applies, and everything on the gathering kernel.
    SessionOptions gather;
    gather.kernels.subPixelDeconv = false;
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        expectGpuMatchesCpu(tconvModel(c), {{"x", randomTensor(c.x, seedOf(c.what))}}, c.what);
        expectGpuMatchesCpuWith(tconvModel(c), {{"x", randomTensor(c.x, seedOf(c.what))}}, c.what + " (gather)",
                                opTolerance(), gather);
    }
    SessionOptions gatherFp16 = gather;
    gatherFp16.precision = Precision::Float16;
    for (size_t i : {size_t{1}, cases.size() - 3, cases.size() - 2, cases.size() - 1}) {
        SCOPED_TRACE(cases[i].what + " fp16");
        expectGpuMatchesCpu(tconvModel(cases[i]), {{"x", randomTensor(cases[i].x, seedOf(cases[i].what))}},
                            cases[i].what + " fp16", Tolerance{4e-3, 4e-3, true}, Precision::Float16);
        expectGpuMatchesCpuWith(tconvModel(cases[i]), {{"x", randomTensor(cases[i].x, seedOf(cases[i].what))}},
                                cases[i].what + " fp16 (gather)", Tolerance{4e-3, 4e-3, true}, gatherFp16);
    }
}

// The sub-pixel rewrite's own cases: the phase windows of the kernels upscalers and flow
// nets use, a crop (the phases' rows overshoot the output), stride 1 (a flipped kernel),
// dilations, groups, a fused activation after it, and on the emulated tensor cores in
// float16 (the path the H200 takes). The plan must hold a Conv, never conv_transpose.
TEST(ConvTransposeSubPixel, GpuMatchesCpu) {
    VKINFER_REQUIRE_GPU();
    const std::vector<TConv> cases = {
        {"RIFE 4x4 stride 2 pads 1", {1, 8, 6, 7}, {8, 5, 4, 4}, true, {2, 2}, {1, 1, 1, 1}},
        {"2x2 stride 2 (1x1 per phase)", {2, 5, 4, 3}, {5, 6, 2, 2}, true, {2, 2}},
        {"3x3 stride 2 pads 1 output_padding 1", {1, 16, 8, 8}, {16, 16, 3, 3}, true, {2, 2}, {1, 1, 1, 1}, {}, {1, 1}},
        {"3x3 stride 2 pads 1, odd output: cropped", {1, 4, 5, 6}, {4, 3, 3, 3}, true, {2, 2}, {1, 1, 1, 1}},
        {"stride 3 pads 2", {1, 3, 4, 5}, {3, 2, 5, 5}, false, {3, 3}, {2, 2, 2, 2}},
        {"stride 1: a flipped conv", {1, 4, 7, 6}, {4, 3, 3, 3}, true, {}, {1, 0, 1, 2}},
        {"dilations 2, stride 2", {1, 3, 5, 5}, {3, 4, 3, 3}, true, {2, 2}, {1, 1, 1, 1}, {2, 2}},
        {"group 3, stride 2", {1, 6, 5, 4}, {6, 2, 4, 4}, true, {2, 2}, {1, 1, 1, 1}, {}, {}, {}, 3},
        {"asymmetric pads 0/3", {1, 2, 5, 5}, {2, 3, 4, 4}, true, {2, 2}, {0, 3, 3, 0}},
        {"pads 3 on a 2x2 kernel: taps at positive offsets", {1, 3, 6, 5}, {3, 2, 2, 2}, true, {2, 2}, {3, 3, 3, 3}},
        {"FSRCNN x2 at 32x40", {1, 32, 32, 40}, {32, 3, 9, 9}, true, {2, 2}, {4, 4, 4, 4}, {}, {1, 1}},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        const std::vector<NamedTensor> in{{"x", randomTensor(c.x, seedOf(c.what))}};
        expectGpuMatchesCpu(tconvModel(c), in, c.what);
        expectGpuMatchesCpu(tconvModel(c), in, c.what + " fp16", Tolerance{4e-3, 4e-3, true}, Precision::Float16);
        SessionOptions emulated;
        emulated.precision = Precision::Float16;
        emulated.kernels.emulateCooperativeMatrix = true;
        expectGpuMatchesCpuWith(tconvModel(c), in, c.what + " fp16, emulated tensor cores", Tolerance{4e-3, 4e-3, true},
                                emulated);
    }
}

std::string planOf(const OnnxBuilder& b, const Shape& x, bool subPixel) {
    auto model = b.build();
    EXPECT_TRUE(model.ok()) << model.status().toString();
    if (!model.ok()) return "";
    PlanOptions options;
    options.kernels.subPixelDeconv = subPixel;
    auto text = planText(*model, {{"x", x}}, options);
    EXPECT_TRUE(text.ok()) << text.status().toString();
    return text.ok() ? *text : "";
}

TEST(ConvTransposeSubPixel, PlansAConvWhereItApplies) {
    // An activation after the deconvolution fuses into the Conv that replaces it.
    OnnxBuilder b;
    b.input("x", {1, 8, 6, 6}).output("y");
    b.initializer("w", randomTensor({8, 4, 4, 4}, 5)).initializer("b", randomTensor({4}, 6));
    auto& n = b.node("ConvTranspose", {"x", "w", "b"}, {"t"});
    attr(n, "strides", Shape{2, 2});
    attr(n, "pads", Shape{1, 1, 1, 1});
    attr(b.node("LeakyRelu", {"t"}, {"y"}), "alpha", 0.2f);
    const std::string rewritten = planOf(b, {1, 8, 6, 6}, true), gathered = planOf(b, {1, 8, 6, 6}, false);
    EXPECT_EQ(rewritten.find("conv_transpose"), std::string::npos) << rewritten;
    EXPECT_NE(rewritten.find("Conv+LeakyRelu"), std::string::npos) << rewritten;
    EXPECT_NE(gathered.find("conv_transpose"), std::string::npos) << gathered;
    if (gpuAvailable()) expectGpuMatchesCpu(b, {{"x", randomTensor({1, 8, 6, 6}, 7)}}, "ConvTranspose + LeakyRelu");

    // Unequal strides (DepthToSpace takes one blocksize) and 1-D stay on the gathering kernel.
    TConv uneven{"strides 3x2", {1, 2, 4, 5}, {2, 2, 3, 4}, false, {3, 2}, {1, 0, 2, 1}};
    EXPECT_NE(planOf(tconvModel(uneven), uneven.x, true).find("conv_transpose"), std::string::npos);
}

}  // namespace
}  // namespace vkinfer::testing
