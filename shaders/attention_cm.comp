#version 450
// Fused attention on cooperative matrices (float16 operands, float32 sums): the same problem,
// layout and specialization constants as attention.comp (y = softmax(SCALE * q k^T + a + c) v
// per batch, every tensor read through strides), with both products on the tensor cores.
// A workgroup of WARPS warps takes 16 query rows per warp; it walks the keys in blocks of KB,
// staging q (once), k and v (per block, key by key; k is read as the column-major k^T) in
// shared memory as float16, padded to the head dimensions rounded up to 16 (DP for q and k,
// DVP = 16 DVCH for v). With KSPLIT > 1 the workgroup holds KSPLIT groups of WARPS warps on the
// same query rows, each walking every KSPLIT-th key block with its own staging; at the end the
// groups past the first hand their m, l and o to the first, which combines them (as split
// flash attention does across workgroups, here through shared memory): a long key sequence
// over few query blocks becomes KSPLIT times the warps, each with a KSPLIT-th of the chain.
// Per block and warp: the 16 x KB scores as 16x16 accumulators, staged through Cs to the
// lanes (two lanes per row, eight columns of each 16 apiece), which add the biases, keep the
// row's running maximum m and sum l (the online softmax of flash attention) and write the
// probabilities back as float16 for the second product, p v; its accumulators are staged the
// same way into the lanes' output registers, rescaled by exp(m_old - m_new) as m grows. The
// scores never reach memory. Defines: DVCH (16-column chunks of the output), CM_NV /
// CM_EMULATE (coopmat.glsl).
#include "common.glsl"
#include "attention_cm.glsl"  // constants and specialization constants: shaders/kernels/attention_cm.toml
#include "coopmat.glsl"

layout(std430, binding = 0) writeonly buffer Out { float16_t y[]; };
layout(std430, binding = 1) readonly buffer Q { float16_t q[]; };
layout(std430, binding = 2) readonly buffer K { float16_t k[]; };
layout(std430, binding = 2) readonly buffer K4 { uvec4 k4[]; };
layout(std430, binding = 3) readonly buffer V { float16_t v[]; };
layout(std430, binding = 3) readonly buffer V4 { uvec4 v4[]; };
// The added score tensors (unused bindings alias q: NUM_BIAS says which are read).
layout(std430, binding = 4) readonly buffer A { float16_t a[]; };
layout(std430, binding = 5) readonly buffer C { float16_t c[]; };

const uint KB = KEY_BLOCK;
const uint KC = KB / 16u;             // 16-key chunks of a block
const uint DVP = 16u * DVCH;
const uint NW = WARPS * KSPLIT;  // warps of the workgroup; warp w is query warp w % WARPS of key group w / WARPS
const uint NT = 32u * NW;
const uint NTG = 32u * WARPS;    // invocations of a key group
const uint BR = 16u * WARPS;
const uint ROUNDS = ((L + KB - 1u) / KB + KSPLIT - 1u) / KSPLIT;  // key blocks per group
// Row strides in shared memory, in halves: 8 more than the row (16-byte aligned fragments,
// rows starting on other banks).
const uint QS = DP + 8u;
const uint KS = DP + 8u;  // k is staged key by key (row-major), read as the column-major k^T
const uint VS = DVP + 8u;
const uint PS = KB + 8u;
// As: the q rows, then each warp's 16 rows of probabilities; Bs: per key group, k (KB rows of
// DP), then v (KB rows of DVP).
const uint P_AT = BR * QS;
const uint V_AT = KB * KS;
const uint GS = KB * KS + KB * VS;  // a key group's staging

shared float16_t As[BR * QS + NW * 16u * PS];
shared float16_t Bs[KSPLIT * GS];

// k and v in whole 8-half words where their rows are contiguous and every row and batch starts
// 8-aligned (K_WORDS, V_WORDS: ops/attention_select.cpp): a block is then KB * DP / 8 and
// KB * DVP / 8 words, loaded into registers while the block before is multiplied. Keys past L
// and columns past D or DV are read clamped to the last key or word instead of zeroed: their
// scores are masked, q is zero past D, and the outputs past DV are not stored, so only their
// finiteness matters, and they are the tensor's own values. (A branch around a load made the
// compiler wait for it where the branches join: see gemm_cm.comp.) A key group's invocations
// (gtid: 0 .. NTG - 1) load and stage its blocks.
const uint KW = KB * DP / 8u, VW = KB * DVP / 8u;  // words of a block
// Registers for the most words an invocation holds (one warp, the widest head); the rounds
// past KW / NTG and VW / NTG are folded away once the specialization constants are known.
#define KW_MAX (KEY_BLOCK * 128u / 8u / 32u)
#define VW_MAX (KEY_BLOCK * 16u * DVCH / 8u / 32u)
shared float Cs[NW * CM_CS_WARP];
shared float partner[NT];

