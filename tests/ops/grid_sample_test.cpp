// GridSample (src/ops/grid_sample.cpp, shaders/grid_sample.comp): the reference against
// hand-computed samples, then the GPU against the reference for every mode, padding and
// align_corners, with grids that reach past the borders, in float32 and float16. The ONNX
// node tests (test_gridsample_*) check the reference against ONNX's data in the conformance run.
#include <limits>
#include <string>

#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

OnnxBuilder gridModel(const Shape& x, const Shape& grid, const std::string& mode, const std::string& padding,
                      int64_t alignCorners, int64_t opset = 16) {
    OnnxBuilder b(opset);
    b.input("x", x).input("grid", grid).output("y");
    auto& n = b.node("GridSample", {"x", "grid"}, {"y"});
    attr(n, "mode", mode);
    attr(n, "padding_mode", padding);
    attr(n, "align_corners", alignCorners);
    return b;
}

TEST(GridSampleOp, ReferenceMatchesHandComputed) {
    // A 2x2 image [[0, 1], [2, 3]]; grid points (x, y).
    Tensor x = floatTensor({1, 1, 2, 2}, {0, 1, 2, 3});
    // align_corners = 1: -1 and 1 are the pixel centres 0 and 1. The centre (0, 0) is the mean
    // 1.5; (1, -1) is pixel (row 0, col 1) = 1; (-1, 0.5) is row 0.75 of column 0 = 1.5.
    Tensor g = floatTensor({1, 1, 3, 2}, {0, 0, 1, -1, -1, 0.5f});
    expectReferenceEquals(gridModel({1, 1, 2, 2}, {1, 1, 3, 2}, "bilinear", "zeros", 1), {{"x", x}, {"grid", g}},
                          {floatTensor({1, 1, 1, 3}, {1.5f, 1.0f, 1.5f})}, "bilinear align_corners");
    // align_corners = 0: -1 is the image's left edge (pixel -0.5). Zeros padding halves the edge
    // pixel there; border padding keeps it.
    Tensor x4 = floatTensor({1, 1, 2, 2}, {4, 1, 2, 3});
    Tensor edge = floatTensor({1, 1, 1, 2}, {-1, -0.5f});  // pixel x = -0.5, y = 0 (row 0, exactly)
    expectReferenceEquals(gridModel({1, 1, 2, 2}, {1, 1, 1, 2}, "bilinear", "zeros", 0), {{"x", x4}, {"grid", edge}},
                          {floatTensor({1, 1, 1, 1}, {2.0f})}, "left edge, zeros");
    expectReferenceEquals(gridModel({1, 1, 2, 2}, {1, 1, 1, 2}, "bilinear", "border", 0), {{"x", x4}, {"grid", edge}},
                          {floatTensor({1, 1, 1, 1}, {4.0f})}, "left edge, border");
    Tensor edge2 = floatTensor({1, 1, 1, 2}, {1, -0.5f});  // x = 1.5: half of pixel 1, half zero
    expectReferenceEquals(gridModel({1, 1, 2, 2}, {1, 1, 1, 2}, "bilinear", "zeros", 0), {{"x", x}, {"grid", edge2}},
                          {floatTensor({1, 1, 1, 1}, {0.5f})}, "right edge, zeros");
    expectReferenceEquals(gridModel({1, 1, 2, 2}, {1, 1, 1, 2}, "bilinear", "border", 0), {{"x", x}, {"grid", edge2}},
                          {floatTensor({1, 1, 1, 1}, {1.0f})}, "right edge, border");
    // Nearest: (0.2, 0.6) with align_corners = 1 is (0.6, 0.8) in pixels: row 1, col 1.
    expectReferenceEquals(gridModel({1, 1, 2, 2}, {1, 1, 1, 2}, "nearest", "zeros", 1),
                          {{"x", x}, {"grid", floatTensor({1, 1, 1, 2}, {0.2f, 0.6f})}}, {floatTensor({1, 1, 1, 1}, {3})},
                          "nearest");
    // Reflection (align_corners = 1: borders 0 and 1): grid x = 5 is pixel 3, two widths past
    // the right border: reflected twice, to 1; y = -1 is row 0. Then grid x = 3 (pixel 2, one
    // width past): reflected once, to 0.
    expectReferenceEquals(gridModel({1, 1, 2, 2}, {1, 1, 2, 2}, "bilinear", "reflection", 1),
                          {{"x", x}, {"grid", floatTensor({1, 1, 2, 2}, {5, -1, 3, -1})}},
                          {floatTensor({1, 1, 1, 2}, {1, 0})}, "reflection");
}

// Coordinates no index reaches (1e30, infinities, NaN: a fuzzer's grid once made the
// reference convert 1e30 to an integer) read the padding: zeros, or with border padding the
// clamped edge (NaN as far left).
TEST(GridSampleOp, CoordinatesFarOutsideReadThePadding) {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    Tensor x = floatTensor({1, 1, 2, 2}, {0, 1, 2, 3});
    Tensor g = floatTensor({1, 1, 4, 2}, {1e30f, 0, -inf, 0, nan, 0, inf, 0});
    for (const char* mode : {"bilinear", "bicubic", "nearest"})
        expectReferenceEquals(gridModel({1, 1, 2, 2}, {1, 1, 4, 2}, mode, "zeros", 1), {{"x", x}, {"grid", g}},
                              {floatTensor({1, 1, 1, 4}, {0, 0, 0, 0})}, std::string(mode) + ", zeros");
    // Row 0.5 between rows 0 and 1: column 1 gives (1 + 3) / 2, column 0 (0 + 2) / 2.
    expectReferenceEquals(gridModel({1, 1, 2, 2}, {1, 1, 4, 2}, "bilinear", "border", 1), {{"x", x}, {"grid", g}},
                          {floatTensor({1, 1, 1, 4}, {2, 1, 1, 2})}, "bilinear, border");
}

