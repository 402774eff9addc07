#version 450
// Stride-1 Conv2d on cooperative matrices, direct: no im2col. A workgroup of TH warps computes
// an output tile of TH rows x TW = 16 FN pixels x BM = 16 FM channels. Per chunk of 16 input
// channels it copies the input window the tile needs (TH + KH - 1 rows of TW + KW - 1 pixels,
// zero outside the image: the halo) into shared memory once, channels innermost, and every
// tap's B fragment is then a column-major view of it: the 16 pixels of fragment column n are
// consecutive halo pixels, their 16 channels contiguous. So each input element is read from
// memory about once per tile instead of KH x KW times (conv2d_cm.comp gathers every tap), and
// the operands need no reduction table. The weights of the chunk (all taps, BM rows) go
// through shared memory too.
// NARROW (input of at most 8 channels, a network's stem): every halo pixel is one 16-byte
// word of 8 channels (zero-padded) and a fragment's 16 reduction rows are two neighbouring
// taps along x (k = dx * 8 + c), so a 5x5 stem over RGB takes 15 steps of 16 instead of
// gathering 75 values per pixel.
// Loads: every invocation issues all its global loads of a chunk (halo and weights) at once
// into registers, then stores them to shared memory: one memory round trip per chunk (a loop
// of load-then-store made ESPCN's 64 -> 32 layer wait half its time; issuing the next
// chunk's loads before multiplying this one gained nothing more: docs/BENCHMARKS.md, run 30).
// Epilogue: bias, residual, activation and the float16 store. STORE_WORDS 1: NHWC with M a
// multiple of 8, each invocation finishing 8 channels of a pixel as one 16-byte store; 2:
// NCHW with OW a multiple of 8, 8 pixels of a channel; 0: one element at a time (NCHW, NHWC
// or shuffled: SHUFFLE, a fused DepthToSpace). Element at a time, the index arithmetic and
// 2-byte stores made the epilogue two thirds of the RGB stem's time.
// OUT_FLOAT32 (a float16 plan's output Cast folded in, passes/cast_folding.h): the float16
// result widened as it is stored, through its bits (half_bits.glsl), so that the compiler
// cannot skip the float16 rounding: the outputs are the Cast's bit for bit.
// Grid: x = column tiles, y = row tiles, z = batch x m-tiles. Defines: FM, FN, NARROW,
// RESIDUAL, CM_NV / CM_EMULATE.
#define T_F16
#include "common.glsl"
#include "types.glsl"
#include "conv2d_cmd.glsl"  // push constants, specialization constants, constants: shaders/kernels/conv2d_cmd.toml
#include "conv_store.glsl"
#include "half_bits.glsl"
#define CM_UNIT 8u
#define CM_A(h) cmHalf(As[(h) >> 3], h)
#define CM_B(h) cmHalf(Bs[(h) >> 3], h)
#define CM_B_COLUMN_MAJOR
#include "coopmat.glsl"
// The lowering sizes shared memory with STAGING_FLOATS_PER_WARP (conv2d_cmd.toml): a compile
// error (an array of size -1) if coopmat.glsl's staging tile differs.
const uint STAGING_MATCHES_DECLARATION[16u * CM_CS_STRIDE == STAGING_FLOATS_PER_WARP ? 1 : -1] = uint[](1u);

#define BM (16 * FM)
#define TW (16 * FN)
#define TH (gl_WorkGroupSize.x / 32u)
#define NT gl_WorkGroupSize.x
// PIX_WORDS, DATA_WORDS, XSTEP: per variant (_narrow), from shaders/kernels/conv2d_cmd.toml