#define NEG_INF uintBitsToFloat(0xff800000u)

// x combined (max or sum) with the value of the lane that shares this lane's row (lane ^ 1).
float withPartner(float x, bool isMax) {
    uint tid = gl_LocalInvocationID.x;
    partner[tid] = x;
    CM_WARP_SYNC();
    float o = partner[tid ^ 1u];
    CM_WARP_SYNC();
    return isMax ? maxNaN(x, o) : x + o;
}

// Word i * NTG + gtid of the block of k and of v at key0, where they are words (K_WORDS,
// V_WORDS).
void loadWords(uint gtid, uint key0, uint kBase, uint vBase, out uvec4 kw[KW_MAX], out uvec4 vw[VW_MAX]) {
    CM_UNROLL for (uint i = 0u; i < KW_MAX; ++i) {
        if (K_WORDS != 0u && i * NTG < KW) {
            uint e = min(gtid + i * NTG, KW - 1u), key = min(key0 + e / (DP / 8u), L - 1u);
            uint q = min(e % (DP / 8u), D / 8u - 1u);
            kw[i] = k4[(kBase + key * K_ROW) / 8u + q];
        }
    }
    CM_UNROLL for (uint i = 0u; i < VW_MAX; ++i) {
        if (V_WORDS != 0u && i * NTG < VW) {
            uint e = min(gtid + i * NTG, VW - 1u), key = min(key0 + e / (DVP / 8u), L - 1u);
            uint q = min(e % (DVP / 8u), DV / 8u - 1u);
            vw[i] = v4[(vBase + key * V_ROW) / 8u + q];
        }
    }
}

void storeHalves(uint at, uvec4 w) {
    CM_UNROLL for (uint t = 0u; t < 4u; ++t) {
        f16vec2 h = unpackFloat2x16(w[t]);
        Bs[at + 2u * t] = h.x;
        Bs[at + 2u * t + 1u] = h.y;
    }
}

// The words into the key group's staging at gb.
void storeWords(uint gtid, uint gb, uvec4 kw[KW_MAX], uvec4 vw[VW_MAX]) {
    CM_UNROLL for (uint i = 0u; i < KW_MAX; ++i) {
        uint e = gtid + i * NTG;
        if (K_WORDS != 0u && i * NTG < KW && e < KW) storeHalves(gb + (e / (DP / 8u)) * KS + (e % (DP / 8u)) * 8u, kw[i]);
    }
    CM_UNROLL for (uint i = 0u; i < VW_MAX; ++i) {
        uint e = gtid + i * NTG;
        if (V_WORDS != 0u && i * NTG < VW && e < VW) storeHalves(gb + V_AT + (e / (DVP / 8u)) * VS + (e % (DVP / 8u)) * 8u, vw[i]);
    }
}

