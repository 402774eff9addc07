#version 450
// Strided copy of ELEM elements (uint8_t, uint16_t, uint or uvec4: 1, 2, 4 or 16 bytes; 8-byte
// elements go as two words, rows contiguous in both tensors as 16-byte words where they can),
// or float32 <-> float16 converted on the way (convert_elem.glsl):
// walks the output index space `dims` (up to 6 dims) and reads the input through its own
// strides. Covers Concat (a slice of the output), Transpose, DepthToSpace/SpaceToDepth (6-d
// transpositions) and repeat-by-stride-0.
#include "common.glsl"
#include "types.glsl"
#include "copy_strided.glsl"  // push constants: shaders/kernels/copy_strided.toml
#include "convert_elem.glsl"

layout(std430, binding = 0) writeonly buffer Out { OUT_ELEM y[]; };
layout(std430, binding = 1) readonly buffer In { IN_ELEM x[]; };

// The dims as specialization constants (SPEC_RANK != 0): once specialized, the loop below has a
// constant trip count and every division a constant divisor.
uint specDim(int d) { return d == 0 ? DIM0 : d == 1 ? DIM1 : d == 2 ? DIM2 : d == 3 ? DIM3 : d == 4 ? DIM4 : DIM5; }

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.count) return;
    uint rem = idx, src = p.inOffset, dst = p.outOffset;
    const bool specialized = SPEC_RANK != 0u;
    for (int d = int(specialized ? SPEC_RANK : p.rank) - 1; d >= 0; --d) {
        uint n = specialized ? specDim(d) : p.dims[d];
        uint c = rem % n;
        rem /= n;
        src += c * p.inStride[d];
        dst += c * p.outStride[d];
    }
    y[dst] = CONVERT(x[src]);
}
