// Resize (opset 10, 11, 13) and Upsample (opsets 7 and 9): nearest with every nearest_mode
// and coordinate_transformation_mode, linear, via scales and via sizes, up and down,
// integer and non-integer factors. Hand-computed cases are the ONNX operator examples.
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

struct ResizeSpec {
    Shape x;
    std::vector<float> scales;  // either scales...
    Shape sizes;                // ... or sizes
    std::string mode = "nearest";
    std::string coord;    // empty: default (half_pixel)
    std::string nearest;  // empty: default (round_prefer_floor)
    int64_t opset = 13;
};

std::string describe(const ResizeSpec& s) {
    std::string d = "Resize opset " + std::to_string(s.opset) + " " + s.mode + " " + shapeToString(s.x);
    if (!s.sizes.empty()) d += " sizes " + shapeToString(s.sizes);
    else {
        d += " scales";
        for (float f : s.scales) d += " " + std::to_string(f);
    }
    if (!s.coord.empty()) d += " " + s.coord;
    if (!s.nearest.empty()) d += " " + s.nearest;
    return d;
}

OnnxBuilder resizeModel(const ResizeSpec& s) {
    OnnxBuilder b(s.opset);
    b.input("x", s.x).output("y");
    std::vector<std::string> ins{"x"};
    if (s.opset == 10) {
        b.initializer("scales", floatTensor({static_cast<int64_t>(s.scales.size())}, s.scales));
        ins.push_back("scales");
    } else if (s.opset < 13) {
        // Opset 11: roi and scales are required inputs; empty tensors stand for "not given".
        b.initializer("roi", Tensor(DataType::Float32, {0}));
        b.initializer("scales", floatTensor({static_cast<int64_t>(s.scales.size())}, s.scales));
        ins.push_back("roi");
        ins.push_back("scales");
        if (!s.sizes.empty()) {
            b.initializer("sizes", int64Tensor({static_cast<int64_t>(s.sizes.size())}, s.sizes));
            ins.push_back("sizes");
        }
    } else {
        ins.push_back("");  // roi
        if (s.sizes.empty()) {
            b.initializer("scales", floatTensor({static_cast<int64_t>(s.scales.size())}, s.scales));
            ins.push_back("scales");
        } else {
            b.initializer("sizes", int64Tensor({static_cast<int64_t>(s.sizes.size())}, s.sizes));
            ins.push_back("");
            ins.push_back("sizes");
        }
    }
    auto& n = b.node("Resize", ins, {"y"});
    attr(n, "mode", s.mode);
    if (!s.coord.empty()) attr(n, "coordinate_transformation_mode", s.coord);
    if (!s.nearest.empty()) attr(n, "nearest_mode", s.nearest);
    return b;
}

void runResize(const ResizeSpec& s) {
    std::string what = describe(s);
    SCOPED_TRACE(what);
    expectGpuMatchesCpu(resizeModel(s), {{"x", randomTensor(s.x, seedOf(what))}}, what);
}