TEST(GridSampleOp, GpuMatchesCpu) {
    VKINFER_REQUIRE_GPU();
    const Shape x{2, 3, 7, 9}, grid{2, 5, 6, 2};
    Tensor data = randomTensor(x, 1, -2, 2);
    Tensor g = randomTensor(grid, 2, -1.4f, 1.4f);  // past the borders on every side
    for (const char* mode : {"bilinear", "nearest", "bicubic"})
        for (const char* padding : {"zeros", "border", "reflection"})
            for (int64_t align : {0, 1}) {
                std::string what = std::string(mode) + " " + padding + " align " + std::to_string(align);
                SCOPED_TRACE(what);
                auto m = gridModel(x, grid, mode, padding, align);
                expectGpuMatchesCpu(m, {{"x", data}, {"grid", g}}, what);
                expectGpuMatchesCpu(m, {{"x", data}, {"grid", g}}, what + " fp16", Tolerance{2e-2, 2e-2, true},
                                    Precision::Float16);
            }
    // Opset 20 names, and a flow-warp shape (RIFE: a 2-channel flow field per frame).
    auto m20 = gridModel({1, 4, 32, 48}, {1, 32, 48, 2}, "linear", "border", 1, 20);
    expectGpuMatchesCpu(m20, {{"x", randomTensor({1, 4, 32, 48}, 3)}, {"grid", randomTensor({1, 32, 48, 2}, 4, -1, 1)}},
                        "opset 20 linear");
}

// Volumetric GridSample (opset 20, 5-D): trilinear and nearest, every padding.
TEST(GridSampleOp, Volumetric) {
    // A 2x2x2 volume 0..7 (z, y, x): the centre with align_corners is the mean, 3.5; the
    // corner (x, y, z) = (1, -1, 1) is z 1, y 0, x 1: 5.
    expectReferenceEquals(gridModel({1, 1, 2, 2, 2}, {1, 1, 1, 2, 3}, "linear", "zeros", 1, 20),
                          {{"x", iotaTensor({1, 1, 2, 2, 2})}, {"grid", floatTensor({1, 1, 1, 2, 3}, {0, 0, 0, 1, -1, 1})}},
                          {floatTensor({1, 1, 1, 1, 2}, {3.5f, 5})}, "trilinear align_corners");
    if (!gpuAvailable()) return;
    const Shape x{2, 3, 5, 6, 7}, grid{2, 3, 4, 5, 3};
    const Tensor data = randomTensor(x, 5, -2, 2), g = randomTensor(grid, 6, -1.4f, 1.4f);
    for (const char* mode : {"linear", "nearest"})
        for (const char* padding : {"zeros", "border", "reflection"})
            for (int64_t align : {0, 1}) {
                const std::string what = std::string("volumetric ") + mode + " " + padding + " align " + std::to_string(align);
                auto m = gridModel(x, grid, mode, padding, align, 20);
                expectGpuMatchesCpu(m, {{"x", data}, {"grid", g}}, what);
                expectGpuMatchesCpu(m, {{"x", data}, {"grid", g}}, what + " fp16", Tolerance{2e-2, 2e-2, true},
                                    Precision::Float16);
            }
}

TEST(GridSampleOp, RefusesWhatItDoesNotDefine) {
    auto plan = [](const OnnxBuilder& b, InputShapes shapes) {
        auto m = b.build();
        return m.ok() ? planSummary(*m, shapes).status() : m.status();
    };
    Status st = plan(gridModel({1, 1, 4, 4}, {1, 2, 2, 2}, "linear", "zeros", 0, 16), {{"x", {1, 1, 4, 4}}, {"grid", {1, 2, 2, 2}}});
    EXPECT_EQ(st.code(), ErrorCode::Unsupported) << st.toString();
    EXPECT_NE(st.message().find("bilinear, nearest, bicubic"), std::string::npos) << st.message();
    st = plan(gridModel({1, 1, 4, 4}, {1, 2, 2, 3}, "bilinear", "zeros", 0), {{"x", {1, 1, 4, 4}}, {"grid", {1, 2, 2, 3}}});
    EXPECT_EQ(st.code(), ErrorCode::ShapeError) << st.toString();
    st = plan(gridModel({1, 1, 4, 4}, {1, 2, 2, 2}, "bilinear", "mirror", 0), {{"x", {1, 1, 4, 4}}, {"grid", {1, 2, 2, 2}}});
    EXPECT_EQ(st.code(), ErrorCode::Unsupported) << st.toString();
    EXPECT_NE(st.message().find("'mirror'"), std::string::npos) << st.message();
    // Cubic is defined for 4-D input only; a 5-D grid needs three coordinates.
    st = plan(gridModel({1, 1, 2, 4, 4}, {1, 1, 2, 2, 3}, "cubic", "zeros", 0, 20),
              {{"x", {1, 1, 2, 4, 4}}, {"grid", {1, 1, 2, 2, 3}}});
    EXPECT_EQ(st.code(), ErrorCode::Unsupported) << st.toString();
    EXPECT_NE(st.message().find("cubic"), std::string::npos) << st.message();
    st = plan(gridModel({1, 1, 2, 4, 4}, {1, 1, 2, 2, 2}, "linear", "zeros", 0, 20),
              {{"x", {1, 1, 2, 4, 4}}, {"grid", {1, 1, 2, 2, 2}}});
    EXPECT_EQ(st.code(), ErrorCode::ShapeError) << st.toString();
}

}  // namespace
}  // namespace vkinfer::testing
