#version 450
// The composite: the model's 2x upscale (left), a gap, a bicubic (Catmull-Rom) 2x upscale
// of the same frame computed here (right), and up to three captions drawn with a built-in
// 5x7 bitmap font in opaque boxes. Compiled twice: reading the model's output from an image
// (interleaved: vkinfer's ImageOutput), or from a float tensor [1, 3, 2H, 2W] in a storage
// buffer (shared: the memory vkinfer wrote; separate: the uploaded CPU tensor), with
// -DMODEL_FROM_BUFFER.
layout(set = 0, binding = 0) uniform sampler2D scene;
#ifdef MODEL_FROM_BUFFER
layout(std430, set = 0, binding = 1) readonly buffer Model { float v[]; } model;
#else
layout(set = 0, binding = 1) uniform sampler2D modelImage;
#endif
layout(push_constant) uniform Params {
    uvec4 geometry;  // scene width, scene height, gap between the panels, caption scale (pixels per font dot)
    ivec4 origin01;  // top-left corners of the boxes of captions 0 and 1
    ivec4 origin2;   // ... and of caption 2 (zw unused)
    uvec4 text[4];   // three captions of up to 21 ASCII characters (0 ends one early), 4 per uint
} p;
layout(location = 0) out vec4 color;

const int kCaptionChars = 21;

// ASCII 32..95; bit (row * 5 + column) of the 35 is set where the glyph has ink.
const uvec2 kFont[64] = uvec2[64](
    uvec2(0x00000000u, 0x0u), uvec2(0x00421084u, 0x1u), uvec2(0x00000000u, 0x0u), uvec2(0x95f57d4au, 0x2u),
    uvec2(0x00000000u, 0x0u), uvec2(0x32222263u, 0x6u), uvec2(0x00000000u, 0x0u), uvec2(0x00000084u, 0x0u),
    uvec2(0x08210888u, 0x2u), uvec2(0x88842082u, 0x0u), uvec2(0x09575480u, 0x0u), uvec2(0x084f9080u, 0x0u),
    uvec2(0x88c00000u, 0x0u), uvec2(0x000f8000u, 0x0u), uvec2(0x8c000000u, 0x1u), uvec2(0x02222200u, 0x0u),
    uvec2(0xa33ae62eu, 0x3u), uvec2(0x884210c4u, 0x3u), uvec2(0xc444422eu, 0x7u), uvec2(0xa304111fu, 0x3u),
    uvec2(0x11f4a988u, 0x2u), uvec2(0xa3083c3fu, 0x3u), uvec2(0xa317844cu, 0x3u), uvec2(0x8422221fu, 0x0u),
    uvec2(0xa317462eu, 0x3u), uvec2(0x910f462eu, 0x1u), uvec2(0x0c6018c0u, 0x0u), uvec2(0x886018c0u, 0x0u),
    uvec2(0x08208888u, 0x2u), uvec2(0x01f07c00u, 0x0u), uvec2(0x88882082u, 0x0u), uvec2(0x0044422eu, 0x1u),
    uvec2(0x00000000u, 0x0u), uvec2(0x631fc62eu, 0x4u), uvec2(0xe317c62fu, 0x3u), uvec2(0xa210862eu, 0x3u),
    uvec2(0xd318c527u, 0x1u), uvec2(0xc217843fu, 0x7u), uvec2(0x4217843fu, 0x0u), uvec2(0xa31e862eu, 0x7u),
    uvec2(0x631fc631u, 0x4u), uvec2(0x8842108eu, 0x3u), uvec2(0x9284211cu, 0x1u), uvec2(0x52519531u, 0x4u),
    uvec2(0xc2108421u, 0x7u), uvec2(0x631ad771u, 0x4u), uvec2(0x639ace31u, 0x4u), uvec2(0xa318c62eu, 0x3u),
    uvec2(0x4217c62fu, 0x0u), uvec2(0x9358c62eu, 0x5u), uvec2(0x5257c62fu, 0x4u), uvec2(0xe107043eu, 0x3u),
    uvec2(0x0842109fu, 0x1u), uvec2(0xa318c631u, 0x3u), uvec2(0x1518c631u, 0x1u), uvec2(0xab5ac631u, 0x2u),
    uvec2(0x62a22a31u, 0x4u), uvec2(0x08422a31u, 0x1u), uvec2(0xc222221fu, 0x7u), uvec2(0x8421084eu, 0x3u),
    uvec2(0x00000000u, 0x0u), uvec2(0x9084210eu, 0x3u), uvec2(0x00000000u, 0x0u), uvec2(0xc0000000u, 0x7u)
);

