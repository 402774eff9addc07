// Indices computed at run time that fall outside their axis are an error in ONNX. A kernel
// that reads them binds its own 16-byte status slot at STATUS_BINDING (defined before this
// include): the first invocation to meet a bad index records it there, and the kernel clamps
// (gathers) or skips (scatters) so that it never reads or writes outside its buffers. The
// host reads the slot after the frame's fence and fails naming the node
// (runtime/index_status.cpp). Words: found (1), the index's low and high words, the extent.
layout(std430, binding = STATUS_BINDING) buffer IndexStatus { uint indexStatus[4]; };

// The index `lo` (with `hi`, the high word of an int64 index or the sign of an int32 one)
// counted from the end when negative; -1 and a report when outside [0, extent).
int resolveIndex(int lo, int hi, uint extent) {
    int k = lo < 0 ? lo + int(extent) : lo;
    if (hi == (lo >> 31) && k >= 0 && k < int(extent)) return k;
    if (atomicCompSwap(indexStatus[0], 0u, 1u) == 0u) {
        indexStatus[1] = uint(lo);
        indexStatus[2] = uint(hi);
        indexStatus[3] = extent;
    }
    return -1;
}

// Index element `e` of the int32 or (IDX64) int64 buffer idx[], resolved against `extent`.
#define RESOLVE_INDEX(e, extent) \
    resolveIndex(idx[IDX64 != 0u ? 2u * (e) : (e)], IDX64 != 0u ? idx[2u * (e) + 1u] : (idx[(e)] >> 31), (extent))
