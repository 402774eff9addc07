// A DepthToSpace fused into the conv (passes/fusion.cpp, ops::depthToSpaceShuffle): blocksize
// in the low 8 bits, bit 8 for CRD mode; 0 for none (never with channels-last output or
// split-K; with a residual only in conv2d_cmd, which reads it unshuffled). A specialization
// constant, not a push constant: the driver then compiles the unshuffled store without the
// index arithmetic below, which as a runtime branch in every unrolled store made the
// register-tiled kernels 13-40% slower on the H200
// (docs/BENCHMARKS-HISTORY.md, run 24). Each including kernel declares it (SHUFFLE, id 6, in
// its shaders/kernels/<family>.toml).

// Where a convolution stores output (b, oc, oy, ox) of an M x OH x OW map in NCHW, or, with
// `shuffle` != 0, where the fused DepthToSpace puts it (CRD: oc = c r^2 + i r + j; DCR:
// oc = (i r + j) C + c), output [C = M / r^2, OH r, OW r] with (oy, ox) -> (oy r + i, ox r + j).
uint convOutIndex(uint b, uint oc, uint oy, uint ox, uint M, uint OH, uint OW, uint shuffle) {
    if (shuffle == 0u) return ((b * M + oc) * OH + oy) * OW + ox;
    const uint r = shuffle & 0xffu, rr = r * r, C = M / rr;
    const bool crd = (shuffle & 0x100u) != 0u;
    const uint c = crd ? oc / rr : oc % C, ij = crd ? oc % rr : oc / C;
    const uint i = ij / r, j = ij % r;
    return ((b * C + c) * (OH * r) + oy * r + i) * (OW * r) + ox * r + j;
}

// Where a convolution without its own channels-last store code (the depthwise and register-
// direct kernels) stores output (b, oc, oy, ox): NHWC when `nhwc` (p.outNhwc: the layout
// planner's choice or a Transpose folded into the store, ops/conv/layout.h; never with a
// shuffle), else as convOutIndex.
uint convStoreIndex(uint b, uint oc, uint oy, uint ox, uint M, uint OH, uint OW, uint shuffle, bool nhwc) {
    return nhwc ? ((b * OH + oy) * OW + ox) * M + oc : convOutIndex(b, oc, oy, ox, M, OH, OW, shuffle);
}
