#include "ops/conv/register_direct.h"

#include <cstring>

#include "ops/conv/layout.h"
#include "ops/emit.h"
#include "ops/node_checks.h"

namespace vkinfer::ops {

namespace {

// Warps of the grid below which conv2d_rt, which can split the reduction, is kept: half of
// conv2d_rt's fill target (kFillWarps), as this kernel's workgroups load less per FMA.
constexpr int64_t kMinWarps = 1024;
// Input channels below which conv2d_rt (or conv2d.comp) is kept (docs/BENCHMARKS.md, run 35).
constexpr int64_t kMinChannels = 8;

// conv2d_rtd.comp's halo row in floats: TW + KW - 1 rounded up to a whole, odd number of vec4.
int64_t haloRowFloats(int64_t kw) { return 4 * (divUp(kRegisterDirectCols + kw - 1, 4) | 1); }

}  // namespace

int64_t RegisterDirectConvTile::warps() const { return bm / 8 * kRegisterDirectRows * (kRegisterDirectCols / 8) / 32; }

std::optional<RegisterDirectConvTile> registerDirectConvTile(const ConvGeom& g, uint32_t sharedMemoryBytes) {
    if (g.groups != 1 || g.SH != 1 || g.SW != 1 || g.DH != 1 || g.DW != 1) return std::nullopt;
    if (g.KW != 3 && g.KW != 5) return std::nullopt;
    RegisterDirectConvTile t;
    t.bm = g.M <= 16 ? 16 : g.M <= 32 ? 32 : 64;
    t.chunks = divUp(g.C, kRegisterDirectChunk);
    const int64_t halo = kRegisterDirectChunk * (kRegisterDirectRows + g.KH - 1) * haloRowFloats(g.KW);
    const int64_t weights = kRegisterDirectChunk * g.KH * g.KW * t.bm;
    t.sharedBytes = (halo + weights) * 4;
    const bool gridFits = divUp(g.OW, kRegisterDirectCols) <= 65535 && divUp(g.OH, kRegisterDirectRows) <= 65535 &&
                          g.N * divUp(g.M, t.bm) <= 65535;
    if (t.sharedBytes > sharedMemoryBytes || !gridFits) return std::nullopt;
    return t;
}

bool registerDirectConvPays(const ConvGeom& g, const RegisterDirectConvTile& t) {
    // Inputs of a few channels (RGB stems) lose: one chunk of 4, a quarter of it padding when
    // there are 3, leaves nothing to amortize the halo and the barriers over.
    if (g.C < kMinChannels) return false;
    const int64_t workgroups = divUp(g.OW, kRegisterDirectCols) * divUp(g.OH, kRegisterDirectRows) * g.N * divUp(g.M, t.bm);
    const bool rowsFilled = 4 * g.OW >= 3 * roundUp(g.OW, kRegisterDirectCols);
    return g.KH * g.KW > 1 && workgroups * t.warps() >= kMinWarps && rowsFilled;
}

Tensor packRegisterDirectWeights(const Tensor& w, const ConvGeom& g, const RegisterDirectConvTile& t) {
    const int64_t mTiles = divUp(g.M, t.bm), taps = g.KH * g.KW, ck = kRegisterDirectChunk;
    const size_t elem = dataTypeSize(w.dtype());
    Tensor packed(w.dtype(), {mTiles, t.chunks, ck, g.KH, g.KW, t.bm});  // zero-filled
    const auto* src = w.data();  // [M][C][KH][KW]
    auto* dst = packed.data();
    for (int64_t m = 0; m < g.M; ++m)
        for (int64_t c = 0; c < g.C; ++c)
            for (int64_t k = 0; k < taps; ++k) {
                const int64_t at = (((m / t.bm * t.chunks + c / ck) * ck + c % ck) * taps + k) * t.bm + m % t.bm;
                std::memcpy(dst + at * elem, src + ((m * g.C + c) * taps + k) * elem, elem);
            }
    return packed;
}

void lowerRegisterDirectConv(LowerContext& ctx, const Node& n, const ConvGeom& g, const RegisterDirectConvTile& t,
                             int bias, int residual, DataType type) {
    const int64_t Mpad = roundUp(g.M, t.bm);
    const Tensor& w = *ctx.value(n.inputs[1]).constant;
    const int packedW = ctx.addConstant(n.name + "_rtd_weights", packRegisterDirectWeights(w, g, t));

    namespace k = kernels::conv2d_rtd;
    const k::Bm bm = t.bm == 16 ? k::Bm::t16 : t.bm == 32 ? k::Bm::t32 : k::Bm::t64;
    const k::Kw kw = g.KW == 3 ? k::Kw::t3 : k::Kw::t5;  // (registerDirectConvTile takes no other)
    const k::Epilogue epilogue = residual >= 0 ? k::Epilogue::res : k::Epilogue::none;
    Dispatch& d = ctx.emit(typedKernel(n, k::variant(bm, kw, epilogue, type), "conv2d_rtd", type));
    d.localSize = {static_cast<uint32_t>(kRegisterDirectRows * kRegisterDirectCols / 8), static_cast<uint32_t>(t.bm / 8),
                   1};
    setActivation(d, n.activation);
    d.setSpec(k::kShuffle, depthToSpaceShuffle(n));
    d.setSpec(k::kKh, u32(g.KH));
    d.groups = {ceilDiv(g.OW, kRegisterDirectCols), ceilDiv(g.OH, kRegisterDirectRows),
                static_cast<uint32_t>(g.N * (Mpad / t.bm))};
    d.setPush(k::Push{u32(g.N), u32(g.C), u32(g.H), u32(g.W), u32(g.M), u32(g.OH), u32(g.OW), u32(Mpad), u32(g.padT),
                      u32(g.padL), u32(t.chunks), storesChannelsLast(ctx, n) ? 1u : 0u});
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(packedW), readOf(bias)};
    if (residual >= 0) d.bindings.push_back(readOf(residual));
}

}  // namespace vkinfer::ops