const char* kCoordModes[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"};
const char* kNearestModes[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};

TEST(ResizeOp, NearestEveryMode) {
    VKINFER_REQUIRE_GPU();
    for (const char* coord : kCoordModes)
        for (const char* nearest : kNearestModes) {
            auto with = [&](ResizeSpec s) {
                s.coord = coord;
                s.nearest = nearest;
                runResize(s);
            };
            with({{1, 2, 5, 7}, {1, 1, 2, 3}});          // integer upsampling
            with({{1, 3, 6, 9}, {1, 1, 1.7f, 2.3f}});    // non-integer upsampling
            with({{2, 2, 10, 15}, {1, 1, 0.6f, 0.5f}});  // downsampling
            with({{1, 2, 7, 5}, {}, {1, 2, 11, 4}});     // sizes: up in H, down in W
            with({{1, 1, 4, 6}, {}, {1, 1, 1, 1}});      // a 1x1 output
        }
}

TEST(ResizeOp, Linear) {
    VKINFER_REQUIRE_GPU();
    for (const char* coord : kCoordModes) {
        if (std::string(coord) == "tf_half_pixel_for_nn") continue;  // nearest only
        auto with = [&](ResizeSpec s) {
            s.mode = "linear";
            s.coord = coord;
            runResize(s);
        };
        with({{1, 2, 5, 7}, {1, 1, 2, 2}});
        with({{1, 3, 6, 9}, {1, 1, 1.7f, 2.3f}});
        with({{2, 2, 10, 15}, {1, 1, 0.6f, 0.5f}});
        with({{1, 2, 7, 5}, {}, {1, 2, 11, 4}});
        with({{1, 1, 4, 6}, {}, {1, 1, 1, 1}});
    }
}

TEST(ResizeOp, ShapesAndOpsets) {
    VKINFER_REQUIRE_GPU();
    runResize({{1, 3, 50, 60}, {1, 1, 2, 2}});                             // many workgroups
    runResize({{1, 3, 50, 60}, {1, 1, 2, 2}, {}, "linear"});
    runResize({{2, 5, 8}, {1, 1, 2.5f}});                                   // rank 3: the innermost two dims
    runResize({{3, 4}, {2, 0.5f}});                                         // rank 2
    runResize({{1, 2, 3, 5}, {1, 1, 1, 1}});                                // identity scales
    runResize({{1, 2, 5, 7}, {1, 1, 2, 3}, {}, "nearest", "", "", 11});     // opset 11, scales
    runResize({{1, 2, 5, 7}, {}, {1, 2, 9, 3}, "linear", "align_corners", "", 11});  // opset 11, sizes
    runResize({{1, 2, 5, 7}, {}, {1, 2, 8, 8}, "nearest", "asymmetric", "floor", 11});
    runResize({{1, 2, 5, 7}, {1, 1, 2, 3}, {}, "nearest", "", "", 10});     // opset 10
    runResize({{1, 2, 5, 7}, {1, 1, 2, 2}, {}, "linear", "", "", 10});
    runResize({{1, 2, 6, 8}, {1, 1, 1.5f, 2.5f}, {}, "nearest", "", "", 10});
}

TEST(ResizeOp, UnsupportedAttributes) {
    // Rejected with Unsupported rather than computed wrong.
    ResizeSpec s{{1, 2, 4, 4}, {1, 2, 2, 2}};
    expectUnsupported(resizeModel(s), {}, "resize of the channel dimension");
    // (cubic, tf_crop_and_resize, half_pixel_symmetric, axes, keep_aspect_ratio_policy and
    // antialias are supported now: resize_general_test.cpp.)
}

TEST(ResizeOp, AntialiasWithoutEffect) {
    VKINFER_REQUIRE_GPU();
    // Antialias only matters for linear/cubic downsampling: nearest, and linear upsampling,
    // run as usual.
    for (const auto& [mode, sc] : std::vector<std::pair<std::string, float>>{{"nearest", 0.5f}, {"linear", 2.0f}}) {
        ResizeSpec s{{1, 2, 8, 8}, {1, 1, sc, sc}, {}, mode, "", "", 18};
        OnnxBuilder b = resizeModel(s);
        attr(*b.proto().mutable_graph()->mutable_node(0), "antialias", int64_t{1});
        expectGpuMatchesCpu(b, {{"x", randomTensor(s.x, 3)}}, describe(s) + " antialias");
    }
}

// ONNX Resize operator examples (backend test data).
TEST(ResizeOp, ReferenceMatchesOnnxExamples) {
    auto check = [](const ResizeSpec& s, const Tensor& x, const Tensor& want) {
        expectReferenceEquals(resizeModel(s), {{"x", x}}, {want}, describe(s));
    };
    Tensor x22 = floatTensor({1, 1, 2, 2}, {1, 2, 3, 4});
    Tensor x24 = floatTensor({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
    Tensor x44 = iotaTensor({1, 1, 4, 4}, 1.0f);
    // resize_upsample_scales_nearest
    check({{1, 1, 2, 2}, {1, 1, 2, 3}}, x22,
          floatTensor({1, 1, 4, 6}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}));
    // resize_downsample_scales_nearest
    check({{1, 1, 2, 4}, {1, 1, 0.6f, 0.6f}}, x24, floatTensor({1, 1, 1, 2}, {1, 3}));
    // resize_upsample_sizes_nearest
    check({{1, 1, 2, 2}, {}, {1, 1, 7, 8}}, x22,
          floatTensor({1, 1, 7, 8}, {1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1,
                                     2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 3, 3, 4, 4, 4, 4}));
    // resize_downsample_sizes_nearest
    check({{1, 1, 2, 4}, {}, {1, 1, 1, 3}}, x24, floatTensor({1, 1, 1, 3}, {1, 2, 4}));
    // resize_upsample_sizes_nearest_ceil_half_pixel: source index per output 0,1,1,2,2,3,3,3.
    // resize_upsample_sizes_nearest_floor_align_corners: 0,0,0,1,1,2,2,3.
    // resize_upsample_sizes_nearest_round_prefer_ceil_asymmetric: 0,1,1,2,2,3,3,3.
    struct ModeCase {
        const char* coord;
        const char* nearest;
        std::vector<int> idx;
    };
    for (const ModeCase& m : {ModeCase{"half_pixel", "ceil", {0, 1, 1, 2, 2, 3, 3, 3}},
                              ModeCase{"align_corners", "floor", {0, 0, 0, 1, 1, 2, 2, 3}},
                              ModeCase{"asymmetric", "round_prefer_ceil", {0, 1, 1, 2, 2, 3, 3, 3}},
                              ModeCase{"asymmetric", "round_prefer_floor", {0, 0, 1, 1, 2, 2, 3, 3}},
                              ModeCase{"tf_half_pixel_for_nn", "floor", {0, 0, 1, 1, 2, 2, 3, 3}},
                              ModeCase{"half_pixel", "round_prefer_floor", {0, 0, 1, 1, 2, 2, 3, 3}},
                              ModeCase{"half_pixel", "round_prefer_ceil", {0, 0, 1, 1, 2, 2, 3, 3}},
                              ModeCase{"half_pixel", "floor", {0, 0, 0, 1, 1, 2, 2, 3}},
                              ModeCase{"pytorch_half_pixel", "floor", {0, 0, 0, 1, 1, 2, 2, 3}}}) {
        std::vector<float> want;
        for (int r : m.idx)
            for (int c : m.idx) want.push_back(static_cast<float>(r * 4 + c + 1));
        check({{1, 1, 4, 4}, {}, {1, 1, 8, 8}, "nearest", m.coord, m.nearest}, x44, floatTensor({1, 1, 8, 8}, want));
    }
    // resize_upsample_scales_linear
    check({{1, 1, 2, 2}, {1, 1, 2, 2}, {}, "linear"}, x22,
          floatTensor({1, 1, 4, 4}, {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f,
                                     3.75f, 4}));
    // resize_upsample_scales_linear_align_corners
    check({{1, 1, 2, 2}, {1, 1, 2, 2}, {}, "linear", "align_corners"}, x22,
          floatTensor({1, 1, 4, 4}, {1, 4.0f / 3, 5.0f / 3, 2, 5.0f / 3, 2, 7.0f / 3, 8.0f / 3, 7.0f / 3, 8.0f / 3, 3,
                                     10.0f / 3, 3, 10.0f / 3, 11.0f / 3, 4}));
    // resize_downsample_scales_linear
    check({{1, 1, 2, 4}, {1, 1, 0.6f, 0.6f}, {}, "linear"}, x24, floatTensor({1, 1, 1, 2}, {8.0f / 3, 13.0f / 3}));
    // resize_downsample_sizes_linear_pytorch_half_pixel
    check({{1, 1, 4, 4}, {}, {1, 1, 3, 1}, "linear", "pytorch_half_pixel"}, x44,
          floatTensor({1, 1, 3, 1}, {5.0f / 3, 7, 37.0f / 3}));
    // Asymmetric linear, 2x: the last column/row repeats (clamped source coordinate).
    check({{1, 1, 2, 2}, {1, 1, 2, 2}, {}, "linear", "asymmetric"}, x22,
          floatTensor({1, 1, 4, 4}, {1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 3, 3.5f, 4, 4, 3, 3.5f, 4, 4}));
    // Opset 10 Resize behaves like Upsample: asymmetric coordinates, floor.
    check({{1, 1, 2, 2}, {1, 1, 2, 3}, {}, "nearest", "", "", 10}, x22,
          floatTensor({1, 1, 4, 6}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}));
}

// ---- Upsample ----

TEST(UpsampleOp, Opset9And7) {
    VKINFER_REQUIRE_GPU();
    for (const char* mode : {"nearest", "linear"}) {
        for (const auto& sc : std::vector<std::vector<float>>{{1, 1, 2, 2}, {1, 1, 3, 2}, {1, 1, 2.5f, 1.5f}}) {
            std::string what = std::string("Upsample opset 9 ") + mode + " " + std::to_string(sc[2]) + "x" +
                               std::to_string(sc[3]);
            OnnxBuilder b(9);
            b.input("x", {1, 2, 5, 6}).output("y");
            b.initializer("scales", floatTensor({4}, sc));
            attr(b.node("Upsample", {"x", "scales"}, {"y"}), "mode", std::string(mode));
            expectGpuMatchesCpu(b, {{"x", randomTensor({1, 2, 5, 6}, seedOf(what))}}, what);
        }
        std::string what = std::string("Upsample opset 7 ") + mode;
        OnnxBuilder b(7);
        b.input("x", {2, 3, 4, 5}).output("y");
        auto& n = b.node("Upsample", {"x"}, {"y"});
        attr(n, "mode", std::string(mode));
        attr(n, "scales", std::vector<float>{1, 1, 2, 3});
        expectGpuMatchesCpu(b, {{"x", randomTensor({2, 3, 4, 5}, seedOf(what))}}, what);
    }
}

TEST(UpsampleOp, ReferenceMatchesOnnxExamples) {
    Tensor x22 = floatTensor({1, 1, 2, 2}, {1, 2, 3, 4});
    // Upsample nearest example (opset 9).
    {
        OnnxBuilder b(9);
        b.input("x", {1, 1, 2, 2}).output("y");
        b.initializer("scales", floatTensor({4}, {1, 1, 2, 3}));
        attr(b.node("Upsample", {"x", "scales"}, {"y"}), "mode", std::string("nearest"));
        expectReferenceEquals(
            b, {{"x", x22}},
            {floatTensor({1, 1, 4, 6}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4})},
            "upsample nearest");
    }
    // Upsample bilinear example (opset 7 attribute scales).
    {
        OnnxBuilder b(7);
        b.input("x", {1, 1, 2, 2}).output("y");
        auto& n = b.node("Upsample", {"x"}, {"y"});
        attr(n, "mode", std::string("linear"));
        attr(n, "scales", std::vector<float>{1, 1, 2, 2});
        expectReferenceEquals(
            b, {{"x", x22}},
            {floatTensor({1, 1, 4, 4}, {1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 3, 3.5f, 4, 4, 3, 3.5f, 4, 4})}, "upsample bilinear");
    }
}

}  // namespace
}  // namespace vkinfer::testing
