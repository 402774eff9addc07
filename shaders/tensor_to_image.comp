#version 450
// Post-processing: the model's output tensor [1, C, H, W] (C <= 4) -> a storage image:
// pixel[c] = tensor[c] * scale[c] + bias[c] for the channels the output has, clamped to
// [0, 1] when CLAMP_UNORM; missing channels are 0 and alpha 1; one channel is replicated to
// RGB. FORMAT is rgba8 or
// rgba16f, or absent (shaderStorageImageWriteWithoutFormat: any storage format, BGRA8 too).
#include "common.glsl"
#include "tensor_to_image.glsl"  // push constants, specialization constants: shaders/kernels/tensor_to_image.toml

#ifdef FORMAT
layout(binding = 0, FORMAT) writeonly uniform image2D dst;
#else
layout(binding = 0) writeonly uniform image2D dst;
#endif
layout(std430, binding = 1) readonly buffer In { float t[]; };

void main() {
    uvec2 xy = gl_GlobalInvocationID.xy;
    if (xy.x >= p.W || xy.y >= p.H) return;
    uint plane = p.W * p.H, at = xy.y * p.W + xy.x;
    // Channels the model produced are scaled and biased; the others are 0 (alpha 1), and a
    // single channel is replicated to RGB.
    vec4 scaled = vec4(0.0, 0.0, 0.0, 1.0);
    if (p.C == 1u) {
        scaled.rgb = vec3(t[at]) * p.scale.rgb + p.bias.rgb;
    } else {
        for (uint c = 0; c < min(p.C, 4u); ++c) scaled[c] = t[c * plane + at] * p.scale[c] + p.bias[c];
    }
    if (CLAMP_UNORM != 0u) scaled = clamp(scaled, 0.0, 1.0);
    imageStore(dst, ivec2(xy), scaled);
}
