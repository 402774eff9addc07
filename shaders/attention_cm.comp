#version 450
// Fused attention on cooperative matrices (float16 operands, float32 sums): the same problem,
// layout and specialization constants as attention.comp (y = softmax(SCALE * q k^T + a + c) v
// per batch, every tensor read through strides), with both products on the tensor cores.
// A workgroup of WARPS warps takes 16 query rows per warp; it walks the keys in blocks of KB,
// staging q (once), k^T and v (per block) in shared memory as float16, zero-padded to the
// head dimensions rounded up to 16 (DP for q and k, DVP = 16 DVCH for v).
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
layout(std430, binding = 3) readonly buffer V { float16_t v[]; };
// The added score tensors (unused bindings alias q: NUM_BIAS says which are read).
layout(std430, binding = 4) readonly buffer A { float16_t a[]; };
layout(std430, binding = 5) readonly buffer C { float16_t c[]; };

const uint KB = KEY_BLOCK;
const uint KC = KB / 16u;             // 16-key chunks of a block
const uint DVP = 16u * DVCH;
const uint NT = 32u * WARPS;
const uint BR = 16u * WARPS;
// Row strides in shared memory, in halves: 8 more than the row (16-byte aligned fragments,
// rows starting on other banks).
const uint QS = DP + 8u;
const uint KS = KB + 8u;
const uint VS = DVP + 8u;
const uint PS = KB + 8u;
// As: the q rows, then each warp's 16 rows of probabilities; Bs: k^T (DP rows of KB keys),
// then v (KB rows of DVP).
const uint P_AT = BR * QS;
const uint V_AT = DP * KS;

shared float16_t As[BR * QS + WARPS * 16u * PS];
shared float16_t Bs[DP * KS + KB * VS];
shared float Cs[WARPS * CM_CS_WARP];
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

void main() {
    uint tid = gl_LocalInvocationID.x, warp = tid / 32u, lane = tid % 32u;
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
    uint s = row0 + warp * 16u + r;  // this lane's query row (past S: computed, never stored)
    uint cs = warp * CM_CS_WARP + r * CM_CS_STRIDE + half8;  // its 8 staged values

    for (uint e = tid; e < BR * DP; e += NT) {
        uint row = row0 + e / DP, d = e % DP;
        As[(e / DP) * QS + d] = row < S && d < D ? q[qBase + row * Q_ROW + d * Q_COL] : float16_t(0.0);
    }
    float o[DVCH * 8u];
    CM_UNROLL for (uint j = 0u; j < DVCH * 8u; ++j) o[j] = 0.0;
    float m = NEG_INF, l = 0.0;  // l: this lane's share of the row's sum

    for (uint key0 = 0u; key0 < L; key0 += KB) {
        barrier();  // the previous block's k and v are read
        for (uint e = tid; e < KB * DP; e += NT) {
            uint key = e / DP, d = e % DP;
            Bs[d * KS + key] = key0 + key < L && d < D ? k[kBase + (key0 + key) * K_ROW + d * K_COL] : float16_t(0.0);
        }
        for (uint e = tid; e < KB * DVP; e += NT) {
            uint key = e / DVP, col = e % DVP;
            Bs[V_AT + key * VS + col] =
                key0 + key < L && col < DV ? v[vBase + (key0 + key) * V_ROW + col * V_COL] : float16_t(0.0);
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
                CM_LOAD_A(fq, warp * 16u * QS + dc * 16u, QS);
                CM_LOAD_B(fk, dc * 16u * KS + kc * 16u, KS);
                CM_MULADD(acc, fq, fk);
            }
            CM_STAGE(acc, warp);
            CM_WARP_SYNC();
            CM_UNROLL for (uint t = 0u; t < 8u; ++t) {
                uint key = key0 + kc * 16u + half8 + t;
                float x = Cs[cs + t] * SCALE;
                bool inside = s < S && key < L;
                if (NUM_BIAS > 0u && inside) x += float(a[aBase + s * A_ROW + key * A_COL]);
                if (NUM_BIAS > 1u && inside) x += float(c[cBase + s * C_ROW + key * C_COL]);
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
                CM_LOAD_B(fv, V_AT + kc * 16u * VS + j * 16u, VS);
                CM_MULADD(acc, fp, fv);
            }
            CM_STAGE(acc, warp);
            CM_WARP_SYNC();
            CM_UNROLL for (uint t = 0u; t < 8u; ++t) o[j * 8u + t] = o[j * 8u + t] * alpha + Cs[cs + t];
            CM_WARP_SYNC();
        }
    }
    float inv = 1.0 / withPartner(l, false);
    if (s >= S) return;
    CM_UNROLL for (uint j = 0u; j < DVCH; ++j)
        CM_UNROLL for (uint t = 0u; t < 8u; ++t) {
            uint col = j * 16u + half8 + t;
            if (col < DV) y[yBase + s * Y_ROW + col * Y_COL] = float16_t(o[j * 8u + t] * inv);
        }
}