uint captionChar(int caption, int k) {
    int i = caption * kCaptionChars + k;
    uint word = p.text[i / 16][(i / 4) % 4];
    return (word >> (8 * (i % 4))) & 0xffu;
}

int captionLength(int caption) {
    for (int k = 0; k < kCaptionChars; ++k)
        if (captionChar(caption, k) == 0u) return k;
    return kCaptionChars;
}

// -1: outside the caption's box; 0: box background; 1: ink.
int captionAt(int caption, ivec2 origin, ivec2 pixel, int scale) {
    int n = captionLength(caption);
    ivec2 local = pixel - origin;
    if (n == 0 || any(lessThan(local, ivec2(0))) || local.x >= (6 * n + 1) * scale || local.y >= 9 * scale) return -1;
    ivec2 dot = local / scale - ivec2(1);  // font dots, 1 dot of margin
    int cell = dot.x / 6, column = dot.x - 6 * cell, row = dot.y;
    if (dot.x < 0 || column >= 5 || row < 0 || row >= 7) return 0;
    uint c = captionChar(caption, cell);
    if (c >= 97u && c <= 122u) c -= 32u;  // lower case drawn as upper case
    if (c < 32u || c > 95u) return 0;
    uvec2 g = kFont[c - 32u];
    int bit = row * 5 + column;
    uint on = bit < 32 ? (g.x >> uint(bit)) & 1u : (g.y >> uint(bit - 32)) & 1u;
    return int(on);
}

vec3 modelPixel(ivec2 q, ivec2 panel) {
#ifdef MODEL_FROM_BUFFER
    int plane = panel.x * panel.y, i = q.y * panel.x + q.x;
    return clamp(vec3(model.v[i], model.v[plane + i], model.v[2 * plane + i]), 0.0, 1.0);
#else
    return texelFetch(modelImage, q, 0).rgb;
#endif
}

// Catmull-Rom weights for taps at -1, 0, 1, 2 around the sample position's fraction f.
vec4 catmullRom(float f) {
    return vec4(((-0.5 * f + 1.0) * f - 0.5) * f, (1.5 * f - 2.5) * f * f + 1.0, ((-1.5 * f + 2.0) * f + 0.5) * f,
                (0.5 * f - 0.5) * f * f);
}

vec3 bicubicPixel(ivec2 q, ivec2 size) {
    vec2 src = (vec2(q) + 0.5) * 0.5 - 0.5;  // pixel centers of the 2x grid in scene pixels
    vec2 base = floor(src);
    vec4 wx = catmullRom(src.x - base.x), wy = catmullRom(src.y - base.y);
    vec3 sum = vec3(0.0);
    for (int j = 0; j < 4; ++j) {
        vec3 rowSum = vec3(0.0);
        for (int i = 0; i < 4; ++i) {
            ivec2 t = clamp(ivec2(base) + ivec2(i - 1, j - 1), ivec2(0), size - 1);
            rowSum += wx[i] * texelFetch(scene, t, 0).rgb;
        }
        sum += wy[j] * rowSum;
    }
    return clamp(sum, 0.0, 1.0);
}

void main() {
    ivec2 pixel = ivec2(gl_FragCoord.xy);
    ivec2 size = ivec2(p.geometry.xy);
    ivec2 panel = 2 * size;
    int gap = int(p.geometry.z), scale = int(p.geometry.w);
    vec3 rgb;
    if (pixel.x < panel.x) rgb = modelPixel(pixel, panel);
    else if (pixel.x < panel.x + gap) rgb = vec3(0.08);
    else rgb = bicubicPixel(pixel - ivec2(panel.x + gap, 0), size);

    ivec2 origins[3] = ivec2[3](p.origin01.xy, p.origin01.zw, p.origin2.xy);
    for (int c = 0; c < 3; ++c) {
        int at = captionAt(c, origins[c], pixel, scale);
        if (at >= 0) rgb = at == 1 ? vec3(1.0, 0.92, 0.3) : vec3(0.0);
    }
    color = vec4(rgb, 1.0);
}
