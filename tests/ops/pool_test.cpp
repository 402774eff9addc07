// MaxPool / AveragePool (pads, strides, ceil_mode, count_include_pad, dilations, 1-D,
// auto_pad) and GlobalAveragePool / GlobalMaxPool.
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

struct PoolSpec {
    std::string what;
    Shape x;
    Shape kernel;
    Shape strides, pads, dilations;
    int64_t ceilMode = -1, countIncludePad = -1;
    std::string autoPad;
};

OnnxBuilder poolModel(const std::string& op, const PoolSpec& p, int64_t opset = 13) {
    OnnxBuilder b(opset);
    b.input("x", p.x).output("y");
    auto& n = b.node(op, {"x"}, {"y"});
    attr(n, "kernel_shape", p.kernel);
    if (!p.strides.empty()) attr(n, "strides", p.strides);
    if (!p.pads.empty()) attr(n, "pads", p.pads);
    if (!p.dilations.empty()) attr(n, "dilations", p.dilations);
    if (p.ceilMode >= 0) attr(n, "ceil_mode", p.ceilMode);
    if (p.countIncludePad >= 0) attr(n, "count_include_pad", p.countIncludePad);
    if (!p.autoPad.empty()) attr(n, "auto_pad", p.autoPad);
    return b;
}

void runPool(const std::string& op, const PoolSpec& p) {
    std::string what = op + " " + p.what;
    SCOPED_TRACE(what);
    expectGpuMatchesCpu(poolModel(op, p), {{"x", randomTensor(p.x, seedOf(what), -2.0f, 2.0f)}}, what);
}

void runBoth(const PoolSpec& p) {
    runPool("MaxPool", p);
    runPool("AveragePool", p);
}

TEST(PoolOp, KernelsStridesPads) {
    VKINFER_REQUIRE_GPU();
    runBoth({"2x2 s2", {1, 3, 17, 16}, {2, 2}, {2, 2}});
    runBoth({"3x3 s2 pad 1 batch 2", {2, 4, 15, 15}, {3, 3}, {2, 2}, {1, 1, 1, 1}});
    runBoth({"3x3 s1 asymmetric pads", {1, 2, 9, 11}, {3, 3}, {}, {0, 1, 2, 1}});
    runBoth({"2x5 kernel s(1,3)", {1, 3, 12, 20}, {2, 5}, {1, 3}, {1, 2, 0, 2}});
    runBoth({"1x1 kernel s2", {1, 5, 9, 8}, {1, 1}, {2, 2}});
    runBoth({"kernel = whole input", {2, 3, 6, 7}, {6, 7}});
    runBoth({"many workgroups", {1, 8, 64, 65}, {3, 3}, {1, 1}, {1, 1, 1, 1}});
}

TEST(PoolOp, MoreThan65535Workgroups) {
    VKINFER_REQUIRE_GPU();
    // 2 x 1449 x 1449 = 4,199,202 outputs > 65535 workgroups x 64: grid1d spills into y.
    runPool("MaxPool", {"4.2M outputs", {1, 2, 1449, 1449}, {3, 3}, {}, {1, 1, 1, 1}});
}

TEST(PoolOp, CeilMode) {
    VKINFER_REQUIRE_GPU();
    runBoth({"3x3 s2 ceil 16x16", {1, 3, 16, 16}, {3, 3}, {2, 2}, {}, {}, 1});
    runBoth({"3x3 s2 ceil pad 1 odd", {1, 2, 13, 10}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 1});
    // H = 5, pads 1/1, k2 s2: the 4th window would start at padded row 6 >= 5 + 1 and is
    // dropped, so the output keeps 3 rows.
    runBoth({"last window starts in padding", {1, 2, 5, 5}, {2, 2}, {2, 2}, {1, 1, 1, 1}, {}, 1});
    runBoth({"ceil s3", {1, 2, 11, 14}, {2, 2}, {3, 3}, {0, 0, 1, 1}, {}, 1});
}

