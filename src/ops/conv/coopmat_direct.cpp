#include "ops/conv/coopmat_direct.h"

#include "kernels/families/conv2d_cmd.h"
#include "ops/conv/layout.h"
#include "ops/node_checks.h"

namespace vkinfer::ops {

namespace {

constexpr int64_t kFragment = 16;
constexpr int64_t kNarrowChannels = 8;  // one 16-byte word of float16 per halo pixel
constexpr int64_t kWordBytes = 16;
constexpr int64_t kMinDirectWarps = 384;  // about 3 per multiprocessor of an H200

namespace k = kernels::conv2d_cmd;
constexpr int64_t kStagingBytesPerWarp = k::STAGING_FLOATS_PER_WARP * 4;

const k::NarrowValue& narrowValue(bool narrow) {
    return k::kNarrowValues[static_cast<size_t>(narrow ? k::Narrow::narrow : k::Narrow::none)];
}

// The tile for one choice of rows and channels per workgroup, with its shared memory.
CoopmatDirectConvTile tileFor(const ConvGeom& g, bool narrow, int64_t bm, int64_t warps, int64_t tw) {
    CoopmatDirectConvTile t;
    t.bm = bm;
    t.warps = warps;
    t.tw = tw;
    t.narrow = narrow;
    const k::NarrowValue& layout = narrowValue(narrow);  // words per halo pixel, taps per fragment
    const int64_t xStep = layout.XSTEP, kwSteps = divUp(g.KW, xStep);
    t.chunks = narrow ? 1 : divUp(g.C, kFragment);
    t.tapSteps = g.KH * kwSteps;
    // The last fragment of a row reads 16 pixels from its tap's offset; narrow taps come in
    // pairs, so an odd KW reads one pixel past the window (zeros against zero weights).
    t.haloW = tw + kwSteps * xStep - 1;
    t.haloWords = static_cast<uint32_t>((warps + g.KH - 1) * t.haloW * layout.PIX_WORDS);
    t.weightWords = static_cast<uint32_t>(t.tapSteps * bm * k::W_ROW_WORDS);
    t.sharedBytes = (t.haloWords + t.weightWords) * kWordBytes + warps * kStagingBytesPerWarp;
    return t;
}

}  // namespace

bool coopmatDirectConvPays(const ConvGeom& g, const CoopmatDirectConvTile& t) {
    // Measured per layer on the H200 (run 30, docs/BENCHMARKS.md): the halo pays where taps
    // share inputs (1x1 convs lost up to 7x to conv2d_cm's pointwise path), where the grid
    // holds enough warps to fill the GPU (ResNet-18's 56x56 layers, two rows per workgroup
    // for 64 channels: 56 warps, 0.02 -> 0.04 ms; ResNet-50 batch 8's 28x28 layers: 448 warps,
    // 0.042 -> 0.022 ms) and where rows fill most of their fragments (14-wide maps in rows of
    // 32 lost).
    const int64_t warps = divUp(g.OW, t.tw) * divUp(g.OH, t.warps) * g.N * divUp(g.M, t.bm) * t.warps;
    const bool rowsFilled = 4 * g.OW >= 3 * roundUp(g.OW, t.tw);
    return g.KH * g.KW > 1 && warps >= kMinDirectWarps && rowsFilled;
}

std::optional<CoopmatDirectConvTile> coopmatDirectConvTile(const ConvGeom& g, bool inNhwc, uint32_t sharedMemoryBytes) {
    if (g.groups != 1 || g.SH != 1 || g.SW != 1 || g.DH != 1 || g.DW != 1 || g.M < 8) return std::nullopt;
    if (inNhwc && g.C % 8 != 0) return std::nullopt;
    const bool narrow = g.C <= kNarrowChannels;
    const int64_t widest = g.M <= 16 ? 16 : g.M <= 32 ? 32 : 64;
    // Four fragments per row where the map is wider than two.
    const int64_t tw = g.OW > 2 * kFragment ? 4 * kFragment : 2 * kFragment;
    // The most channels, then the most rows, that fit: more of either reads each input pixel
    // and weight fewer times.
    for (int64_t bm = widest; bm >= kFragment; bm /= 2)
        for (int64_t warps : {8, 4, 2}) {
            CoopmatDirectConvTile t = tileFor(g, narrow, bm, warps, tw);
            const bool gridFits =
                divUp(g.OW, tw) <= 65535 && divUp(g.OH, warps) <= 65535 && g.N * divUp(g.M, bm) <= 65535;
            if (t.sharedBytes <= sharedMemoryBytes && gridFits) return t;
        }
    return std::nullopt;
}

Tensor packCoopmatDirectWeights(const Tensor& w, const ConvGeom& g, const CoopmatDirectConvTile& t) {
    const int64_t Mpad = roundUp(g.M, t.bm), taps = g.KH * g.KW;
    const int64_t kwSteps = t.narrow ? divUp(g.KW, 2) : g.KW;
    Tensor packed(DataType::Float16, {t.chunks, t.tapSteps, Mpad, kFragment});  // zero-filled
    const auto* src = w.as<uint16_t>();  // [M][C][KH][KW]
    auto* dst = packed.as<uint16_t>();
    for (int64_t q = 0; q < t.chunks; ++q)
        for (int64_t s = 0; s < t.tapSteps; ++s)
            for (int64_t m = 0; m < g.M; ++m)
                for (int64_t e = 0; e < kFragment; ++e) {
                    const int64_t ky = s / kwSteps;
                    int64_t kx, c;
                    if (t.narrow) {
                        kx = (s % kwSteps) * 2 + e / kNarrowChannels;
                        c = e % kNarrowChannels;
                    } else {
                        kx = s % kwSteps;
                        c = q * kFragment + e;
                    }
                    if (c >= g.C || kx >= g.KW) continue;
                    dst[((q * t.tapSteps + s) * Mpad + m) * kFragment + e] = src[(m * g.C + c) * taps + ky * g.KW + kx];
                }
    return packed;
}

void lowerCoopmatDirectConv(LowerContext& ctx, const Node& n, const ConvGeom& g, const CoopmatDirectConvTile& t, int bias,
                            int residual) {
    const bool inNhwc = ctx.channelsLast(n.inputs[0]), outNhwc = storesChannelsLast(ctx, n);
    const int64_t Mpad = roundUp(g.M, t.bm);
    const Tensor& w = *ctx.value(n.inputs[1]).constant;
    const int packedW = ctx.addConstant(n.name + "_cmd_weights", packCoopmatDirectWeights(w, g, t));

    const k::Bm bm = t.bm == 16 ? k::Bm::t16 : t.bm == 32 ? k::Bm::t32 : k::Bm::t64;
    Dispatch& d = ctx.emit(k::variant(bm, t.tw == 32 ? k::Tw::t32 : k::Tw::t64, t.narrow ? k::Narrow::narrow : k::Narrow::none,
                                      residual >= 0 ? k::Epilogue::res : k::Epilogue::none,
                                      ctx.target().emulateCooperativeMatrix ? k::Mode::emu : k::Mode::nv));
    d.localSize = {static_cast<uint32_t>(32 * t.warps), 1, 1};
    setActivation(d, n.activation);
    const uint32_t shuffle = depthToSpaceShuffle(n);
    d.setSpec(k::kShuffle, shuffle);
    d.setSpec(k::kHaloWords, t.haloWords);
    d.setSpec(k::kWeightWords, t.weightWords);
    d.setSpec(k::kKh, u32(g.KH));
    d.setSpec(k::kKw, u32(g.KW));
    // A float16 plan's output Cast folded in (conv/geometry.h ConvTypes): float32 stored.
    const bool outFloat32 = ctx.value(n.outputs[0]).dtype == DataType::Float32;
    d.setSpec(k::kOutFloat32, outFloat32 ? 1u : 0u);
    // Whole 16-byte words of float16 output per invocation where they are aligned (conv2d_cmd.comp).
    const bool words = !outFloat32 && (outNhwc ? g.M % 8 == 0 : shuffle == 0 && g.OW % 8 == 0);
    d.setSpec(k::kStoreWords, !words ? 0u : outNhwc ? 1u : 2u);
    d.groups = {ceilDiv(g.OW, t.tw), ceilDiv(g.OH, t.warps), static_cast<uint32_t>(g.N * (Mpad / t.bm))};
    d.setPush(k::Push{u32(g.N), u32(g.C), u32(g.H), u32(g.W), u32(g.M), u32(g.OH), u32(g.OW), u32(Mpad),
                             u32(g.padT), u32(g.padL), u32(t.chunks), u32(t.haloW), inNhwc ? 1u : 0u,
                             outNhwc ? 1u : 0u});
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(packedW), readOf(bias)};
    if (residual >= 0) d.bindings.push_back(readOf(residual));
}

}  // namespace vkinfer::ops
