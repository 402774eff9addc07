// The output side of both GEMM kernels (gemm.comp, gemm_cm.comp): the buffers after A and B
// and how a product element is finished and stored. Include after the push block (the
// family's gemm.glsl or gemm_cm.glsl) with T defined (types.glsl).
//
// Bindings: 0 the output y (T), 1 A and 2 B (declared by the kernel), then C (HAS_C), the
// residual (HAS_R), and with SPLITK the float32 partial sums and the tile tickets.
//
// SPLITK: grid z = split * batches + batch, split s reduces k in [s * kChunk, (s + 1) * kChunk)
// and stores its tile's partial sums part[s][batch][m][n], the last split of a tile adds them
// (split_tickets.glsl).

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
#ifdef HAS_C
layout(std430, binding = 3) readonly buffer MatC { T c[]; };
#define GEMM_AFTER_C 4
#else
#define GEMM_AFTER_C 3
#endif
#ifdef HAS_R
// The residual added before the activation (passes::fuseResidualAdd), the output's shape.
layout(std430, binding = GEMM_AFTER_C) readonly buffer Residual { T resid[]; };
#define GEMM_AFTER_R (GEMM_AFTER_C + 1)
#else
#define GEMM_AFTER_R GEMM_AFTER_C
#endif

// Element (batch bt, row m, column n) of the product, summed in float: alpha, beta C, the
// residual and the activation, stored where the output's strides put it.
void storeProduct(uint bt, uint m, uint n, float acc) {
    float v = p.alpha * acc;
#ifdef HAS_C
    v += p.beta * float(c[m * p.cM + n * p.cN]);
#endif
    const uint o = (bt / p.inner) * p.yOuter + (bt % p.inner) * p.yInner + m * p.yM + n * p.yN;
#ifdef HAS_R
    v += float(resid[o]);
#endif
    y[o] = T(activate(v));
}

#ifdef SPLITK
layout(std430, binding = GEMM_AFTER_R) coherent buffer Partial { float part[]; };
#define TICKETS_BINDING (GEMM_AFTER_R + 1)
#include "split_tickets.glsl"

uint partIndex(uint split, uint bt, uint m, uint n) { return ((split * p.batches + bt) * p.M + m) * p.N + n; }

// After every invocation stored its partial sums: whether this workgroup is its tile's last
// split to finish (uniform over the workgroup).
bool lastSplitOfTile(uint bt, uint tid) {
    const uint tile = (bt * gl_NumWorkGroups.y + gl_WorkGroupID.y) * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    return lastSplitToFinish(tile, (p.K + p.kChunk - 1u) / p.kChunk, tid);
}

// The last split's work: the tile [m0, m0 + rows) x [n0, n0 + cols), invocation tid of
// `threads`, each element's splits added in order.
void reduceTile(uint bt, uint m0, uint n0, uint rows, uint cols, uint tid, uint threads) {
    const uint splits = (p.K + p.kChunk - 1u) / p.kChunk;
    for (uint e = tid; e < rows * cols; e += threads) {
        const uint m = m0 + e / cols, n = n0 + e % cols;
        if (m >= p.M || n >= p.N) continue;
        float acc = 0.0;
        for (uint s = 0u; s < splits; ++s) acc += part[partIndex(s, bt, m, n)];
        storeProduct(bt, m, n, acc);
    }
}
#endif
