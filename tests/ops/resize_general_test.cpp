// Resize forms run by resize_general.comp: cubic (cubic_coeff_a, exclude_outside),
// tf_crop_and_resize (roi, extrapolation_value) and align_corners with a fractional
// resized length; opset 18 axes, keep_aspect_ratio_policy and antialias, opset 19
// half_pixel_symmetric.
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

// Resize with constant roi (optional), scales or sizes, at `opset` (13 unless given).
OnnxBuilder resizeModel(const Shape& x, const std::vector<float>& scales, const Shape& sizes, const std::string& mode,
                        const std::string& coord, const std::vector<float>& roi = {}, int64_t opset = 13) {
    OnnxBuilder b(opset);
    b.input("x", x).output("y");
    std::vector<std::string> in{"x", roi.empty() ? "" : "roi"};
    if (!roi.empty()) b.initializer("roi", floatTensor({static_cast<int64_t>(roi.size())}, roi));
    if (!scales.empty()) {
        b.initializer("scales", floatTensor({static_cast<int64_t>(scales.size())}, scales));
        in.push_back("scales");
    } else {
        b.initializer("sizes", int64Tensor({static_cast<int64_t>(sizes.size())}, sizes));
        in.push_back("");
        in.push_back("sizes");
    }
    auto& n = b.node("Resize", in, {"y"});
    attr(n, "mode", mode);
    if (!coord.empty()) attr(n, "coordinate_transformation_mode", coord);
    return b;
}

TEST(ResizeGeneralOp, ReferenceValues) {
    // Cubic (A = -0.75) over x^2 at half steps: taps weigh -3/32, 19/32, 19/32, -3/32, edges clamp.
    expectReferenceEquals(resizeModel({1, 1, 1, 4}, {}, {1, 1, 1, 8}, "cubic", "asymmetric"),
                          {{"x", floatTensor({1, 1, 1, 4}, {0, 1, 4, 9})}},
                          {floatTensor({1, 1, 1, 8}, {0, 0.21875f, 1, 2.125f, 4, 6.78125f, 9, 9.46875f})},
                          "cubic asymmetric x2");
    // tf_crop_and_resize: W roi [0.25, 1.25] maps outputs to 1, 2, 3, 4 and 5 (outside: 10).
    OnnxBuilder crop =
        resizeModel({1, 1, 1, 5}, {}, {1, 1, 1, 5}, "linear", "tf_crop_and_resize", {0, 0, 0, 0.25f, 1, 1, 1, 1.25f});
    attr(*crop.proto().mutable_graph()->mutable_node(0), "extrapolation_value", 10.0f);
    expectReferenceEquals(crop, {{"x", iotaTensor({1, 1, 1, 5})}}, {floatTensor({1, 1, 1, 5}, {1, 2, 3, 4, 10})},
                          "tf_crop_and_resize extrapolation");
    // align_corners with scales 0.6: the ONNX reference divides by 4 * 0.6 - 1 = 1.4, not by 1.
    expectReferenceEquals(resizeModel({1, 1, 2, 4}, {1, 1, 0.6f, 0.6f}, {}, "linear", "align_corners"),
                          {{"x", iotaTensor({1, 1, 2, 4}, 1)}}, {floatTensor({1, 1, 1, 2}, {1, 3.142857f})},
                          "align_corners fractional length");
}

