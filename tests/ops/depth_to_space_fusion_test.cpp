// Conv -> DepthToSpace -> activation fused (passes/fusion.cpp, shaders/conv_store.glsl): an
// upscaler's tail in one dispatch where the kernel stores the shuffle (register-tiled,
// register-direct, tensor cores), the conv and one copy elsewhere; both modes, block sizes 2
// and 3, against the unfused CPU reference on every kernel path.
#include <algorithm>

#include "ops/conv_cases.h"
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

// x -> Conv 3x3 (c -> 3 r^2 channels) -> DepthToSpace(r, mode) -> Sigmoid -> y.
OnnxBuilder upscalerTail(const Shape& x, int64_t r, const std::string& mode) {
    const int64_t m = 3 * r * r;
    OnnxBuilder b;
    b.input("x", x).output("y");
    b.initializer("w", rnd({m, x[1], 3, 3}, "d2s w " + mode)).initializer("b", rnd({m}, "d2s b " + mode));
    attr(b.node("Conv", {"x", "w", "b"}, {"c"}, "conv"), "pads", std::vector<int64_t>{1, 1, 1, 1});
    auto& d2s = b.node("DepthToSpace", {"c"}, {"s"}, "d2s");
    attr(d2s, "blocksize", r);
    attr(d2s, "mode", mode);
    b.node("Sigmoid", {"s"}, {"y"}, "sigmoid");
    return b;
}

int64_t count(const std::vector<std::string>& kernels, const std::string& prefix) {
    return std::count_if(kernels.begin(), kernels.end(),
                         [&](const std::string& k) { return k.rfind(prefix, 0) == 0; });
}

// 64 x 66 pixels: 66 tiles of 64x64, too many for conv2d_small, so GPUs take the tiles.
const Shape kLarge{1, 8, 64, 66};

TEST(DepthToSpaceFusion, OneDispatchWhereTheKernelStoresTheShuffle) {
    DeviceDescription gpu;
    gpu.kernels.convTiles = ConvTiles::Large;
    for (const char* mode : {"DCR", "CRD"}) {
        SCOPED_TRACE(mode);
        auto fp32 = planKernels(upscalerTail(kLarge, 2, mode), {{"x", kLarge}}, gpu, Precision::Float32);
        EXPECT_EQ(fp32, std::vector<std::string>{"conv2d_rt16x128_f32"});
        // The H200 in float16: the tensor cores store it (the casts of the graph's float32
        // input and output stay).
        auto fp16 = planKernels(upscalerTail(kLarge, 2, mode), {{"x", kLarge}}, h200Description());
        EXPECT_EQ(count(fp16, "conv2d_cm32"), 1) << ::testing::PrintToString(fp16);
        EXPECT_EQ(count(fp16, "copy_strided"), 0) << ::testing::PrintToString(fp16);
        EXPECT_EQ(count(fp16, "unary"), 0) << ::testing::PrintToString(fp16);
        // A CPU (lavapipe) by default: the register-direct kernel stores it too.
        auto cpu = planKernels(upscalerTail(kLarge, 2, mode), {{"x", kLarge}}, DeviceDescription{}, Precision::Float32);
        EXPECT_EQ(cpu, std::vector<std::string>{"conv2d_rtd16_k3_f32"});
        // The portable kernels: the conv, then the copy; the Sigmoid still fused.
        DeviceDescription portable;
        portable.kernels.convTiles = ConvTiles::Small;
        auto tiles = planKernels(upscalerTail(kLarge, 2, mode), {{"x", kLarge}}, portable, Precision::Float32);
        EXPECT_EQ(tiles, (std::vector<std::string>{"conv2d_t16x128_f32", "copy_strided_b32"}));
    }
}

TEST(DepthToSpaceFusion, NotFusedWhereTheConvOutputIsReadElsewhere) {
    OnnxBuilder b = upscalerTail(kLarge, 2, "DCR");
    b.output("c");  // the conv's own output observed
    auto kernels = planKernels(b, {{"x", kLarge}}, DeviceDescription{}, Precision::Float32);
    EXPECT_EQ(count(kernels, "copy_strided"), 1) << ::testing::PrintToString(kernels);
    EXPECT_EQ(count(kernels, "unary"), 1) << "the Sigmoid follows the DepthToSpace, not the conv";
}

struct Path {
    std::string what;
    Precision precision;
    ConvTiles tiles;
    bool emulateTensorCores;
};

TEST(DepthToSpaceFusion, MatchesCpuReferenceOnEveryKernelPath) {
    VKINFER_REQUIRE_GPU();
    const std::vector<Path> paths = {
        {"portable kernels, then the copy", Precision::Float32, ConvTiles::Small, false},
        {"the device's default (register-direct on CPUs)", Precision::Float32, ConvTiles::Auto, false},
        {"register-tiled, shuffled stores", Precision::Float32, ConvTiles::Large, false},
        {"register-tiled float16", Precision::Float16, ConvTiles::Large, false},
        {"tensor cores (emulated), shuffled stores", Precision::Float16, ConvTiles::Auto, true},
    };
    struct Tail {
        const char* mode;
        int64_t r;
        Shape x;
    };
    // The last: batch 2 on a small map (conv2d_small, then the copy, on GPUs).
    const std::vector<Tail> tails = {{"DCR", 2, kLarge}, {"CRD", 3, kLarge}, {"CRD", 2, {2, 8, 5, 7}}};
    for (const auto& p : paths)
        for (const auto& t : tails) {
            const std::string what =
                p.what + ", " + t.mode + ", r=" + std::to_string(t.r) + ", " + ::testing::PrintToString(t.x);
            SessionOptions o;
            o.precision = p.precision;
            o.kernels.convTiles = p.tiles;
            o.kernels.emulateCooperativeMatrix = p.emulateTensorCores;
            expectGpuMatchesCpuWith(upscalerTail(t.x, t.r, t.mode), {{"x", rnd(t.x, what)}}, what,
                                    p.precision == Precision::Float16 ? coopmatTolerance() : opTolerance(), o);
        }
}

}  // namespace
}  // namespace vkinfer::testing
