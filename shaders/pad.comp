#version 450
// Pad: y[o] = x[source(o)] per dimension with o - begin outside [0, inDim) resolved by the
// mode: 0 constant (write the value), 1 edge (clamp), 2 reflect (mirror without repeating
// the edge), 3 wrap. Negative begin/end pads crop. ELEM (or a float32 <-> float16
// conversion) as in copy_strided.comp; 8-byte elements travel as `words` = 2 words (the
// constant, as the output element's bits, in valueLo/valueHi).
#include "common.glsl"
#include "types.glsl"
#include "pad.glsl"  // push constants, specialization constants: shaders/kernels/pad.toml
#include "convert_elem.glsl"

layout(std430, binding = 0) writeonly buffer Out { OUT_ELEM y[]; };
layout(std430, binding = 1) readonly buffer In { IN_ELEM x[]; };

void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (i >= p.count * p.words) return;
    uint e = i / p.words, w = i % p.words;
    uint rem = e, src = 0;
    bool outside = false;
    for (int d = int(p.rank) - 1; d >= 0; --d) {
        int c = int(rem % p.outDims[d]) - p.begin[d];
        rem /= p.outDims[d];
        int n = int(p.inDims[d]);
        if (c < 0 || c >= n) {
            if (MODE == 0u) {
                outside = true;
            } else if (MODE == 1u) {
                c = clamp(c, 0, n - 1);
            } else if (MODE == 2u) {
                // Period 2n - 2; a single element reflects onto itself.
                int period = max(2 * n - 2, 1);
                c = abs(c) % period;
                if (c >= n) c = period - c;
            } else {
                // (GLSL leaves % of a negative operand undefined: NVIDIA's differs from lavapipe's.)
                c = c >= 0 ? c % n : n - 1 - (-c - 1) % n;
            }
        }
        src += uint(c) * p.inStride[d];
    }
    if (outside) y[i] = OUT_ELEM(w == 0u ? p.valueLo : p.valueHi);
    else y[i] = CONVERT(x[src * p.words + w]);
}