TEST(ResizeGeneralOp, GpuMatchesCpu) {
    VKINFER_REQUIRE_GPU();
    Shape x{2, 3, 7, 9};
    auto data = randomTensor(x, 11);
    for (const char* coord : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"}) {
        std::string c = coord;
        expectGpuMatchesCpu(resizeModel(x, {1, 1, 1.7f, 0.6f}, {}, "cubic", c), {{"x", data}}, "cubic scales " + c);
        expectGpuMatchesCpu(resizeModel(x, {}, {2, 3, 3, 20}, "cubic", c), {{"x", data}}, "cubic sizes " + c);
    }
    OnnxBuilder ex = resizeModel(x, {1, 1, 0.5f, 2.5f}, {}, "cubic", "");
    attr(*ex.proto().mutable_graph()->mutable_node(0), "exclude_outside", int64_t{1});
    attr(*ex.proto().mutable_graph()->mutable_node(0), "cubic_coeff_a", -0.5f);
    expectGpuMatchesCpu(ex, {{"x", data}}, "cubic exclude_outside A=-0.5");
    for (const char* mode : {"nearest", "linear"}) {
        std::string m = mode;
        expectGpuMatchesCpu(
            resizeModel(x, {}, {2, 3, 4, 6}, m, "tf_crop_and_resize", {0, 0, 0.2f, -0.1f, 1, 1, 0.7f, 1.3f}),
            {{"x", data}}, m + " tf_crop_and_resize");
        expectGpuMatchesCpu(resizeModel(x, {1, 1, 0.7f, 1.3f}, {}, m, "align_corners"), {{"x", data}},
                            m + " align_corners fractional");
    }
}

// Opset-19 Resize of x with scales or sizes for `axes` only (empty: every axis), and attributes.
OnnxBuilder resize19(const Shape& x, const std::vector<float>& scales, const Shape& sizes, const Shape& axes,
                     const std::string& mode, const std::string& coord, const std::string& policy = "") {
    OnnxBuilder b = resizeModel(x, scales, sizes, mode, coord, {}, 19);
    auto& n = *b.proto().mutable_graph()->mutable_node(0);
    if (!axes.empty()) attr(n, "axes", axes);
    if (!policy.empty()) attr(n, "keep_aspect_ratio_policy", policy);
    return b;
}

// Opset 18's axes: scales and sizes of the listed axes, in their order, negative ones counted
// from the end; the same as the full-rank form, on the CPU and the GPU.
TEST(ResizeOpset18, AxesListTheResizedDimensions) {
    const Shape x{1, 2, 4, 6};
    const Tensor data = randomTensor(x, 21);
    auto full = cpuReference(resize19(x, {1, 1, 1.5f, 0.5f}, {}, {}, "linear", ""), {{"x", data}}, "full scales");
    auto listed = cpuReference(resize19(x, {0.5f, 1.5f}, {}, {-1, 2}, "linear", ""), {{"x", data}}, "axes scales");
    ASSERT_EQ(full.size(), 1u);
    ASSERT_EQ(listed.size(), 1u);
    expectTensorNear(listed[0], full[0], "axes [-1, 2] against full scales", Tolerance{0, 0, false});
    auto sizesFull = cpuReference(resize19(x, {}, {1, 2, 7, 3}, {}, "nearest", ""), {{"x", data}}, "full sizes");
    auto sizesListed = cpuReference(resize19(x, {}, {7, 3}, {2, 3}, "nearest", ""), {{"x", data}}, "axes sizes");
    ASSERT_EQ(sizesListed.size(), 1u);
    expectTensorNear(sizesListed[0], sizesFull[0], "axes [2, 3] against full sizes", Tolerance{0, 0, false});
    if (!gpuAvailable()) return;
    expectGpuMatchesCpu(resize19(x, {0.5f, 1.5f}, {}, {-1, 2}, "linear", ""), {{"x", data}}, "axes scales");
    expectGpuMatchesCpu(resize19(x, {}, {7, 3}, {2, 3}, "cubic", "align_corners"), {{"x", data}}, "axes sizes cubic");
}

