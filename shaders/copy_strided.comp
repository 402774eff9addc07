#version 450
// Strided copy of ELEM elements (uint8_t, uint16_t or uint: 1, 2 or 4 bytes; 8-byte
// elements go as two words), or float32 <-> float16 converted on the way (convert_elem.glsl):
// walks the output index space `dims` (up to 6 dims) and reads the input through its own
// strides. Covers Concat (a slice of the output), Transpose, DepthToSpace/SpaceToDepth (6-d
// transpositions) and repeat-by-stride-0.
#include "common.glsl"
#include "types.glsl"
#include "copy_strided.glsl"  // push constants: shaders/kernels/copy_strided.toml
#include "convert_elem.glsl"

layout(std430, binding = 0) writeonly buffer Out { OUT_ELEM y[]; };
layout(std430, binding = 1) readonly buffer In { IN_ELEM x[]; };

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.count) return;
    uint rem = idx, src = p.inOffset, dst = p.outOffset;
    for (int d = int(p.rank) - 1; d >= 0; --d) {
        uint c = rem % p.dims[d];
        rem /= p.dims[d];
        src += c * p.inStride[d];
        dst += c * p.outStride[d];
    }
    y[dst] = CONVERT(x[src]);
}