// Shared memory per workgroup, sized by the lowering (ops/conv/coopmat_direct.cpp) for its tile.
// The window, as constants so that the driver unrolls the tap loops: loads of one tap can
// then overlap the multiplies of the last.
const uint KW_STEPS = (KW + XSTEP - 1u) / XSTEP;  // fragments of reduction per window row
const uint TAP_STEPS = KH * KW_STEPS;              // per chunk
// Global words each invocation loads per chunk (the shared words less their padding).
const uint HALO_DATA = HALO_WORDS / PIX_WORDS * DATA_WORDS;
const uint WEIGHT_DATA = WEIGHT_WORDS / W_ROW_WORDS * 2u;
const uint HALO_PER = (HALO_DATA + gl_WorkGroupSize.x - 1u) / gl_WorkGroupSize.x;
const uint WEIGHT_PER = (WEIGHT_DATA + gl_WorkGroupSize.x - 1u) / gl_WorkGroupSize.x;

layout(std430, binding = 0) writeonly buffer Out { float16_t y[]; };
layout(std430, binding = 0) writeonly buffer Out8 { uvec4 yq[]; };  // STORE_WORDS != 0
layout(std430, binding = 0) writeonly buffer Out32 { float y32[]; };  // OUT_FLOAT32
layout(std430, binding = 1) readonly buffer In { float16_t x[]; };
layout(std430, binding = 1) readonly buffer In8 { uvec4 xq[]; };  // channels-last input
layout(std430, binding = 2) readonly buffer Weight { uvec4 wq[]; };  // [chunk][tapStep][Mpad][16 halves]
layout(std430, binding = 3) readonly buffer Bias { float16_t bias[]; };
layout(std430, binding = 3) readonly buffer Bias8 { uvec4 biasq[]; };  // STORE_WORDS 1
#ifdef RESIDUAL
layout(std430, binding = 4) readonly buffer Residual { float16_t res[]; };
layout(std430, binding = 4) readonly buffer Residual8 { uvec4 resq[]; };
#endif


shared uvec4 As[WEIGHT_WORDS];
shared uvec4 Bs[HALO_WORDS];
shared float Cs[(gl_WorkGroupSize.x / 32u) * CM_CS_WARP];

// Eight channels [c0, c0 + 8) of input pixel (b, iy, ix) as one word, zero past C.
uvec4 inputWord(uint b, int iy, int ix, uint c0) {
    if (uint(iy) >= p.H || uint(ix) >= p.W || c0 >= p.C) return uvec4(0u);
    if (p.inNhwc != 0u) return xq[(((b * p.H + uint(iy)) * p.W + uint(ix)) * p.C + c0) >> 3];
    uint v[4];
    [[unroll]] for (uint h = 0u; h < 4u; ++h) {
        uint c = c0 + 2u * h;
        uint plane = p.H * p.W, at = (b * p.C + c) * plane + uint(iy) * p.W + uint(ix);
        f16vec2 pair = f16vec2(c < p.C ? x[at] : float16_t(0.0), c + 1u < p.C ? x[at + plane] : float16_t(0.0));
        v[h] = packFloat2x16(pair);
    }
    return uvec4(v[0], v[1], v[2], v[3]);
}

uint tid, b, m0, x0, y0;
uvec4 haloLoaded[HALO_PER];  // this invocation's words of a chunk, between fetch and stash
uvec4 weightLoaded[WEIGHT_PER];

// Eight staged floats from Cs[at] (at a multiple of 4).
vec4 staged4(uint at) { return vec4(Cs[at], Cs[at + 1u], Cs[at + 2u], Cs[at + 3u]); }

// Chunk q's global loads into registers. Halo pixel (hy, hx) goes to Bs[(hy * haloW + hx) *
// PIX_WORDS + word], weight row r of tap step t to As[(t * BM + r) * W_ROW_WORDS + word].
void fetch(uint q) {
    CM_UNROLL for (uint i = 0u; i < HALO_PER; ++i) {
        uint e = tid + i * gl_WorkGroupSize.x;
        uint pix = e / DATA_WORDS, wd = e % DATA_WORDS;
        uint hy = pix / p.haloW, hx = pix % p.haloW;
        int iy = int(y0 + hy) - int(p.padH), ix = int(x0 + hx) - int(p.padW);
        haloLoaded[i] = e < HALO_DATA ? inputWord(b, iy, ix, q * 16u + wd * 8u) : uvec4(0u);
    }
    CM_UNROLL for (uint i = 0u; i < WEIGHT_PER; ++i) {
        uint e = min(tid + i * gl_WorkGroupSize.x, WEIGHT_DATA - 1u);
        uint t = e / (BM * 2u), r = (e / 2u) % BM, wd = e % 2u;
        weightLoaded[i] = wq[((q * TAP_STEPS + t) * p.Mpad + m0 + r) * 2u + wd];
    }
}

