#version 450
// A smooth color pattern from the pixel position: the "scene" the host renders before
// handing the image to vkinfer. `phase` makes different frames differ.
layout(push_constant) uniform Params {
    vec2 size;
    float phase;
} p;
layout(location = 0) out vec4 color;

void main() {
    const float tau = 6.2831853;
    vec2 uv = gl_FragCoord.xy / p.size;
    float t = tau * p.phase;
    color = vec4(0.5 + 0.5 * sin(tau * 1.5 * uv.x + t),
                 0.5 + 0.5 * cos(tau * (uv.y + 0.35 * uv.x) + 2.0 * t),
                 0.5 + 0.45 * sin(tau * 0.8 * (uv.x - uv.y) + 3.0 * t),
                 1.0);
}
