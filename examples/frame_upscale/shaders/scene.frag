#version 450
// The demo's "game": an animated procedural scene with edges and texture, so that the
// difference between upscalers shows: a rotating checkerboard disk, rings moving outward,
// a block of text-like glyphs scrolling, soft blobs and a thin wave over a moving gradient.
// `time` is the frame index; `cost` rounds of extra shading work per pixel (--scene-cost)
// make the pass heavier without changing the picture.
layout(push_constant) uniform Params {
    vec2 size;
    float time;
    uint cost;
} p;
layout(location = 0) out vec4 color;

// Coverage of the region where v > 0, antialiased over about one pixel.
float cover(float v) {
    return clamp(0.5 + v / max(fwidth(v), 1e-6), 0.0, 1.0);
}

mat2 rotation(float a) {
    float c = cos(a), s = sin(a);
    return mat2(c, s, -s, c);
}

float hash(vec2 v) {
    return fract(sin(dot(v, vec2(127.1, 311.7))) * 43758.5453);
}

void main() {
    float aspect = p.size.x / p.size.y;
    vec2 uv = (gl_FragCoord.xy - 0.5 * p.size) / p.size.y;  // height 1, centered, y down
    float t = p.time;

    // Moving gradient.
    vec3 col = mix(vec3(0.08, 0.16, 0.34), vec3(0.86, 0.47, 0.22),
                   0.5 + 0.5 * sin(2.2 * uv.x + 1.4 * uv.y + 0.35 * t));

    // Soft blobs drifting across.
    for (int i = 0; i < 3; ++i) {
        vec2 c = vec2(sin(0.21 * t + 2.1 * float(i)) * 0.45 * aspect, cos(0.17 * t + 1.3 * float(i)) * 0.3);
        float d = length(uv - c);
        col = mix(col, vec3(0.3 + 0.3 * float(i), 0.85, 0.5 - 0.15 * float(i)), 0.55 * exp(-d * d / 0.012));
    }

    // Rotating checkerboard disk (left).
    vec2 c1 = vec2(-0.5 * aspect + 0.34, 0.02);
    vec2 q = rotation(0.12 * t) * (uv - c1);
    float checker = cover(sin(q.x * 34.0) * sin(q.y * 34.0));
    float disk = cover(0.27 - length(uv - c1));
    col = mix(col, mix(vec3(0.05), vec3(0.95, 0.95, 0.9), checker), disk);

    // Rings moving outward (center), red and cyan.
    vec2 c2 = vec2(0.0, -0.04);
    float r = length(uv - c2);
    float rings = cover(sin(r * 70.0 - 0.8 * t));
    float ringDisk = cover(0.25 - r) * cover(r - 0.03);
    col = mix(col, mix(vec3(0.9, 0.15, 0.2), vec3(0.1, 0.85, 0.9), rings), ringDisk);

    // Text-like block (right): lines of pseudo-glyphs of 3x5 strokes, scrolling.
    vec2 box0 = vec2(0.5 * aspect - 0.62, -0.36), box1 = vec2(0.5 * aspect - 0.06, 0.36);
    if (all(greaterThan(uv, box0)) && all(lessThan(uv, box1))) {
        const float rowH = 0.048, cellW = 0.026;
        vec2 b = uv - box0;
        float row = floor(b.y / rowH);
        float x = b.x + 0.01 * t * (mod(row, 2.0) == 0.0 ? 1.0 : -1.0);
        float cell = floor(x / cellW);
        vec2 inCell = vec2(fract(x / cellW), fract(b.y / rowH));
        bool letter = hash(vec2(cell, row)) > 0.22 && mod(cell, 7.0 + mod(row, 3.0)) != 0.0;
        vec2 g = (inCell - vec2(0.15, 0.2)) / vec2(0.6, 0.6);  // glyph box inside the cell
        if (letter && all(greaterThanEqual(g, vec2(0.0))) && all(lessThan(g, vec2(1.0)))) {
            vec2 stroke = floor(g * vec2(3.0, 5.0));
            if (hash(vec2(cell * 17.0 + stroke.x, row * 31.0 + stroke.y)) > 0.45) col = vec3(0.98, 0.96, 0.85);
        } else {
            col = mix(col, vec3(0.02, 0.03, 0.06), 0.7);
        }
    }

    // A thin wave along the bottom.
    float wave = uv.y - (0.41 + 0.03 * sin(9.0 * uv.x + 0.5 * t));
    col = mix(col, vec3(1.0, 0.9, 0.2), cover(0.004 - abs(wave)));

    // Extra work: a chain of dependent transcendentals the compiler cannot fold, whose sum
    // (at most cost x 1) is scaled far below one step of an 8-bit channel.
    float work = 0.0;
    for (uint i = 0u; i < p.cost; ++i) work = sin(work * 1.7 + uv.x * float(i + 1u)) + cos(work + uv.y);
    col += vec3(work * 1e-7);

    color = vec4(clamp(col, 0.0, 1.0), 1.0);
}
