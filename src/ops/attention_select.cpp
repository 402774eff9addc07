#include "ops/attention_select.h"

#include <algorithm>

#include "kernels/families/attention.h"
#include "kernels/families/attention_cm.h"
#include "ops/word_loads.h"

namespace vkinfer::ops {

namespace {

uint32_t roundUp16(int64_t v) { return static_cast<uint32_t>((v + 15) / 16 * 16); }

uint32_t portableKeyBlock(const AttentionLayout& l, uint32_t sharedMemoryBytes) {
    using namespace kernels::attention;
    auto bytes = [&](int64_t bc) { return 4 * (BR * l.D + bc * (l.D + l.DV) + BR * bc + BR * LANES); };
    int64_t bc = MAX_BC;
    while (bc > LANES && bytes(bc) > sharedMemoryBytes) bc /= 2;
    return static_cast<uint32_t>(bc);
}

}  // namespace

kernels::attention_cm::Dv coopmatAttentionDv(uint32_t outChunks) {
    namespace k = kernels::attention_cm;
    return outChunks == 1 ? k::Dv::dv16 : outChunks == 2 ? k::Dv::dv32 : outChunks == 4 ? k::Dv::dv64 : k::Dv::dv128;
}

uint64_t coopmatAttentionSharedBytes(uint32_t warps, uint32_t keySplit, uint32_t paddedD, uint32_t outChunks) {
    // attention_cm.comp: As (q rows, each warp's probabilities) and Bs (k, v: a block's keys per
    // key group) in halves with rows 8 halves longer than their data; Cs (a 16 x 20 float
    // staging tile per warp) and the lanes' exchange (a float each).
    const uint64_t keys = static_cast<uint64_t>(kernels::attention_cm::KEY_BLOCK), w = warps,
                   all = static_cast<uint64_t>(warps) * keySplit;
    const uint64_t halves = 16 * w * (paddedD + 8) + all * 16 * (keys + 8) +
                            keySplit * (keys * (paddedD + 8) + keys * (16 * outChunks + 8));
    return 2 * halves + 4 * (all * 16 * 20) + 4 * (32 * all);
}

AttentionChoice selectAttention(const AttentionLayout& l, DataType type, const KernelTarget& t) {
    AttentionChoice c;
    c.portableKeyBlock = portableKeyBlock(l, t.facts.sharedMemoryBytes);
    if (type != DataType::Float16 || t.attentionKernel == AttentionKernel::Portable || l.D > 128 || l.DV > 128)
        return c;
    // Heads narrower than a 16-wide matrix tile pad to it: half or more of each product is
    // zeros. Measured on the H200 (docs/BENCHMARKS.md, run 55): heads of 32 faster on the
    // tensor cores (vit_small, tiny_vit), heads of 8 slower (swin_small, swinir_x2).
    if (t.attentionKernel == AttentionKernel::Auto && (l.D < kCoopmatAttentionMinHead || l.DV < kCoopmatAttentionMinHead))
        return c;
    const uint32_t dv = roundUp16(l.DV) / 16;
    const uint32_t chunks = dv <= 1 ? 1 : dv <= 2 ? 2 : dv <= 4 ? 4 : 8;
    const uint32_t paddedD = roundUp16(l.D);
    // At most two warps (32 query rows) a workgroup: twice the workgroups of four share each key
    // block's staging (H100, run 62, side by side against four: ViT-B/16 fp16 0.990, Swin-T
    // 0.999, tiny_vit 0.999; one warp: ViT-B/16 1.021).
    uint32_t warps = static_cast<uint32_t>(std::clamp<int64_t>((l.S + 15) / 16, 1, 2));
    while (warps > 0 && coopmatAttentionSharedBytes(warps, 1, paddedD, chunks) > t.facts.sharedMemoryBytes) --warps;
    if (warps == 0) return c;
    // Long key chains over few query warps: one warp in each of several key groups instead.
    const int64_t keyBlocks = (l.L + kernels::attention_cm::KEY_BLOCK - 1) / kernels::attention_cm::KEY_BLOCK;
    const int64_t queryWarps = (l.S + 15) / 16 * l.batches();
    if (t.attentionKeySplit && keyBlocks >= kAttentionKeySplitMinBlocks && queryWarps < kAttentionKeySplitBelowQueryWarps) {
        uint32_t split = static_cast<uint32_t>(std::min<int64_t>(kernels::attention_cm::KSPLIT_MAX, keyBlocks / 2));
        while (split > 1 && coopmatAttentionSharedBytes(1, split, paddedD, chunks) > t.facts.sharedMemoryBytes) --split;
        if (split > 1) warps = 1, c.keySplit = split;
    }
    c.coopmat = true;
    c.warps = warps;
    c.paddedD = paddedD;
    c.outChunks = chunks;
    // (The head dimension a whole number of words too: a row's last word is then all its own.)
    auto words = [](const AttentionStrides& s, int64_t width) {
        return onWord(width) && rowsOfWords(s.col, s.row, {s.offset}) &&
               std::all_of(s.batch.begin(), s.batch.end(), onWord);
    };
    c.kWords = words(l.tensor[AttentionLayout::K], l.D);
    c.vWords = words(l.tensor[AttentionLayout::V], l.DV);
    return c;
}

}  // namespace vkinfer::ops
