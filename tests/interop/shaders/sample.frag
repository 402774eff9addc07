#version 450
// The host reads vkinfer's output image in a fragment shader: one texel per pixel.
layout(set = 0, binding = 0) uniform sampler2D src;
layout(location = 0) out vec4 color;

void main() {
    color = texelFetch(src, ivec2(gl_FragCoord.xy), 0);
}
