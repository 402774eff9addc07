// Which kernel runs a fused attention (ops/attention.h): a pure function of the problem, the
// element type and the device's described capabilities (ops/kernel_target.h), so that a plan
// for a device can be checked without it.
#pragma once

#include <cstdint>

#include "kernels/families/attention_cm.h"
#include "ops/attention.h"
#include "ops/kernel_target.h"
#include "vkinfer/tensor.h"

namespace vkinfer::ops {

struct AttentionChoice {
    // shaders/attention_cm.comp (both products on cooperative matrices) rather than
    // shaders/attention.comp (float32 arithmetic on the scalar units).
    bool coopmat = false;
    // With coopmat: warps per workgroup (16 query rows each), D rounded up to 16, and the
    // output's 16-column chunks per row (DV rounded up to 16, then to the kernel's 1, 2, 4 or 8).
    uint32_t warps = 0;
    uint32_t paddedD = 0;
    uint32_t outChunks = 0;
    // With coopmat: groups of `warps` warps on the same query rows that split the key blocks
    // between them and combine their partial softmax sums at the end (1: no split). The
    // workgroup has warps * keySplit warps.
    uint32_t keySplit = 1;
    // With coopmat: k's / v's rows are contiguous and every row and batch starts 8-aligned, so
    // they load as whole 8-half words (and the head dimension is a multiple of 8).
    bool kWords = false, vWords = false;
    // Without coopmat: keys per block of shaders/attention.comp, the most of 32, 16, 8 and 4
    // for which q's rows, both blocks and the probabilities fit the device's shared memory (32
    // with heads up to 64 in lavapipe's 32 KiB; 4 fits the 16 KiB every device has with the
    // widest heads, 128).
    uint32_t portableKeyBlock = 0;
};

// The narrowest head (D and DV) that AttentionKernel::Auto puts on the cooperative matrices.
constexpr int64_t kCoopmatAttentionMinHead = 16;

// With KernelPolicy::attentionKeySplit, the keys are split between groups of warps
// (AttentionChoice::keySplit) where there are at least kAttentionKeySplitMinBlocks blocks of
// keys (attention_cm::KEY_BLOCK each) and fewer than kAttentionKeySplitBelowQueryWarps warps'
// worth of query rows (16 each) over all batches:
// too few warps to fill a large GPU, each with a long chain of key blocks (ViT-B/16 at batch 1:
// 13 x 12 query warps, 7 blocks of keys). Each group then takes at least two blocks, and there
// are at most attention_cm::KSPLIT_MAX groups.
constexpr int64_t kAttentionKeySplitMinBlocks = 4;
constexpr int64_t kAttentionKeySplitBelowQueryWarps = 512;

// float16 attention takes the cooperative matrices where the target has them, the policy
// allows them (KernelPolicy::attentionKernel: Coopmat, or Auto with heads of at least
// kCoopmatAttentionMinHead) and the head dimensions (at most 128) fit its shared memory with
// one warp at least: up to two warps, fewer where the query rows need fewer or the memory
// takes fewer; or, with KernelPolicy::attentionKeySplit, one warp in each of up to four key
// groups where the keys are split (kAttentionKeySplitMinBlocks) and as many groups fit.
AttentionChoice selectAttention(const AttentionLayout& l, DataType type, const KernelTarget& t);

// The attention_cm variant whose output rows are outChunks 16-column chunks
// (AttentionChoice::outChunks: 1, 2, 4 or 8).
kernels::attention_cm::Dv coopmatAttentionDv(uint32_t outChunks);

// The shared memory attention_cm.comp declares for these constants, in bytes.
uint64_t coopmatAttentionSharedBytes(uint32_t warps, uint32_t keySplit, uint32_t paddedD, uint32_t outChunks);

}  // namespace vkinfer::ops
