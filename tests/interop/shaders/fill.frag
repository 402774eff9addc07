#version 450
// The host writes a buffer from a fragment shader: value at element y * width + x.
layout(std430, set = 0, binding = 0) writeonly buffer Data { float v[]; } data;
layout(push_constant) uniform Params {
    float width;
    float value;
} p;
layout(location = 0) out vec4 color;

void main() {
    uint i = uint(gl_FragCoord.y) * uint(p.width) + uint(gl_FragCoord.x);
    data.v[i] = p.value;
    color = vec4(p.value);
}