void stash() {
    CM_UNROLL for (uint i = 0u; i < HALO_PER; ++i) {
        uint e = tid + i * gl_WorkGroupSize.x;
        if (e < HALO_DATA) Bs[e / DATA_WORDS * PIX_WORDS + e % DATA_WORDS] = haloLoaded[i];
    }
    CM_UNROLL for (uint i = 0u; i < WEIGHT_PER; ++i) {
        uint e = tid + i * gl_WorkGroupSize.x;
        if (e < WEIGHT_DATA) As[e / 2u * W_ROW_WORDS + e % 2u] = weightLoaded[i];
    }
}

// Eight float32 values as float16 halves of one word.
uvec4 packWord(vec4 lo, vec4 hi) {
    return uvec4(packFloat2x16(f16vec2(lo.xy)), packFloat2x16(f16vec2(lo.zw)), packFloat2x16(f16vec2(hi.xy)),
                 packFloat2x16(f16vec2(hi.zw)));
}
vec4 lowHalves(uvec4 w) { return vec4(vec2(unpackFloat2x16(w.x)), vec2(unpackFloat2x16(w.y))); }
vec4 highHalves(uvec4 w) { return vec4(vec2(unpackFloat2x16(w.z)), vec2(unpackFloat2x16(w.w))); }

// Eight outputs that start at element idx (a multiple of 8) with bias added: the residual,
// the activation (PRelu with these eight slopes) and one 16-byte store.
void storeWord(uint idx, vec4 lo, vec4 hi, vec4 slopeLo, vec4 slopeHi) {
#ifdef RESIDUAL
    uvec4 rw = resq[idx >> 3];
    lo += lowHalves(rw);
    hi += highHalves(rw);
#endif
    yq[idx >> 3] = packWord(activate4At(lo, slopeLo), activate4At(hi, slopeHi));
}

