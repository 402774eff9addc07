#version 450
// Fused attention (ops/attention.cpp): y = softmax(SCALE * q k^T + a + c) v per batch, the
// softmax along the keys. One workgroup takes BR query rows of one batch (LANES invocations per
// row) and walks the keys in blocks of BC staged in shared memory, keeping per row a running
// maximum m and sum l of exp(score - m) and rescaling its output accumulators when m grows
// (the online softmax of flash attention): the scores never reach memory. Arithmetic and
// accumulators in float32 for both element types.
#include "common.glsl"
#include "types.glsl"
#include "attention.glsl"  // push constants, specialization constants: shaders/kernels/attention.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer Q { T q[]; };
layout(std430, binding = 2) readonly buffer K { T k[]; };
layout(std430, binding = 3) readonly buffer V { T v[]; };
// The added score tensors (unused bindings alias q: NUM_BIAS says which are read).
layout(std430, binding = 4) readonly buffer A { T a[]; };
layout(std430, binding = 5) readonly buffer C { T c[]; };

const uint THREADS = BR * LANES;
const uint COLS = MAX_BC / LANES;   // scores per invocation and key block, at most
const uint OUTS = MAX_DIM / LANES;  // output columns per invocation, at most

shared float qs[BR * D];
shared float ks[BC * D];
shared float vs[BC * DV];
shared float ps[BR * BC];
shared float part[THREADS];

#define NEG_INF uintBitsToFloat(0xff800000u)

// The LANES partial values of this invocation's row combined (max or sum); every invocation
// of the workgroup calls it (barriers).
float rowReduce(float x, uint row, bool isMax) {
    part[gl_LocalInvocationID.x] = x;
    barrier();
    float r = part[row * LANES];
    for (uint j = 1; j < LANES; ++j) {
        float e = part[row * LANES + j];
        r = isMax ? max(r, e) : r + e;
    }
    barrier();
    return r;
}

void main() {
    if (gl_WorkGroupID.x >= p.rowBlocks) return;  // (the grid is exact: a guard, uniform per workgroup)
    uint tid = gl_LocalInvocationID.x;
    uint row = tid / LANES, lane = tid % LANES;
    uint batch = gl_WorkGroupID.y;
    uint i2 = batch % NB2, i1 = (batch / NB2) % NB1, i0 = batch / (NB2 * NB1);
    uint qBase = Q_OFF + i0 * Q_B0 + i1 * Q_B1 + i2 * Q_B2;
    uint kBase = K_OFF + i0 * K_B0 + i1 * K_B1 + i2 * K_B2;
    uint vBase = V_OFF + i0 * V_B0 + i1 * V_B1 + i2 * V_B2;
    uint yBase = Y_OFF + i0 * Y_B0 + i1 * Y_B1 + i2 * Y_B2;
    uint aBase = A_OFF + i0 * A_B0 + i1 * A_B1 + i2 * A_B2;
    uint cBase = C_OFF + i0 * C_B0 + i1 * C_B1 + i2 * C_B2;
    uint row0 = gl_WorkGroupID.x * BR;
    uint s = row0 + row;  // this invocation's query row (past S: computed, never stored)

    for (uint e = tid; e < BR * D; e += THREADS) {
        uint r = row0 + e / D;
        qs[e] = r < S ? float(q[qBase + r * Q_ROW + (e % D) * Q_COL]) : 0.0;
    }
    float o[OUTS];
    for (uint j = 0; j < OUTS; ++j) o[j] = 0.0;
    float m = NEG_INF, l = 0.0;

    for (uint key0 = 0; key0 < L; key0 += BC) {
        barrier();  // the previous block's ks, vs and ps are read
        for (uint e = tid; e < BC * D; e += THREADS) {
            uint key = key0 + e / D;
            ks[e] = key < L ? float(k[kBase + key * K_ROW + (e % D) * K_COL]) : 0.0;
        }
        for (uint e = tid; e < BC * DV; e += THREADS) {
            uint key = key0 + e / DV;
            vs[e] = key < L ? float(v[vBase + key * V_ROW + (e % DV) * V_COL]) : 0.0;
        }
        barrier();
        float sc[COLS];
        float blockMax = NEG_INF;
        for (uint i = 0; i < BC / LANES; ++i) {
            uint col = lane + i * LANES, key = key0 + col;
            float acc = 0.0;
            for (uint d = 0; d < D; ++d) acc += qs[row * D + d] * ks[col * D + d];
            acc *= SCALE;
            bool inside = s < S && key < L;
            if (NUM_BIAS > 0u && inside) acc += float(a[aBase + s * A_ROW + key * A_COL]);
            if (NUM_BIAS > 1u && inside) acc += float(c[cBase + s * C_ROW + key * C_COL]);
            sc[i] = key < L ? acc : NEG_INF;
            blockMax = maxNaN(blockMax, sc[i]);
        }
        blockMax = rowReduce(blockMax, row, true);
        float mNew = maxNaN(m, blockMax);
        // A row whose scores so far are all -inf (masked) adds nothing yet: no inf - inf.
        bool none = mNew == NEG_INF;
        float alpha = none ? 1.0 : exp(m - mNew);
        float sum = 0.0;
        for (uint i = 0; i < BC / LANES; ++i) {
            float p = none ? 0.0 : exp(sc[i] - mNew);
            ps[row * BC + lane + i * LANES] = p;
            sum += p;
        }
        sum = rowReduce(sum, row, false);  // (its barrier also publishes ps)
        l = l * alpha + sum;
        m = mNew;
        for (uint j = 0; j < (DV + LANES - 1) / LANES; ++j) {
            uint col = lane + j * LANES;
            if (col >= DV) break;
            float acc = o[j] * alpha;
            for (uint key = 0; key < BC; ++key) acc += ps[row * BC + key] * vs[key * DV + col];
            o[j] = acc;
        }
    }
    if (s >= S) return;
    float inv = 1.0 / l;
    for (uint j = 0; j < (DV + LANES - 1) / LANES; ++j) {
        uint col = lane + j * LANES;
        if (col >= DV) break;
        y[yBase + s * Y_ROW + col * Y_COL] = T(o[j] * inv);
    }
}
