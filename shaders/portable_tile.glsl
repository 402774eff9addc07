// The multiplies of one K slice in the portable tiled kernels (gemm.comp, conv2d.comp): every
// invocation's TM x TN outputs, strided across the BM x BN tile (rows ty + i WM, columns
// tx + j WN, so that neighbouring invocations read neighbouring shared words), from the slice
// staged in `shared float As[BK][BM], Bs[BK][BN]`. Every loop unrolled, so that acc stays in
// registers.
#define MULTIPLY_TILE_SLICE(acc, tx, ty)                                                         \
    [[unroll]] for (uint kk = 0; kk < BK; ++kk) {                                                \
        float av[TM], bv[TN];                                                                    \
        [[unroll]] for (uint i = 0; i < TM; ++i) av[i] = As[kk][(ty) + i * WM];                  \
        [[unroll]] for (uint j = 0; j < TN; ++j) bv[j] = Bs[kk][(tx) + j * WN];                  \
        [[unroll]] for (uint i = 0; i < TM; ++i)                                                 \
            [[unroll]] for (uint j = 0; j < TN; ++j) acc[i][j] = fma(av[i], bv[j], acc[i][j]);   \
    }
