#version 450
// MaxPool / AveragePool over N C D H W (1-D and 2-D run with unit leading spatial dims), one
// output element per invocation, for the cases pool2d.comp does not cover: 3-D windows,
// integer element types (T, see types.glsl; MaxPool only) and MaxPool's Indices output
// (int64 written as two words: the flat input index, row-major, or with H and W swapped
// for storage_order = 1, padding not counted; variant WITH_INDICES).
#include "common.glsl"
#include "types.glsl"
#include "pool_nd.glsl"  // push constants, specialization constants: shaders/kernels/pool_nd.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };
#ifdef WITH_INDICES
layout(std430, binding = 2) writeonly buffer Indices { uint ind[]; };
#endif

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.NC * p.OD * p.OH * p.OW) return;
    uint ox = idx % p.OW, t = idx / p.OW;
    uint oy = t % p.OH;
    t /= p.OH;
    uint oz = t % p.OD, nc = t / p.OD;
#if T_IS_FLOAT
    ACC acc = IS_MAX != 0u ? ACC(-3.402823466e38) : ACC(0);
#else
    ACC acc = ACC(-2147483647);
#endif
    uint count = 0, best = 0;
    bool found = false;
    int z0 = int(oz * p.SD) - int(p.padD), y0 = int(oy * p.SH) - int(p.padH), x0 = int(ox * p.SW) - int(p.padW);
    for (uint kz = 0; kz < p.KD; ++kz) {
        int iz = z0 + int(kz * p.DD);
        for (uint ky = 0; ky < p.KH; ++ky) {
            int iy = y0 + int(ky * p.DH);
            for (uint kx = 0; kx < p.KW; ++kx) {
                int ix = x0 + int(kx * p.DW);
                bool inside = iz >= 0 && iz < int(p.D) && iy >= 0 && iy < int(p.H) && ix >= 0 && ix < int(p.W);
                if (inside) {
                    uint at = ((nc * p.D + uint(iz)) * p.H + uint(iy)) * p.W + uint(ix);
                    ACC v = ACC(x[at]);
                    if (IS_MAX != 0u) {
#if T_IS_FLOAT
                        // The first NaN wins and stays (v > NaN is false), as in the reference.
                        bool better = !found || v > acc || (isNaN(v) && !isNaN(acc));
#else
                        bool better = !found || v > acc;
#endif
                        if (better) {
                            acc = v;
                            best = STORAGE_ORDER != 0u ? ((nc * p.D + uint(iz)) * p.W + uint(ix)) * p.H + uint(iy) : at;
                        }
                        found = true;
                    } else {
                        acc += v;
                    }
                    ++count;
                } else if (COUNT_INCLUDE_PAD != 0u && iz < int(p.endD) && iy < int(p.endH) && ix < int(p.endW)) {
                    ++count;
                }
            }
        }
    }
#if T_IS_FLOAT
    if (IS_MAX == 0u) acc = count > 0u ? acc / ACC(count) : ACC(0);
    y[idx] = T(activate(float(acc)));
#else
    y[idx] = T(acc);
#endif
#ifdef WITH_INDICES
    ind[2u * idx] = best;
    ind[2u * idx + 1u] = 0u;
#endif
}
