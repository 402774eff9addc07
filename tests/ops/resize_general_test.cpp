// Resize forms run by resize_general.comp: cubic (cubic_coeff_a, exclude_outside),
// tf_crop_and_resize (roi, extrapolation_value) and align_corners with a fractional
// resized length.
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

// Opset-13 Resize with constant roi (optional), scales or sizes.
OnnxBuilder resizeModel(const Shape& x, const std::vector<float>& scales, const Shape& sizes, const std::string& mode,
                        const std::string& coord, const std::vector<float>& roi = {}) {
    OnnxBuilder b(13);
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

}  // namespace
}  // namespace vkinfer::testing
