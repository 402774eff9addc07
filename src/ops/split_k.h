// When a product's reduction is split across workgroups (split-K), for every tiled kernel.
#pragma once

#include <cstdint>

namespace vkinfer::ops {

// Split-K (conv2d.comp and gemm.comp with SPLITK): a product with fewer output tiles than
// half of targetGroups leaves a large GPU mostly idle (a 7x7 map with 256 channels is
// 4 tiles of 64x64 for 132 multiprocessors), so its reduction is split across workgroups
// when long enough. Returns the reduction indices per split (a multiple of kTileK, the
// kernel's BK: 16 for the tiled kernels, 32 for the cooperative-matrix ones), or K for no split.
// targetGroups: the workgroups a split aims at (a product with half as many tiles or more
// is left whole).
// minSplitK: the shortest reduction that is split at all (below it the extra reduce dispatch
// and its barrier cost more than the idle multiprocessors: a GEMM, see ops/gemm/select.cpp).
int64_t splitKChunk(int64_t tiles, int64_t K, int64_t kTileK = 16, int64_t targetGroups = 128, int64_t minSplitK = 128);

}  // namespace vkinfer::ops