void main() {
    tid = gl_LocalInvocationIndex;
    const uint warp = tid / 32u, lane = tid % 32u;
    const uint mTiles = p.Mpad / BM;
    b = gl_WorkGroupID.z / mTiles;
    m0 = (gl_WorkGroupID.z % mTiles) * BM;
    x0 = gl_WorkGroupID.x * TW;
    y0 = gl_WorkGroupID.y * TH;

    CM_ACC acc[FM][FN];
    CM_UNROLL for (uint i = 0u; i < FM; ++i)
        CM_UNROLL for (uint j = 0u; j < FN; ++j) CM_ZERO(acc[i][j]);

    for (uint q = 0u; q < p.chunks; ++q) {
        fetch(q);
        stash();
        barrier();
        CM_UNROLL for (uint ky = 0u; ky < KH; ++ky) {
            CM_UNROLL for (uint s = 0u; s < KW_STEPS; ++s) {
                const uint t = ky * KW_STEPS + s, dx = s * XSTEP;
                CM_FRAG_A a[FM];
                CM_FRAG_B bf[FN];
                CM_UNROLL for (uint i = 0u; i < FM; ++i)
                    CM_LOAD_A(a[i], (t * BM + i * 16u) * W_ROW_WORDS * 8u, W_ROW_WORDS * 8u);
                CM_UNROLL for (uint j = 0u; j < FN; ++j)
                    CM_LOAD_B(bf[j], ((warp + ky) * p.haloW + j * 16u + dx) * PIX_WORDS * 8u, PIX_WORDS * 8u);
                CM_UNROLL for (uint i = 0u; i < FM; ++i)
                    CM_UNROLL for (uint j = 0u; j < FN; ++j) CM_MULADD(acc[i][j], a[i], bf[j]);
            }
        }
        barrier();
    }

    // Epilogue, one accumulator at a time through this warp's staging rows.
    const uint oy = y0 + warp;
    const uint cs = warp * CM_CS_WARP;
    CM_UNROLL for (uint i = 0u; i < FM; ++i) {
        CM_UNROLL for (uint j = 0u; j < FN; ++j) {
            if (STORE_WORDS == 1u) {
                // Pixel lane / 2, channels 8 (lane % 2) .. + 7: staged column-major.
                CM_STAGE_COLUMNS(acc[i][j], warp);
                CM_WARP_SYNC();
                uint c = lane >> 1, h = lane & 1u;
                uint m = m0 + i * 16u + h * 8u, ox = x0 + j * 16u + c;
                if (m < p.M && ox < p.OW && oy < p.OH) {
                    uint at = cs + c * CM_CS_STRIDE + h * 8u;
                    uvec4 bw = biasq[m >> 3];
                    uvec4 sw = ACT_KIND == 11u ? biasq[(p.M + m) >> 3] : uvec4(0u);  // (M % 8 == 0 here)
                    storeWord(((b * p.OH + oy) * p.OW + ox) * p.M + m, staged4(at) + lowHalves(bw),
                              staged4(at + 4u) + highHalves(bw), lowHalves(sw), highHalves(sw));
                }
            } else if (STORE_WORDS == 2u) {
                // Channel lane / 2, pixels 8 (lane % 2) .. + 7: staged row-major.
                CM_STAGE(acc[i][j], warp);
                CM_WARP_SYNC();
                uint r = lane >> 1, h = lane & 1u;
                uint m = m0 + i * 16u + r, ox = x0 + j * 16u + h * 8u;
                if (m < p.M && ox < p.OW && oy < p.OH) {
                    uint at = cs + r * CM_CS_STRIDE + h * 8u;
                    float bm = float(bias[m]);
                    vec4 slope = vec4(SLOPE_OF(float(bias[p.M + m])));
                    storeWord(((b * p.M + m) * p.OH + oy) * p.OW + ox, staged4(at) + bm, staged4(at + 4u) + bm, slope,
                              slope);
                }
            } else {
                CM_STAGE(acc[i][j], warp);
                CM_WARP_SYNC();
                CM_UNROLL for (uint t = 0u; t < 8u; ++t) {
                    // Consecutive lanes store consecutive addresses: pixels in NCHW, channels in NHWC.
                    uint e = lane + 32u * t;
                    uint r = p.outNhwc != 0u ? e % 16u : e / 16u, c = p.outNhwc != 0u ? e / 16u : e % 16u;
                    uint m = m0 + i * 16u + r;
                    uint ox = x0 + j * 16u + c;
                    if (m < p.M && ox < p.OW && oy < p.OH) {
                        float v = Cs[cs + r * CM_CS_STRIDE + c] + float(bias[m]);
                        uint pix = oy * p.OW + ox;
                        // The residual where the unshuffled output would be (a shuffle's input).
                        uint unshuffled = p.outNhwc != 0u ? (b * p.OH * p.OW + pix) * p.M + m
                                                          : (b * p.M + m) * p.OH * p.OW + pix;
                        uint idx = SHUFFLE != 0u ? convOutIndex(b, m, oy, ox, p.M, p.OH, p.OW, SHUFFLE) : unshuffled;
#ifdef RESIDUAL
                        v += float(res[unshuffled]);
#endif
                        float16_t r = float16_t(activateAt(v, SLOPE_OF(float(bias[p.M + m]))));
                        if (OUT_FLOAT32 != 0u) y32[idx] = halfBitsToFloat(packFloat2x16(f16vec2(r, float16_t(0.0))));
                        else y[idx] = r;
                    }
                }
            }
            CM_WARP_SYNC();
        }
    }
}