// keep_aspect_ratio_policy: one scale for the listed axes, the smallest or largest of
// sizes / input, and the sizes rounded from it.
TEST(ResizeOpset18, KeepAspectRatioPolicy) {
    const Tensor x = iotaTensor({1, 1, 2, 4});  // 0..7
    // sizes 4 x 4: not_larger keeps 2 x 4 (scale 1); not_smaller doubles both (scale 2).
    expectReferenceEquals(resize19({1, 1, 2, 4}, {}, {4, 4}, {2, 3}, "nearest", "", "not_larger"), {{"x", x}}, {x},
                          "not_larger");
    std::vector<float> doubled;
    for (int row : {0, 0, 1, 1})
        for (int col : {0, 0, 1, 1, 2, 2, 3, 3}) doubled.push_back(static_cast<float>(row * 4 + col));
    expectReferenceEquals(resize19({1, 1, 2, 4}, {}, {4, 4}, {2, 3}, "nearest", "", "not_smaller"), {{"x", x}},
                          {floatTensor({1, 1, 4, 8}, doubled)}, "not_smaller");
    if (gpuAvailable())
        expectGpuMatchesCpu(resize19({1, 3, 6, 10}, {}, {1, 3, 9, 12}, {}, "linear", "", "not_larger"),
                            {{"x", randomTensor({1, 3, 6, 10}, 22)}}, "not_larger linear, every axis listed");
}

// Opset 19's half_pixel_symmetric: half_pixel shifted so that the centres align, which differs
// from half_pixel where the output size is not scale x input.
TEST(ResizeOpset18, HalfPixelSymmetric) {
    const Shape x{1, 2, 5, 7};
    const Tensor data = randomTensor(x, 23);
    auto sym = cpuReference(resize19(x, {1, 1, 0.7f, 1.3f}, {}, {}, "linear", "half_pixel_symmetric"), {{"x", data}},
                            "symmetric");
    auto half = cpuReference(resize19(x, {1, 1, 0.7f, 1.3f}, {}, {}, "linear", "half_pixel"), {{"x", data}}, "half");
    ASSERT_EQ(sym.size(), 1u);
    ASSERT_EQ(half.size(), 1u);
    EXPECT_FALSE(compareTensors(sym[0], half[0], Tolerance{0, 1e-4, false}).pass);
    if (!gpuAvailable()) return;
    expectGpuMatchesCpu(resize19(x, {1, 1, 0.7f, 1.3f}, {}, {}, "linear", "half_pixel_symmetric"), {{"x", data}},
                        "half_pixel_symmetric linear");
    expectGpuMatchesCpu(resize19(x, {1, 1, 1.9f, 0.45f}, {}, {}, "cubic", "half_pixel_symmetric"), {{"x", data}},
                        "half_pixel_symmetric cubic");
}