TEST(PoolOp, CountIncludePad) {
    VKINFER_REQUIRE_GPU();
    for (int64_t cip : {0, 1}) {
        std::string tag = " count_include_pad=" + std::to_string(cip);
        runPool("AveragePool", {"3x3 s2 pad 1" + tag, {1, 2, 9, 10}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, -1, cip});
        runPool("AveragePool", {"asymmetric pads" + tag, {2, 3, 8, 7}, {3, 2}, {1, 1}, {2, 0, 1, 1}, {}, -1, cip});
        runPool("AveragePool", {"ceil overhang" + tag, {1, 2, 10, 9}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 1, cip});
        runPool("AveragePool", {"1-D" + tag, {2, 3, 19}, {4}, {3}, {2, 1}, {}, 1, cip});
    }
}

TEST(PoolOp, MaxPoolDilations) {
    VKINFER_REQUIRE_GPU();
    runPool("MaxPool", {"3x3 dilation 2", {1, 2, 15, 15}, {3, 3}, {}, {}, {2, 2}});
    runPool("MaxPool", {"3x3 dilation (2,3) pads stride 2", {2, 3, 17, 19}, {3, 3}, {2, 2}, {2, 3, 1, 2}, {2, 3}});
    runPool("MaxPool", {"2x2 dilation 2 ceil", {1, 2, 10, 11}, {2, 2}, {2, 2}, {}, {2, 2}, 1});
    runPool("MaxPool", {"1-D dilation 3", {1, 4, 29}, {3}, {2}, {1, 1}, {3}});
}

TEST(PoolOp, OneDimensional) {
    VKINFER_REQUIRE_GPU();
    runBoth({"1-D k3 s2 pads", {2, 3, 31}, {3}, {2}, {1, 1}});
    runBoth({"1-D k2 no pads", {1, 5, 16}, {2}, {2}});
    runBoth({"1-D ceil", {1, 2, 10}, {3}, {2}, {0, 0}, {}, 1});
}

TEST(PoolOp, AutoPad) {
    VKINFER_REQUIRE_GPU();
    for (const char* mode : {"SAME_UPPER", "SAME_LOWER", "VALID"}) {
        std::string m = mode;
        runBoth({m + " 3x3 s2", {1, 3, 15, 16}, {3, 3}, {2, 2}, {}, {}, -1, -1, m});
        runBoth({m + " 2x2 s1 (odd total pad)", {1, 2, 7, 9}, {2, 2}, {1, 1}, {}, {}, -1, -1, m});
        runBoth({m + " 1-D k4 s3", {2, 2, 20}, {4}, {3}, {}, {}, -1, -1, m});
        runPool("AveragePool", {m + " count_include_pad", {1, 2, 9, 8}, {3, 3}, {2, 2}, {}, {}, -1, 1, m});
    }
}

