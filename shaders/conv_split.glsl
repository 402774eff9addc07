// Split-K of the tiled convolutions (conv2d.comp, conv2d_rt.comp, conv2d_cm.comp) in one
// dispatch (split_tickets.glsl): split s reduces k in [s * kChunk, (s + 1) * kChunk) and stores
// its float32 partial sums as part[s][oc][n] (NCHW) or part[s][n][oc] (p.outNhwc), n = (batch,
// pixel); the last split of a tile adds them in order, then the bias, the residual and the
// activation, as the unsplit epilogue does. Include after the output y (binding 0), the bias
// (3) and, with RESIDUAL, the residual res (5); the partial sums and the tickets follow them.
// (Never with a fused DepthToSpace: ops::selectConv does not split a shuffled conv.)
#ifdef SPLITK
#ifdef RESIDUAL
#define CONV_PARTIAL_BINDING 6
#else
#define CONV_PARTIAL_BINDING 5
#endif
layout(std430, binding = CONV_PARTIAL_BINDING) coherent buffer Partial { float part[]; };
#define TICKETS_BINDING (CONV_PARTIAL_BINDING + 1)
#include "split_tickets.glsl"

uint convPartIndex(uint split, uint oc, uint n, uint NP) {
    return p.outNhwc != 0u ? (split * NP + n) * p.M + oc : (split * p.M + oc) * NP + n;
}

// The tile of channels g * Mg + [m0, m0 + rows) and pixels [n0, n0 + cols), grid z = split *
// zPerSplit + gz: whether this workgroup finished it last (every invocation calls this, after
// its partial-sum stores), and if so its outputs, invocation tid of `threads` each taking
// every threads-th element.
void finishConvTile(uint gz, uint g, uint Mg, uint m0, uint rows, uint n0, uint cols, uint NP, uint tid,
                    uint threads) {
    const uint tile = gz * gl_NumWorkGroups.x * gl_NumWorkGroups.y + gl_WorkGroupID.x +
                      gl_WorkGroupID.y * gl_NumWorkGroups.x;
    const uint K = (p.C / p.groups) * p.KH * p.KW;
    const uint splits = (K + p.kChunk - 1u) / p.kChunk;
    if (!lastSplitToFinish(tile, splits, tid)) return;
    const uint HW = p.OH * p.OW;
    for (uint e = tid; e < rows * cols; e += threads) {
        // Consecutive invocations take consecutive outputs: pixels in NCHW, channels in NHWC.
        const uint mm = p.outNhwc != 0u ? e % rows : e / cols, nn = p.outNhwc != 0u ? e / rows : e % cols;
        const uint m = m0 + mm, n = n0 + nn;
        if (m >= Mg || n >= NP) continue;
        const uint oc = g * Mg + m;
        float v = 0.0;
        for (uint s = 0u; s < splits; ++s) v += part[convPartIndex(s, oc, n, NP)];
        v += float(bias[oc]);
        const uint idx = p.outNhwc != 0u ? n * p.M + oc : ((n / HW) * p.M + oc) * HW + n % HW;
#ifdef RESIDUAL
        v += float(res[idx]);
#endif
        y[idx] = T(activateAt(v, SLOPE_OF(float(bias[p.M + oc]))));
    }
}
#endif
