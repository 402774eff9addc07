#version 450
// Shared pattern: the rendered frame (RGBA8, sampled) to the model's input layout, a float
// tensor [1, 3, H, W] of RGB in [0, 1], written into memory the upscaler's context imported.
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0) uniform sampler2D scene;
layout(std430, set = 0, binding = 1) writeonly buffer Tensor { float v[]; } tensor;
layout(push_constant) uniform Params {
    uvec2 size;
} p;

void main() {
    uvec2 xy = gl_GlobalInvocationID.xy;
    if (any(greaterThanEqual(xy, p.size))) return;
    vec4 c = texelFetch(scene, ivec2(xy), 0);
    uint plane = p.size.x * p.size.y, i = xy.y * p.size.x + xy.x;
    tensor.v[i] = c.r;
    tensor.v[plane + i] = c.g;
    tensor.v[2u * plane + i] = c.b;
}
