#include "ops/cpu_copy.h"

#include <algorithm>
#include <cstring>

#include "core/half.h"
#include "ops/broadcast.h"

namespace vkinfer::ops {

namespace {

// stridedCopyCpu's walk, its dimensions collapsed (collapseDims).
struct CopyWalk {
    std::vector<int64_t> dims, in, out;
    std::vector<int64_t> outBlock;  // elements from level k on, where the output is contiguous; else 0
    const std::byte* src;
    std::byte* dst;
    size_t es;

    // Copies level k of the walk. Folding copies up to tens of millions of elements (Expand,
    // Tile, ConstantOfShape-like broadcasts): a broadcast level copies its first block once
    // and doubles it with memcpy, a contiguous innermost level is one memcpy, so the work per
    // element is a byte copy; an index walk per element took over 25 s in the sanitized
    // fuzzer at -O0.
    void copy(size_t k, int64_t s, int64_t d) const {
        const int64_t n = dims[k], si = in[k], so = out[k];
        if (si == 0 && outBlock[k] != 0) {  // broadcast into a contiguous output block
            if (k + 1 == dims.size()) std::memcpy(dst + d * es, src + s * es, es);
            else copy(k + 1, s, d);
            replicate(d, outBlock[k] / n, n);
            return;
        }
        if (k + 1 == dims.size()) {
            if (si == 1 && so == 1) {
                std::memcpy(dst + d * es, src + s * es, static_cast<size_t>(n) * es);
            } else {
                for (int64_t j = 0; j < n; ++j) std::memcpy(dst + (d + j * so) * es, src + (s + j * si) * es, es);
            }
            return;
        }
        for (int64_t j = 0; j < n; ++j) copy(k + 1, s + j * si, d + j * so);
    }

    // Fills copies 1..n-1 of the block of `block` elements at d from copy 0.
    void replicate(int64_t d, int64_t block, int64_t n) const {
        const size_t bytes = static_cast<size_t>(block) * es;
        repeatBytes(dst + d * es, bytes, bytes * static_cast<size_t>(n));
    }
};

}  // namespace

void repeatBytes(std::byte* p, size_t filled, size_t total) {
    for (; filled < total; filled *= 2) std::memcpy(p + filled, p, std::min(filled, total - filled));
}

void stridedCopyCpu(const Tensor& src, Tensor& dst, const Shape& dims, const std::vector<int64_t>& inStride,
                    const std::vector<int64_t>& outStride, int64_t inOffset, int64_t outOffset) {
    if (elementCount(dims) == 0) return;
    CopyWalk w{dims, inStride, outStride, {}, src.data(), dst.data(), dataTypeSize(src.dtype())};
    collapseDims(w.dims, {&w.in, &w.out});  // (its limit of 6 dims is the GPU kernel's)
    w.outBlock.assign(w.dims.size(), 0);
    int64_t block = 1;
    for (size_t k = w.dims.size(); k-- > 0;) {
        if (block == 0 || w.out[k] != block) block = 0;
        else block *= w.dims[k];
        w.outBlock[k] = block;
    }
    w.copy(0, inOffset, outOffset);
}

Tensor toFloat32(const Tensor& t) {
    if (t.dtype() != DataType::Float16) return t;
    Tensor f(DataType::Float32, t.shape());
    const uint16_t* ph = t.as<uint16_t>();
    float* pf = f.as<float>();
    for (int64_t i = 0, count = t.elementCount(); i < count; ++i) pf[i] = halfToFloat(ph[i]);
    return f;
}

Tensor narrowFromFloat32(const Tensor& t, DataType type) {
    if (type != DataType::Float16 || t.dtype() != DataType::Float32) return t;
    Tensor h(DataType::Float16, t.shape());
    const float* pf = t.as<float>();
    uint16_t* ph = h.as<uint16_t>();
    for (int64_t i = 0, count = t.elementCount(); i < count; ++i) ph[i] = floatToHalf(pf[i]);
    return h;
}

Tensor reshapeCopy(const Tensor& t, const Shape& shape) {
    Tensor out = t;
    out.reshape(shape);
    return out;
}

}  // namespace vkinfer::ops