// Antialias (opset 18): downsampling stretches the filter by 1/scale. Linear at scale 0.5 over
// [0 1 2 3]: output 0 sits at 0.5, taps at -1..2 (edges clamp) weigh 1/8 3/8 3/8 1/8: 0.625;
// output 1 at 2.5 reads 1, 2, 3, 3: 2.375 (plain linear would give 0.5 and 2.5).
TEST(ResizeOpset18, Antialias) {
    auto aa = [](OnnxBuilder b, int64_t excludeOutside = 0) {
        auto& n = *b.proto().mutable_graph()->mutable_node(0);
        attr(n, "antialias", int64_t{1});
        if (excludeOutside) attr(n, "exclude_outside", excludeOutside);
        return b;
    };
    expectReferenceEquals(aa(resize19({1, 1, 1, 4}, {1, 1, 1, 0.5f}, {}, {}, "linear", "")),
                          {{"x", floatTensor({1, 1, 1, 4}, {0, 1, 2, 3})}}, {floatTensor({1, 1, 1, 2}, {0.625f, 2.375f})},
                          "linear antialias x0.5");
    // exclude_outside drops the taps at -1 and at 4 and renormalizes: (3/8 * 1 + 1/8 * 2) / (7/8)
    // and (1/8 * 1 + 3/8 * 2 + 3/8 * 3) / (7/8).
    expectReferenceEquals(aa(resize19({1, 1, 1, 4}, {1, 1, 1, 0.5f}, {}, {}, "linear", ""), 1),
                          {{"x", floatTensor({1, 1, 1, 4}, {0, 1, 2, 3})}},
                          {floatTensor({1, 1, 1, 2}, {0.7142857f, 2.2857143f})}, "linear antialias exclude_outside");
    if (!gpuAvailable()) return;
    const Shape x{2, 3, 17, 23};
    const Tensor data = randomTensor(x, 29);
    for (const char* mode : {"linear", "cubic"})
        for (const char* coord : {"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"}) {
            const std::string what = std::string(mode) + " antialias " + coord;
            expectGpuMatchesCpu(aa(resize19(x, {1, 1, 0.5f, 0.3f}, {}, {}, mode, coord)), {{"x", data}}, what + " scales");
            expectGpuMatchesCpu(aa(resize19(x, {}, {2, 3, 6, 30}, {}, mode, coord)), {{"x", data}},
                                what + " sizes (one axis up)");
        }
    expectGpuMatchesCpu(aa(resize19(x, {1, 1, 0.25f, 0.4f}, {}, {}, "cubic", ""), 1), {{"x", data}},
                        "cubic antialias exclude_outside");
    OnnxBuilder crop = aa(resizeModel(x, {}, {2, 3, 5, 9}, "linear", "tf_crop_and_resize", {0, 0, 0.1f, -0.2f, 1, 1, 0.9f, 1.1f}, 18));
    attr(*crop.proto().mutable_graph()->mutable_node(0), "extrapolation_value", 7.0f);
    expectGpuMatchesCpu(crop, {{"x", data}}, "linear antialias tf_crop_and_resize");
    expectGpuMatchesCpu(aa(resize19(x, {1, 1, 0.5f, 0.3f}, {}, {}, "linear", "")), {{"x", data}}, "linear antialias fp16",
                        Tolerance{2e-3, 2e-3, true}, Precision::Float16);
}

TEST(ResizeOpset18, RefusesWhatIsNotDefined) {
    for (const auto& [b, what] : std::vector<std::pair<OnnxBuilder, std::string>>{
             {resize19({1, 1, 2, 4}, {}, {4, 4}, {2, 3}, "nearest", "", "squeeze"), "keep_aspect_ratio_policy"},
             {resize19({1, 1, 2, 4}, {2, 2}, {}, {3, -1}, "nearest", ""), "listed twice"},
             {resize19({1, 1, 2, 4}, {2, 2, 2}, {}, {2, 3}, "nearest", ""), "scales has 3 entries for 2 axes"},
             // An absurd size with not_smaller: refused, not converted past int64.
             {resize19({1, 1, 2, 4}, {}, {1, int64_t{1} << 62}, {2, 3}, "nearest", "", "not_smaller"),
              "no plannable size"}}) {
        auto m = b.build();
        ASSERT_TRUE(m.ok()) << m.status().toString();
        auto s = planSummary(*m, {{"x", {1, 1, 2, 4}}});
        ASSERT_FALSE(s.ok()) << what;
        EXPECT_EQ(s.status().code(), ErrorCode::ShapeError) << s.status().toString();
        EXPECT_NE(s.status().message().find(what), std::string::npos) << s.status().message();
    }
    // Nothing to interpolate from: an empty resized dimension with a non-empty output.
    for (const char* mode : {"nearest", "linear", "cubic"}) {
        auto m = resize19({1, 1, 0, 4}, {}, {1, 1, 2, 2}, {}, mode, "").build();
        ASSERT_TRUE(m.ok()) << m.status().toString();
        auto s = planSummary(*m, {{"x", {1, 1, 0, 4}}});
        ASSERT_FALSE(s.ok()) << mode;
        EXPECT_EQ(s.status().code(), ErrorCode::ShapeError) << s.status().toString();
        EXPECT_NE(s.status().message().find("empty"), std::string::npos) << s.status().message();
    }
}

}  // namespace
}  // namespace vkinfer::testing