TEST(PoolOp, ReferenceMatchesHandComputed) {
    Tensor x5 = iotaTensor({1, 1, 5, 5}, 1.0f);
    Tensor x4 = iotaTensor({1, 1, 4, 4}, 1.0f);
    auto check = [](const std::string& op, const PoolSpec& p, const Tensor& x, const Tensor& want) {
        expectReferenceEquals(poolModel(op, p), {{"x", x}}, {want}, op + " " + p.what);
    };
    // ONNX operator examples.
    check("MaxPool", {"precomputed_strides", {1, 1, 5, 5}, {2, 2}, {2, 2}}, x5, floatTensor({1, 1, 2, 2}, {7, 9, 17, 19}));
    check("MaxPool", {"precomputed_same_upper", {1, 1, 5, 5}, {3, 3}, {2, 2}, {}, {}, -1, -1, "SAME_UPPER"}, x5,
          floatTensor({1, 1, 3, 3}, {7, 9, 10, 17, 19, 20, 22, 24, 25}));
    check("MaxPool", {"ceil", {1, 1, 4, 4}, {3, 3}, {2, 2}, {}, {}, 1}, x4, floatTensor({1, 1, 2, 2}, {11, 12, 15, 16}));
    check("MaxPool", {"dilations", {1, 1, 4, 4}, {2, 2}, {1, 1}, {}, {2, 2}}, x4,
          floatTensor({1, 1, 2, 2}, {11, 12, 15, 16}));
    check("AveragePool", {"precomputed_same_upper", {1, 1, 5, 5}, {3, 3}, {2, 2}, {}, {}, -1, -1, "SAME_UPPER"}, x5,
          floatTensor({1, 1, 3, 3}, {4, 5.5f, 7, 11.5f, 13, 14.5f, 19, 20.5f, 22}));
    check("AveragePool", {"precomputed_pads", {1, 1, 5, 5}, {5, 5}, {}, {2, 2, 2, 2}}, x5,
          floatTensor({1, 1, 5, 5}, {7,  7.5f,  8,  8.5f,  9,  9.5f,  10, 10.5f, 11, 11.5f, 12, 12.5f, 13,
                                     13.5f, 14, 14.5f, 15, 15.5f, 16, 16.5f, 17, 17.5f, 18, 18.5f, 19}));
    // With count_include_pad every window divides by 25.
    {
        std::vector<float> sums{63,  90,  120, 102, 81,  114, 160, 210, 176, 138, 180, 250, 325,
                                270, 210, 174, 240, 310, 256, 198, 153, 210, 270, 222, 171};
        for (float& s : sums) s /= 25.0f;
        check("AveragePool", {"precomputed_pads_count_include_pad", {1, 1, 5, 5}, {5, 5}, {}, {2, 2, 2, 2}, {}, -1, 1},
              x5, floatTensor({1, 1, 5, 5}, sums));
    }
    // 1-D, x = [1,2,3,4], k3 s2 pads 1/1, ceil_mode: windows start at -1, 1, 3. The last one
    // covers x[3], one end-pad position and one position past the padding (the ceil
    // overhang), which never counts.
    check("AveragePool", {"1-D ceil count_include_pad=1", {1, 1, 4}, {3}, {2}, {1, 1}, {}, 1, 1},
          floatTensor({1, 1, 4}, {1, 2, 3, 4}), floatTensor({1, 1, 3}, {1.0f, 3.0f, 2.0f}));
    check("AveragePool", {"1-D ceil count_include_pad=0", {1, 1, 4}, {3}, {2}, {1, 1}, {}, 1, 0},
          floatTensor({1, 1, 4}, {1, 2, 3, 4}), floatTensor({1, 1, 3}, {1.5f, 3.0f, 4.0f}));
    // H = W = 5, pads 1, k2 s2, ceil: windows start at -1, 1, 3 (a 4th at 5 would lie in
    // the padding only and is dropped).
    check("MaxPool", {"ceil last window in padding", {1, 1, 5, 5}, {2, 2}, {2, 2}, {1, 1, 1, 1}, {}, 1}, x5,
          floatTensor({1, 1, 3, 3}, {1, 3, 5, 11, 13, 15, 21, 23, 25}));
    // SAME_LOWER puts the odd pad first: 1-D x = [1..5], k2 s1.
    check("MaxPool", {"1-D SAME_LOWER", {1, 1, 5}, {2}, {1}, {}, {}, -1, -1, "SAME_LOWER"},
          floatTensor({1, 1, 5}, {5, 1, 4, 2, 3}), floatTensor({1, 1, 5}, {5, 5, 4, 4, 3}));
    check("MaxPool", {"1-D SAME_UPPER", {1, 1, 5}, {2}, {1}, {}, {}, -1, -1, "SAME_UPPER"},
          floatTensor({1, 1, 5}, {5, 1, 4, 2, 3}), floatTensor({1, 1, 5}, {5, 4, 4, 3, 3}));
    // Max over all-negative values with padding: padding must not contribute a 0.
    check("MaxPool", {"negative values with padding", {1, 1, 2, 2}, {3, 3}, {}, {1, 1, 1, 1}},
          floatTensor({1, 1, 2, 2}, {-4, -3, -2, -1}), floatTensor({1, 1, 2, 2}, {-1, -1, -1, -1}));
}