void main() {
    uint tid = gl_LocalInvocationID.x, warp = tid / 32u, lane = tid % 32u;
    uint qw = warp % WARPS, kg = warp / WARPS;  // query warp, key group
    uint gtid = tid % NTG, gb = kg * GS;        // the invocation within its key group, the group's staging
    uint r = lane / 2u, half8 = (lane % 2u) * 8u;  // this lane's row of the warp's 16, its 8 columns of each 16
    uint batch = gl_WorkGroupID.y;
    uint i2 = batch % NB2, i1 = (batch / NB2) % NB1, i0 = batch / (NB2 * NB1);
    uint qBase = Q_OFF + i0 * Q_B0 + i1 * Q_B1 + i2 * Q_B2;
    uint kBase = K_OFF + i0 * K_B0 + i1 * K_B1 + i2 * K_B2;
    uint vBase = V_OFF + i0 * V_B0 + i1 * V_B1 + i2 * V_B2;
    uint yBase = Y_OFF + i0 * Y_B0 + i1 * Y_B1 + i2 * Y_B2;
    uint aBase = A_OFF + i0 * A_B0 + i1 * A_B1 + i2 * A_B2;
    uint cBase = C_OFF + i0 * C_B0 + i1 * C_B1 + i2 * C_B2;
    uint row0 = gl_WorkGroupID.x * BR;
    uint s = row0 + qw * 16u + r;  // this lane's query row (past S: computed, never stored)
    uint cs = warp * CM_CS_WARP + r * CM_CS_STRIDE + half8;  // its 8 staged values

    for (uint e = tid; e < BR * DP; e += NT) {
        uint row = row0 + e / DP, d = e % DP;
        float16_t x = q[qBase + min(row, S - 1u) * Q_ROW + min(d, D - 1u) * Q_COL];
        As[(e / DP) * QS + d] = row < S && d < D ? x : float16_t(0.0);
    }
    float o[DVCH * 8u];
    CM_UNROLL for (uint j = 0u; j < DVCH * 8u; ++j) o[j] = 0.0;
    float m = NEG_INF, l = 0.0;  // l: this lane's share of the row's sum

    // Every group takes ROUNDS blocks (the same barriers for all); a block past L (the last
    // round of a group past the first, where the blocks do not divide evenly) is all masked and
    // adds nothing.
    uvec4 kw[KW_MAX], vw[VW_MAX];
    loadWords(gtid, kg * KB, kBase, vBase, kw, vw);
    for (uint round = 0u; round < ROUNDS; ++round) {
        uint key0 = (round * KSPLIT + kg) * KB;
        barrier();  // the previous block's k and v are read
        storeWords(gtid, gb, kw, vw);
        if (round + 1u < ROUNDS) loadWords(gtid, key0 + KSPLIT * KB, kBase, vBase, kw, vw);
        // Element by element where the rows are not words: clamped loads, zeros selected.
        if (K_WORDS == 0u) {
            for (uint e = gtid; e < KB * DP; e += NTG) {
                uint key = e / DP, d = e % DP;
                float16_t x = k[kBase + min(key0 + key, L - 1u) * K_ROW + min(d, D - 1u) * K_COL];
                Bs[gb + key * KS + d] = key0 + key < L && d < D ? x : float16_t(0.0);
            }
        }
        if (V_WORDS == 0u) {
            for (uint e = gtid; e < KB * DVP; e += NTG) {
                uint key = e / DVP, col = e % DVP;
                float16_t x = v[vBase + min(key0 + key, L - 1u) * V_ROW + min(col, DV - 1u) * V_COL];
                Bs[gb + V_AT + key * VS + col] = key0 + key < L && col < DV ? x : float16_t(0.0);
            }
        }
        barrier();

        // Scores of this lane's 8 columns in each 16-key chunk, scaled, biased, masked.
        float sc[KC * 8u];
        float blockMax = NEG_INF;
        CM_UNROLL for (uint kc = 0u; kc < KC; ++kc) {
            CM_ACC acc;
            CM_ZERO(acc);
            for (uint dc = 0u; dc < DP / 16u; ++dc) {
                CM_FRAG_A fq;
                CM_FRAG_B fk;
                CM_LOAD_A(fq, qw * 16u * QS + dc * 16u, QS);
                CM_LOAD_B_COLUMNS(fk, gb + kc * 16u * KS + dc * 16u, KS);
                CM_MULADD(acc, fq, fk);
            }
            CM_STAGE(acc, warp);
            CM_WARP_SYNC();
            CM_UNROLL for (uint t = 0u; t < 8u; ++t) {
                uint key = key0 + kc * 16u + half8 + t;
                float x = Cs[cs + t] * SCALE;
                // Biases read clamped (rows past S are not stored, keys past L are masked next).
                uint bs = min(s, S - 1u), bk = min(key, L - 1u);
                if (NUM_BIAS > 0u) x += float(a[aBase + bs * A_ROW + bk * A_COL]);
                if (NUM_BIAS > 1u) x += float(c[cBase + bs * C_ROW + bk * C_COL]);
                sc[kc * 8u + t] = key < L ? x : NEG_INF;
                blockMax = maxNaN(blockMax, sc[kc * 8u + t]);
            }
            CM_WARP_SYNC();  // Cs is read before the next chunk is staged
        }
        float mNew = maxNaN(m, withPartner(blockMax, true));
        // A row whose scores so far are all -inf (masked) adds nothing yet: no inf - inf.
        bool none = mNew == NEG_INF;
        float alpha = none ? 1.0 : exp(m - mNew);
        float sum = 0.0;
        CM_UNROLL for (uint i = 0u; i < KC * 8u; ++i) {
            float pr = none ? 0.0 : exp(sc[i] - mNew);
            As[P_AT + (warp * 16u + r) * PS + (i / 8u) * 16u + half8 + i % 8u] = float16_t(pr);
            sum += pr;
        }
        l = l * alpha + sum;
        m = mNew;
        CM_WARP_SYNC();  // the warp's probabilities are staged

        CM_UNROLL for (uint j = 0u; j < DVCH; ++j) {
            CM_ACC acc;
            CM_ZERO(acc);
            CM_UNROLL for (uint kc = 0u; kc < KC; ++kc) {
                CM_FRAG_A fp;
                CM_FRAG_B fv;
                CM_LOAD_A(fp, P_AT + warp * 16u * PS + kc * 16u, PS);
                CM_LOAD_B(fv, gb + V_AT + kc * 16u * VS + j * 16u, VS);
                CM_MULADD(acc, fp, fv);
            }
            CM_STAGE(acc, warp);
            CM_WARP_SYNC();
            CM_UNROLL for (uint t = 0u; t < 8u; ++t) o[j * 8u + t] = o[j * 8u + t] * alpha + Cs[cs + t];
            CM_WARP_SYNC();
        }
    }
    l = withPartner(l, false);  // the row's sum over this group's keys
    if (KSPLIT > 1u) {
        // The groups past the first hand over their row maxima, sums and outputs through their
        // warps' Cs, 16 columns a round (m and l in the row's padding columns 16 and 17); the
        // first rescales each to the largest maximum and adds them up.
        float f[KSPLIT_MAX];  // group g's factor exp(m_g - max m) (1 where every maximum is -inf)
        CM_UNROLL for (uint j = 0u; j < DVCH; ++j) {
            barrier();  // Cs is read (the last product's staging, or the round before)
            if (kg > 0u) {
                CM_UNROLL for (uint t = 0u; t < 8u; ++t) Cs[cs + t] = o[j * 8u + t];
                if (j == 0u) {
                    Cs[warp * CM_CS_WARP + r * CM_CS_STRIDE + 16u] = m;
                    Cs[warp * CM_CS_WARP + r * CM_CS_STRIDE + 17u] = l;
                }
            }
            barrier();
            if (kg == 0u) {
                if (j == 0u) {
                    float mAll = m;
                    CM_UNROLL for (uint g = 1u; g < KSPLIT; ++g)
                        mAll = maxNaN(mAll, Cs[(g * WARPS + qw) * CM_CS_WARP + r * CM_CS_STRIDE + 16u]);
                    f[0] = m == mAll ? 1.0 : exp(m - mAll);
                    float lAll = f[0] * l;
                    CM_UNROLL for (uint g = 1u; g < KSPLIT; ++g) {
                        uint at = (g * WARPS + qw) * CM_CS_WARP + r * CM_CS_STRIDE;
                        float mg = Cs[at + 16u];
                        f[g] = mg == mAll ? 1.0 : exp(mg - mAll);
                        lAll += f[g] * Cs[at + 17u];
                    }
                    l = lAll;
                }
                CM_UNROLL for (uint t = 0u; t < 8u; ++t) {
                    float x = f[0] * o[j * 8u + t];
                    CM_UNROLL for (uint g = 1u; g < KSPLIT; ++g)
                        x += f[g] * Cs[(g * WARPS + qw) * CM_CS_WARP + r * CM_CS_STRIDE + half8 + t];
                    o[j * 8u + t] = x;
                }
            }
        }
        if (kg > 0u) return;
    }
    float inv = 1.0 / l;
    if (s >= S) return;
    CM_UNROLL for (uint j = 0u; j < DVCH; ++j)
        CM_UNROLL for (uint t = 0u; t < 8u; ++t) {
            uint col = j * 16u + half8 + t;
            if (col < DV) y[yBase + s * Y_ROW + col * Y_COL] = float16_t(o[j * 8u + t] * inv);
        }
}
