// Split-K in one dispatch, the protocol both GEMM kernels and the three tiled convolutions
// share (gemm_store.glsl, conv_split.glsl): every workgroup of a split stores its float32
// partial sums (in a `coherent` buffer), fences them, and takes a ticket for its output tile
// (an atomic counter per tile, zeroed by the engine at the start of every run:
// plan::AllocKind::Tickets); the one that takes the last adds the tile's splits in split order
// (deterministic: the sums a separate reduce dispatch would make) and stores them through the
// epilogue. Define TICKETS_BINDING before including.

layout(std430, binding = TICKETS_BINDING) coherent buffer Tickets { uint tickets[]; };

shared bool splitIsLast;

// After every invocation of the workgroup stored its partial sums: whether this workgroup is
// the last of `splits` to finish tile `tile` (uniform over the workgroup; every invocation
// must call it).
bool lastSplitToFinish(uint tile, uint splits, uint tid) {
    memoryBarrierBuffer();
    barrier();
    if (tid == 0u) splitIsLast = atomicAdd(tickets[tile], 1u) == splits - 1u;
    barrier();
    memoryBarrierBuffer();
    return splitIsLast;
}
