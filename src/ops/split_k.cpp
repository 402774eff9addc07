#include "ops/split_k.h"

#include <algorithm>

namespace vkinfer::ops {

int64_t splitKChunk(int64_t tiles, int64_t K, int64_t kTileK, int64_t kSplitTargetGroups, int64_t minSplitK) {
    constexpr int64_t kMinSplitK = 64, kMaxSplits = 32;
    // (tiles is 0 for an empty output: a batch of 0 divided by zero here.)
    if (tiles <= 0 || tiles * 2 > kSplitTargetGroups || K < std::max(minSplitK, 2 * kMinSplitK)) return K;
    int64_t splits = std::min({(kSplitTargetGroups + tiles - 1) / tiles, K / kMinSplitK, kMaxSplits});
    return ((K + splits - 1) / splits + kTileK - 1) / kTileK * kTileK;
}

}  // namespace vkinfer::ops
