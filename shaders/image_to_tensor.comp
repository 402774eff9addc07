#version 450
// Pre-processing: a host image -> the model's input tensor [1, C, H, W] (C <= 4):
// tensor[c] = (pixel[c] - mean[c]) * scale[c]. Variants: SAMPLED (combined image sampler,
// any format: sRGB ones re-encoded when SRGB_ENCODE, single-channel ones as (r, 0, 0, 1)), or a
// storage image of FORMAT rgba8 / rgba16f.
#include "common.glsl"
#include "image_to_tensor.glsl"  // push constants: shaders/kernels/image_to_tensor.toml

layout(std430, binding = 0) writeonly buffer Out { float t[]; };
#ifdef SAMPLED
layout(binding = 1) uniform sampler2D src;
#else
layout(binding = 1, FORMAT) readonly uniform image2D src;
#endif

void main() {
    uvec2 xy = gl_GlobalInvocationID.xy;
    if (xy.x >= p.W || xy.y >= p.H) return;
#ifdef SAMPLED
    vec4 px = texelFetch(src, ivec2(xy), 0);
#else
    vec4 px = imageLoad(src, ivec2(xy));
#endif
    if (SRGB_ENCODE != 0u) {
        // IEC 61966-2-1, the inverse of the sampler's decode: the image's stored values again.
        vec3 c = clamp(px.rgb, 0.0, 1.0);
        px.rgb = mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
    }
    vec4 v = (px - p.mean) * p.scale;
    uint plane = p.W * p.H, at = xy.y * p.W + xy.x;
    for (uint c = 0; c < p.C; ++c) t[c * plane + at] = v[c];
}
