// Networks the shared models do not cover, built the way exporters write them: a ShuffleNet
// unit (channel split and shuffle), a segmentation decoder (transposed convolution, PReLU,
// bilinear resizing), MobileNetV3 and EfficientNet blocks (hard-swish, squeeze-excitation,
// SiLU), a YOLO stem (strided-slice focus, SPP max pools) and transformer encoders of other
// shapes (batch 2, odd sequence lengths, 3 heads, erf and tanh GELU, a shape-computing
// Reshape subgraph). Each runs on the GPU in both sync modes under validation against the
// CPU reference (the ops' naive double-accumulating twins), then in float16 against the same
// reference with the looser fp16 tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ops/op_harness.h"
#include "passes/cpu_reference.h"
#include "runtime/model_data.h"

namespace vkinfer::testing {
namespace {

// Whole networks accumulate more float32 rounding than single ops.
const Tolerance kNetworkTolerance{1e-3, 1e-4, true};
// float16 storage of every intermediate (docs/BENCHMARKS.md, the fp16 accuracy rows).
const Tolerance kFp16Tolerance{1e-2, 1e-2, true};

uint32_t g_seed = 1000;
Tensor weights(const std::vector<int64_t>& shape, float scale = 0.5f) { return randomTensor(shape, ++g_seed, -scale, scale); }
Tensor positive(const std::vector<int64_t>& shape) { return randomTensor(shape, ++g_seed, 0.5f, 1.5f); }

// Conv with weights `name`_w/_b drawn here.
void conv(OnnxBuilder& b, const std::string& in, const std::string& out, int64_t cin, int64_t cout, int64_t k,
          int64_t stride = 1, int64_t group = 1) {
    b.initializer(out + "_w", weights({cout, cin / group, k, k}, 1.0f / std::sqrt(float(cin / group * k * k))));
    b.initializer(out + "_b", weights({cout}, 0.1f));
    auto& n = b.node("Conv", {in, out + "_w", out + "_b"}, {out}, out);
    attr(n, "kernel_shape", std::vector<int64_t>{k, k});
    attr(n, "strides", std::vector<int64_t>{stride, stride});
    attr(n, "pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
    if (group > 1) attr(n, "group", group);
}

void batchNorm(OnnxBuilder& b, const std::string& in, const std::string& out, int64_t c) {
    b.initializer(out + "_s", positive({c}));
    b.initializer(out + "_bias", weights({c}, 0.2f));
    b.initializer(out + "_m", weights({c}, 0.2f));
    b.initializer(out + "_v", positive({c}));
    b.node("BatchNormalization", {in, out + "_s", out + "_bias", out + "_m", out + "_v"}, {out}, out);
}

// Runs the network against the CPU reference in float32 and in float16 (both sync modes,
// under validation).
void expectNetworkMatches(const OnnxBuilder& b, const std::vector<NamedTensor>& inputs, const std::string& what) {
    VKINFER_REQUIRE_GPU();
    expectGpuMatchesCpu(b, inputs, what, kNetworkTolerance);
    expectGpuMatchesCpu(b, inputs, what + " (fp16)", kFp16Tolerance, Precision::Float16);
}

// ShuffleNetV2 basic unit: split the channels, transform one half, concatenate and shuffle
// the two groups (Reshape → Transpose → Reshape); then a stride-2 depthwise downsample and
// a classifier.
OnnxBuilder shuffleNetUnit() {
    OnnxBuilder b(13);
    b.input("x", {2, 16, 9, 11});
    b.initializer("split", int64Tensor({2}, {8, 8}));
    auto& s = b.node("Split", {"x", "split"}, {"a", "b0"}, "split");
    attr(s, "axis", int64_t{1});
    conv(b, "b0", "b1", 8, 8, 1);
    b.node("Relu", {"b1"}, {"b1r"});
    conv(b, "b1r", "b2", 8, 8, 3, 1, 8);
    batchNorm(b, "b2", "b2n", 8);
    conv(b, "b2n", "b3", 8, 8, 1);
    b.node("Relu", {"b3"}, {"b3r"});
    auto& c = b.node("Concat", {"a", "b3r"}, {"cat"}, "concat");
    attr(c, "axis", int64_t{1});
    b.initializer("groups_shape", int64Tensor({5}, {2, 2, 8, 9, 11}));
    b.node("Reshape", {"cat", "groups_shape"}, {"grouped"});
    auto& t = b.node("Transpose", {"grouped"}, {"swapped"});
    attr(t, "perm", std::vector<int64_t>{0, 2, 1, 3, 4});
    b.initializer("flat_shape", int64Tensor({4}, {2, -1, 9, 11}));
    b.node("Reshape", {"swapped", "flat_shape"}, {"shuffled"});
    conv(b, "shuffled", "down", 16, 16, 3, 2, 16);
    auto& p = b.node("MaxPool", {"down"}, {"pooled"});
    attr(p, "kernel_shape", std::vector<int64_t>{3, 3});
    attr(p, "strides", std::vector<int64_t>{2, 2});
    attr(p, "ceil_mode", int64_t{1});
    b.node("GlobalAveragePool", {"pooled"}, {"gap"});
    b.node("Flatten", {"gap"}, {"feat"});
    b.initializer("fc_w", weights({10, 16}));
    b.initializer("fc_b", weights({10}, 0.1f));
    auto& g = b.node("Gemm", {"feat", "fc_w", "fc_b"}, {"logits"});
    attr(g, "transB", int64_t{1});
    b.output("shuffled");
    b.output("logits");
    return b;
}

TEST(ArchitectureBlocks, ShuffleNetUnit) {
    expectNetworkMatches(shuffleNetUnit(), {{"x", randomTensor({2, 16, 9, 11}, 1)}}, "shufflenet unit");
}

// A segmentation decoder: stride-2 transposed convolution with output_padding, per-channel
// and shared PReLU, a skip Concat, and bilinear upsampling by scales (half_pixel) and by
// sizes to a non-integer factor (align_corners).
OnnxBuilder segmentationDecoder() {
    OnnxBuilder b(13);
    b.input("x", {1, 8, 7, 10});
    b.input("skip", {1, 4, 14, 20});
    b.initializer("up_w", weights({8, 4, 3, 3}, 0.3f));
    b.initializer("up_b", weights({4}, 0.1f));
    auto& ct = b.node("ConvTranspose", {"x", "up_w", "up_b"}, {"up"}, "up");
    attr(ct, "strides", std::vector<int64_t>{2, 2});
    attr(ct, "pads", std::vector<int64_t>{1, 1, 1, 1});
    attr(ct, "output_padding", std::vector<int64_t>{1, 1});
    b.initializer("slope_c", randomTensor({4, 1, 1}, 7, 0.05f, 0.3f));
    b.node("PRelu", {"up", "slope_c"}, {"up_act"});
    auto& c = b.node("Concat", {"up_act", "skip"}, {"merged"});
    attr(c, "axis", int64_t{1});
    conv(b, "merged", "head", 8, 6, 3);
    b.initializer("slope_1", floatTensor({1}, {0.2f}));
    b.node("PRelu", {"head", "slope_1"}, {"head_act"});
    b.initializer("scales", floatTensor({4}, {1, 1, 2, 2}));
    auto& r1 = b.node("Resize", {"head_act", "", "scales"}, {"bilinear"});
    attr(r1, "mode", std::string("linear"));
    attr(r1, "coordinate_transformation_mode", std::string("half_pixel"));
    b.initializer("sizes", int64Tensor({4}, {1, 6, 21, 33}));
    auto& r2 = b.node("Resize", {"head_act", "", "", "sizes"}, {"aligned"});
    attr(r2, "mode", std::string("linear"));
    attr(r2, "coordinate_transformation_mode", std::string("align_corners"));
    b.node("Sigmoid", {"aligned"}, {"mask"});
    b.output("bilinear");
    b.output("mask");
    return b;
}

TEST(ArchitectureBlocks, SegmentationDecoder) {
    expectNetworkMatches(segmentationDecoder(),
                         {{"x", randomTensor({1, 8, 7, 10}, 2)}, {"skip", randomTensor({1, 4, 14, 20}, 3)}},
                         "segmentation decoder");
}

// MobileNetV3 bottleneck (hard-swish, stride-2 5×5 depthwise, squeeze-excitation with
// hard-sigmoid) followed by an EfficientNet-style block (SiLU as x·sigmoid(x), ReLU6 as Clip
// with min/max inputs, residual Add).
OnnxBuilder mobileBlocks() {
    OnnxBuilder b(14);  // HardSwish's opset
    b.input("x", {1, 16, 13, 13});
    conv(b, "x", "expand", 16, 32, 1);
    b.node("HardSwish", {"expand"}, {"expand_hs"});
    conv(b, "expand_hs", "dw", 32, 32, 5, 2, 32);
    batchNorm(b, "dw", "dw_bn", 32);
    b.node("HardSwish", {"dw_bn"}, {"dw_hs"});
    b.node("GlobalAveragePool", {"dw_hs"}, {"se_pool"});
    conv(b, "se_pool", "se_reduce", 32, 8, 1);
    b.node("Relu", {"se_reduce"}, {"se_relu"});
    conv(b, "se_relu", "se_expand", 8, 32, 1);
    auto& hs = b.node("HardSigmoid", {"se_expand"}, {"se_gate"});
    attr(hs, "alpha", 1.0f / 6.0f);
    b.node("Mul", {"dw_hs", "se_gate"}, {"excited"});
    conv(b, "excited", "project", 32, 16, 1);

    conv(b, "project", "e_expand", 16, 24, 1);
    b.node("Sigmoid", {"e_expand"}, {"e_sig"});
    b.node("Mul", {"e_expand", "e_sig"}, {"e_silu"});
    conv(b, "e_silu", "e_dw", 24, 24, 3, 1, 24);
    b.initializer("zero", floatTensor({}, {0.0f}));
    b.initializer("six", floatTensor({}, {6.0f}));
    b.node("Clip", {"e_dw", "zero", "six"}, {"e_relu6"});
    conv(b, "e_relu6", "e_project", 24, 16, 1);
    b.node("Add", {"project", "e_project"}, {"y"});
    b.output("y");
    return b;
}

TEST(ArchitectureBlocks, MobileNetV3AndEfficientNetBlocks) {
    expectNetworkMatches(mobileBlocks(), {{"x", randomTensor({1, 16, 13, 13}, 4, -3.0f, 3.0f)}}, "mobile blocks");
}

// YOLOv5 stem and neck pieces: the Focus layer (four strided Slices concatenated), SiLU, SPP
// (three same-padded max pools concatenated), nearest upsampling and a detection-head
// Reshape → Transpose.
OnnxBuilder yoloStem() {
    OnnxBuilder b(13);
    b.input("x", {1, 3, 32, 32});
    b.initializer("axes", int64Tensor({2}, {2, 3}));
    b.initializer("steps", int64Tensor({2}, {2, 2}));
    b.initializer("ends", int64Tensor({2}, {INT64_MAX, INT64_MAX}));
    const std::vector<std::pair<int, int>> offsets{{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    std::vector<std::string> parts;
    for (auto [dy, dx] : offsets) {
        std::string starts = "starts" + std::to_string(dy) + std::to_string(dx);
        b.initializer(starts, int64Tensor({2}, {dy, dx}));
        parts.push_back("focus" + std::to_string(dy) + std::to_string(dx));
        b.node("Slice", {"x", starts, "ends", "axes", "steps"}, {parts.back()});
    }
    auto& c = b.node("Concat", parts, {"focus"});
    attr(c, "axis", int64_t{1});
    conv(b, "focus", "stem", 12, 16, 3);
    b.node("Sigmoid", {"stem"}, {"stem_sig"});
    b.node("Mul", {"stem", "stem_sig"}, {"stem_silu"});
    std::vector<std::string> spp{"stem_silu"};
    for (int64_t k : {5, 9, 13}) {
        spp.push_back("spp" + std::to_string(k));
        auto& p = b.node("MaxPool", {"stem_silu"}, {spp.back()});
        attr(p, "kernel_shape", std::vector<int64_t>{k, k});
        attr(p, "pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
    }
    auto& sc = b.node("Concat", spp, {"spp"});
    attr(sc, "axis", int64_t{1});
    conv(b, "spp", "neck", 64, 16, 1);
    b.initializer("up_scales", floatTensor({4}, {1, 1, 2, 2}));
    auto& r = b.node("Resize", {"neck", "", "up_scales"}, {"up"});
    attr(r, "mode", std::string("nearest"));
    conv(b, "up", "det", 16, 16, 1);
    b.initializer("det_shape", int64Tensor({4}, {1, 2, 8, -1}));
    b.node("Reshape", {"det", "det_shape"}, {"det_groups"});
    auto& t = b.node("Transpose", {"det_groups"}, {"detections"});
    attr(t, "perm", std::vector<int64_t>{0, 1, 3, 2});
    b.output("detections");
    return b;
}

TEST(ArchitectureBlocks, YoloStem) {
    expectNetworkMatches(yoloStem(), {{"x", randomTensor({1, 3, 32, 32}, 5)}}, "yolo stem");
}

// A pre-norm transformer encoder block with a class-token head, dynamic batch and sequence:
// LayerNormalization, fused QKV projection split in three, heads formed by a Reshape whose
// target is computed from Shape (Shape → Slice → Concat), scaled dot-product attention with
// an additive mask, GELU (erf form, or the tanh form with Pow), residuals, and Gather of the
// class token into a Gemm classifier.
OnnxBuilder transformerBlock(bool tanhGelu) {
    const int64_t D = 48, H = 3, Dh = 16, F = 96;
    OnnxBuilder b(17);
    b.input("x", {-1, -1, D});
    b.input("mask", {-1, 1, 1, -1});
    auto layerNorm = [&](const std::string& in, const std::string& out) {
        b.initializer(out + "_g", positive({D}));
        b.initializer(out + "_b", weights({D}, 0.1f));
        auto& n = b.node("LayerNormalization", {in, out + "_g", out + "_b"}, {out}, out);
        attr(n, "axis", int64_t{-1});
        attr(n, "epsilon", 1e-5f);
    };
    auto linear = [&](const std::string& in, const std::string& out, int64_t din, int64_t dout) {
        b.initializer(out + "_w", weights({din, dout}, 1.0f / std::sqrt(float(din))));
        b.initializer(out + "_b", weights({dout}, 0.05f));
        b.node("MatMul", {in, out + "_w"}, {out + "_mm"});
        b.node("Add", {out + "_mm", out + "_b"}, {out});
    };
    layerNorm("x", "ln1");
    linear("ln1", "qkv", D, 3 * D);
    b.initializer("qkv_split", int64Tensor({3}, {D, D, D}));
    auto& s = b.node("Split", {"qkv", "qkv_split"}, {"q", "k", "v"});
    attr(s, "axis", int64_t{-1});

    // [B, S] from the input's shape, then [B, S, H, Dh] and [B, S, D].
    b.node("Shape", {"x"}, {"x_shape"});
    b.initializer("zero1", int64Tensor({1}, {0}));
    b.initializer("two1", int64Tensor({1}, {2}));
    b.node("Slice", {"x_shape", "zero1", "two1"}, {"bs"});
    b.initializer("heads_tail", int64Tensor({2}, {H, Dh}));
    auto& hc = b.node("Concat", {"bs", "heads_tail"}, {"heads_shape"});
    attr(hc, "axis", int64_t{0});
    b.initializer("model_tail", int64Tensor({1}, {D}));
    auto& mc = b.node("Concat", {"bs", "model_tail"}, {"model_shape"});
    attr(mc, "axis", int64_t{0});
    for (const char* t : {"q", "k", "v"}) {
        std::string name = t;
        b.node("Reshape", {name, "heads_shape"}, {name + "_heads"});
        auto& tr = b.node("Transpose", {name + "_heads"}, {name + "_t"});
        attr(tr, "perm", name == "k" ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 2, 1, 3});
    }
    b.node("MatMul", {"q_t", "k_t"}, {"scores"});
    b.initializer("scale", floatTensor({}, {std::sqrt(float(Dh))}));
    b.node("Div", {"scores", "scale"}, {"scaled"});
    b.node("Add", {"scaled", "mask"}, {"masked"});
    auto& sm = b.node("Softmax", {"masked"}, {"attn"});
    attr(sm, "axis", int64_t{-1});
    b.node("MatMul", {"attn", "v_t"}, {"context"});
    auto& ct = b.node("Transpose", {"context"}, {"context_t"});
    attr(ct, "perm", std::vector<int64_t>{0, 2, 1, 3});
    b.node("Reshape", {"context_t", "model_shape"}, {"context_flat"});
    linear("context_flat", "proj", D, D);
    b.node("Add", {"x", "proj"}, {"x1"});

    layerNorm("x1", "ln2");
    linear("ln2", "fc1", D, F);
    if (tanhGelu) {  // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
        b.initializer("three", floatTensor({}, {3.0f}));
        b.initializer("gelu_c", floatTensor({}, {0.044715f}));
        b.initializer("gelu_k", floatTensor({}, {0.7978845608f}));
        b.node("Pow", {"fc1", "three"}, {"cube"});
        b.node("Mul", {"cube", "gelu_c"}, {"cube_c"});
        b.node("Add", {"fc1", "cube_c"}, {"inner"});
        b.node("Mul", {"inner", "gelu_k"}, {"inner_k"});
        b.node("Tanh", {"inner_k"}, {"gate"});
    } else {  // 0.5·x·(1 + erf(x/√2))
        b.initializer("sqrt2", floatTensor({}, {1.41421356f}));
        b.node("Div", {"fc1", "sqrt2"}, {"fc1_scaled"});
        b.node("Erf", {"fc1_scaled"}, {"gate"});
    }
    b.initializer("one", floatTensor({}, {1.0f}));
    b.initializer("half", floatTensor({}, {0.5f}));
    b.node("Add", {"gate", "one"}, {"gate1"});
    b.node("Mul", {"fc1", "gate1"}, {"gelu2"});
    b.node("Mul", {"gelu2", "half"}, {"gelu"});
    linear("gelu", "fc2", F, D);
    b.node("Add", {"x1", "fc2"}, {"y"});

    b.initializer("cls_index", int64Tensor({}, {0}));
    auto& g = b.node("Gather", {"y", "cls_index"}, {"cls"});
    attr(g, "axis", int64_t{1});
    b.initializer("head_w", weights({5, D}));
    b.initializer("head_b", weights({5}, 0.1f));
    auto& gemm = b.node("Gemm", {"cls", "head_w", "head_b"}, {"logits"});
    attr(gemm, "transB", int64_t{1});
    b.output("y");
    b.output("logits");
    return b;
}

// An additive attention mask: 0 for the first `valid` positions of each sequence, -1e4 after.
Tensor paddingMask(int64_t batch, int64_t seq) {
    Tensor m(DataType::Float32, {batch, 1, 1, seq});
    for (int64_t n = 0; n < batch; ++n)
        for (int64_t s = 0; s < seq; ++s) m.as<float>()[n * seq + s] = s < seq - n * 2 ? 0.0f : -1e4f;
    return m;
}

TEST(ArchitectureBlocks, TransformerEncoderErfGelu) {
    for (auto [batch, seq] : {std::pair<int64_t, int64_t>{2, 17}, {1, 5}}) {
        expectNetworkMatches(transformerBlock(false),
                             {{"x", randomTensor({batch, seq, 48}, 6, -2.0f, 2.0f)}, {"mask", paddingMask(batch, seq)}},
                             "transformer (erf GELU) " + std::to_string(batch) + "x" + std::to_string(seq));
    }
}

TEST(ArchitectureBlocks, TransformerEncoderTanhGelu) {
    expectNetworkMatches(transformerBlock(true),
                         {{"x", randomTensor({3, 9, 48}, 7, -2.0f, 2.0f)}, {"mask", paddingMask(3, 9)}},
                         "transformer (tanh GELU) 3x9");
}

// One session, the transformer at three sequence lengths and back: each shape gets its own
// plan (the Shape-computed Reshape targets fold per shape) and results stay correct.
TEST(ArchitectureBlocks, TransformerReplansPerSequenceLength) {
    VKINFER_REQUIRE_GPU();
    auto model = transformerBlock(false).build();
    ASSERT_TRUE(model.ok()) << model.status().toString();
    auto session = Session::create(gpuContext(), *model);
    ASSERT_TRUE(session.ok()) << session.status().toString();
    int64_t seed = 20;
    for (int64_t seq : {4, 11, 4, 32}) {
        std::vector<NamedTensor> in{{"x", randomTensor({2, seq, 48}, ++seed)}, {"mask", paddingMask(2, seq)}};
        auto expected = passes::runOnCpu(model->data()->graph, in);
        RunStats stats;
        auto out = session->run(in, &stats);
        ASSERT_TRUE(out.ok()) << "seq " << seq << ": " << out.status().toString();
        EXPECT_EQ(stats.planned, seq != 4 || seed == 21) << "seq " << seq << ": a new shape plans, a seen one reuses";
        for (size_t i = 0; i < expected.size(); ++i)
            expectTensorNear((*out)[i].tensor, expected[i], "seq " + std::to_string(seq), kNetworkTolerance);
    }
}

}  // namespace
}  // namespace vkinfer::testing
