#version 450
// TopK by rank: one invocation per input element counts the elements of its line that come
// before it in the order (larger first for LARGEST, else smaller; NaN above every number; ties
// by lower index), and an element of rank below k stores its value and index at that rank.
// The order is total, so every rank is taken once: the output is sorted, ties keep the lower
// index first (as ONNX requires), and the result does not depend on scheduling. Each line is
// read extent times: meant for the short lines exporters write TopK over.
#include "common.glsl"
#include "types.glsl"
#include "topk.glsl"  // push constants, specialization constants: shaders/kernels/topk.toml

layout(std430, binding = 0) writeonly buffer Values { T y[]; };
layout(std430, binding = 1) writeonly buffer Indices { uvec2 ind[]; };
layout(std430, binding = 2) readonly buffer In { T x[]; };

// w is above v in the order (before it when LARGEST).
bool above(T w, T v) {
#if T_IS_FLOAT
    bool wn = isNaN(float(w)), vn = isNaN(float(v));
    return wn ? !vn : (!vn && w > v);
#else
    return w > v;
#endif
}

bool equalKeys(T w, T v) {
#if T_IS_FLOAT
    bool wn = isNaN(float(w)), vn = isNaN(float(v));
    return wn || vn ? wn && vn : w == v;
#else
    return w == v;
#endif
}

void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (i >= p.count) return;
    uint inner = i % p.inner, t = i / p.inner;
    uint a = t % p.extent, outer = t / p.extent;
    uint base = outer * p.extent * p.inner + inner;
    T v = x[i];
    uint rank = 0;
    for (uint b = 0; b < p.extent && rank < p.k; ++b) {
        T w = x[base + b * p.inner];
        bool before = LARGEST != 0u ? above(w, v) : above(v, w);
        if (before || (b < a && equalKeys(w, v))) ++rank;
    }
    if (rank >= p.k) return;
    uint o = (outer * p.k + rank) * p.inner + inner;
    y[o] = v;
    ind[o] = uvec2(a, 0u);
}