// Opset 19's AveragePool dilations: the window's taps are DIL apart; padding counts only with
// count_include_pad, as in the ONNX reference (its node tests pass: docs/CONFORMANCE-ONNX-1.22.md).
TEST(PoolOp, AveragePoolDilations) {
    // 2x2 taps 2 apart over 0..15: (0 + 2 + 8 + 10) / 4 = 5, then 6, 9, 10.
    expectReferenceEquals(poolModel("AveragePool", {"dilated", {1, 1, 4, 4}, {2, 2}, {}, {}, {2, 2}}, 19),
                          {{"x", iotaTensor({1, 1, 4, 4})}}, {floatTensor({1, 1, 2, 2}, {5, 6, 9, 10})},
                          "AveragePool dilation 2");
    if (!gpuAvailable()) return;
    for (int64_t cip : {0, 1}) {
        const std::string tag = cip ? ", count_include_pad" : "";
        const std::vector<PoolSpec> specs = {
            {"3x3 dilation 2 pads" + tag, {1, 2, 15, 15}, {3, 3}, {}, {2, 2, 2, 2}, {2, 2}, -1, cip},
            {"dilation (2,3) stride 2 ceil" + tag, {2, 3, 17, 19}, {3, 3}, {2, 2}, {2, 3, 1, 2}, {2, 3}, 1, cip},
            {"1-D dilation 3" + tag, {1, 4, 29}, {3}, {2}, {1, 1}, {3}, -1, cip}};
        for (const PoolSpec& p : specs) {
            const std::string what = "AveragePool " + p.what;
            expectGpuMatchesCpu(poolModel("AveragePool", p, 19), {{"x", randomTensor(p.x, seedOf(what), -2, 2)}}, what);
        }
    }
}

// ---- global pooling ----

void runGlobal(const std::string& op, const Shape& shape, float lo = -2.0f, float hi = 2.0f) {
    std::string what = op + " " + shapeToString(shape);
    SCOPED_TRACE(what);
    OnnxBuilder b;
    b.input("x", shape).output("y");
    b.node(op, {"x"}, {"y"});
    expectGpuMatchesCpu(b, {{"x", randomTensor(shape, seedOf(what), lo, hi)}}, what);
}

TEST(GlobalPoolOp, Shapes) {
    VKINFER_REQUIRE_GPU();
    for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
        runGlobal(op, {1, 3, 100, 97});   // large planes: many loop trips per thread
        runGlobal(op, {2, 300, 5, 7});    // many channels: many workgroups
        runGlobal(op, {1, 1, 1, 1});
        runGlobal(op, {3, 5, 33});        // 1-D
        runGlobal(op, {2, 4, 3, 5, 6});   // 3-D
        runGlobal(op, {1, 7, 8, 8});      // plane = workgroup size
        runGlobal(op, {1, 2, 1, 63});
    }
    runGlobal("GlobalMaxPool", {1, 4, 9, 9}, -100.0f, -50.0f);  // all negative
    runGlobal("GlobalAveragePool", {1, 2, 64, 64}, 10.0f, 11.0f);  // large sum, small spread
}

TEST(GlobalPoolOp, ReferenceMatchesHandComputed) {
    for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
        OnnxBuilder b;
        b.input("x", {1, 2, 2, 3}).output("y");
        b.node(op, {"x"}, {"y"});
        Tensor x = floatTensor({1, 2, 2, 3}, {1, 2, 3, 4, 5, 6, -1, -7, -3, -2, -5, -6});
        Tensor want = std::string(op) == "GlobalMaxPool" ? floatTensor({1, 2, 1, 1}, {6, -1})
                                                          : floatTensor({1, 2, 1, 1}, {3.5f, -4.0f});
        expectReferenceEquals(b, {{"x", x}}, {want}, op);
    }
}

}  // namespace
}  // namespace vkinfer::testing
