#version 450
// Post-processing: the model's output tensor [1, C, H, W] (C <= 4) -> a storage image:
// pixel[c] = tensor[c] * scale[c] + bias[c], clamped to [0, 1] when CLAMP_UNORM; missing
// channels are 0 and alpha 1; one channel is replicated to RGB. FORMAT is rgba8 or
// rgba16f, or absent (shaderStorageImageWriteWithoutFormat: any storage format, BGRA8 too).
#include "common.glsl"

layout(constant_id = 6) const uint CLAMP_UNORM = 1;

#ifdef FORMAT
layout(binding = 0, FORMAT) writeonly uniform image2D dst;
#else
layout(binding = 0) writeonly uniform image2D dst;
#endif
layout(std430, binding = 1) readonly buffer In { float t[]; };

layout(push_constant) uniform Params {
    uint W, H, C;
    vec4 scale;
    vec4 bias;
} p;

void main() {
    uvec2 xy = gl_GlobalInvocationID.xy;
    if (xy.x >= p.W || xy.y >= p.H) return;
    uint plane = p.W * p.H, at = xy.y * p.W + xy.x;
    vec4 v = vec4(0.0, 0.0, 0.0, 1.0);
    if (p.C == 1u) {
        v.rgb = vec3(t[at]);
    } else {
        for (uint c = 0; c < min(p.C, 4u); ++c) v[c] = t[c * plane + at];
    }
    vec4 scaled = v * p.scale + p.bias;
    if (p.C < 4u) scaled.a = 1.0;  // alpha is opaque unless the model produced it
    if (CLAMP_UNORM != 0u) scaled = clamp(scaled, 0.0, 1.0);
    imageStore(dst, ivec2(xy), scaled);
}
