#version 450
// Plain copy of 32-bit words (graph outputs that alias an input or a constant).
#include "common.glsl"
#include "copy_words.glsl"  // push constants: shaders/kernels/copy_words.toml

layout(std430, binding = 0) writeonly buffer Out { uint y[]; };
layout(std430, binding = 1) readonly buffer In { uint x[]; };

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx < p.count) y[idx] = x[idx];
}
