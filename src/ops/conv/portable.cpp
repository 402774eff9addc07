#include "ops/conv/portable.h"

#include "ops/conv/layout.h"
#include "ops/conv/split_k_reduce.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/split_k.h"

namespace vkinfer::ops {

namespace k = kernels::conv2d;

PortableConvTile portableConvTile(const ConvGeom& g) {
    PortableConvTile t;
    t.smallM = g.Mg() <= 16;
    t.tile = t.smallM ? k::Tile::t16x128 : k::Tile::t64x64;
    const k::TileValue& v = k::kTileValues[static_cast<size_t>(t.tile)];
    t.bm = v.WM * v.TM;
    t.bn = v.WN * v.TN;
    return t;
}

std::pair<int64_t, int64_t> portableConvSplit(const ConvGeom& g, const PortableConvTile& t, int64_t siblings) {
    const int64_t K = g.K();
    const int64_t zTiles = g.groups * divUp(g.Mg(), t.bm);
    const int64_t pixelTiles = divUp(g.pixels(), t.bn);
    int64_t kChunk = K;
    if (!t.smallM) kChunk = splitKChunk(pixelTiles * zTiles * siblings, K, k::BK);
    int64_t splits = divUp(K, kChunk);
    if (zTiles * splits > 65535) splits = 1, kChunk = K;
    return {splits, kChunk};
}

void lowerPortableConv(LowerContext& ctx, const Node& n, const ConvGeom& g, const PortableConvTile& t, int64_t splits,
                       int64_t kChunk, int bias, int residual, DataType type) {
    // z holds group x m-tile; pixel tiles go along x and spill into y (see conv2d.comp).
    const int64_t zTiles = g.groups * divUp(g.Mg(), t.bm);
    if (zTiles > 65535) unsupported(n, "{} groups x {} channels per group exceed the workgroup grid", g.groups, g.Mg());
    // The tiled kernel can write channels-last for a tensor-core conv that reads it
    // (ops/conv/layout.h).
    const bool outNhwc = storesChannelsLast(ctx, n);
    const int64_t pixels = g.pixels();
    const int kTable = ctx.addConstant(n.name + "_ktable", reductionTable(g));
    int partial = -1;
    if (splits > 1)
        partial = ctx.addScratch(n.name + "_splitk", DataType::Float32,
                                 outNhwc ? Shape{splits, pixels, g.M} : Shape{splits, g.M, pixels});
    const k::Epilogue epilogue = splits > 1 ? k::Epilogue::splitk : residual >= 0 ? k::Epilogue::res : k::Epilogue::none;
    Dispatch& d = ctx.emit(typedKernel(n, k::variant(t.tile, epilogue, type), "conv2d", type));
    const k::TileValue& v = k::kTileValues[static_cast<size_t>(t.tile)];
    d.localSize = {static_cast<uint32_t>(v.WN), static_cast<uint32_t>(v.WM), 1};
    auto grid = grid1d(pixels, static_cast<uint32_t>(t.bn));
    d.groups = {grid[0], grid[1], static_cast<uint32_t>(zTiles * splits)};
    setActivation(d, n.activation);
    k::Push p{};
    setConvGeometry(p, g);
    p.kChunk = u32(kChunk);
    p.outNhwc = outNhwc ? 1u : 0u;
    d.setPush(p);
    d.bindings = {writeOf(partial >= 0 ? partial : n.outputs[0]), readOf(n.inputs[0]), readOf(n.inputs[1]), readOf(bias),
                  readOf(kTable)};
    if (partial < 0) {
        if (residual >= 0) d.bindings.push_back(readOf(residual));
        return;
    }
    // After the last use of d: emitting the reduce may move the dispatch list.
    emitConvSplitKReduce(ctx, n, g, splits, partial, bias, residual, type, outNhwc);
}

}  // namespace vkinfer::ops
