// The CPU index walks behind constant folding and the CPU reference: the strided copy of
// Expand, Tile, Slice, Split, Concat and Transpose (ops::stridedCopyCpu) and the broadcast
// walk of the elementwise ops (ops::broadcastWalk), against element-by-element walks of the
// same index space, for the shapes they shortcut (broadcasts doubled with memcpy, contiguous
// runs, merged and size-1 dimensions) and the ones they must not (strided or offset outputs,
// negative strides), with the bytes the copy must not touch checked too.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <numeric>
#include <string>

#include "ops/broadcast.h"
#include "ops/cpu_copy.h"

namespace vkinfer {
namespace {

struct Walk {
    std::string what;
    std::vector<int64_t> dims, in, out;
    int64_t inOffset = 0, outOffset = 0;
};

// The walk one element at a time, as the GPU kernel does it.
void naiveCopy(const Tensor& src, Tensor& dst, const Walk& w) {
    const size_t es = dataTypeSize(src.dtype());
    std::vector<int64_t> idx(w.dims.size(), 0);
    for (int64_t i = 0, n = elementCount(w.dims); i < n; ++i) {
        int64_t s = w.inOffset, d = w.outOffset;
        for (size_t k = 0; k < w.dims.size(); ++k) s += idx[k] * w.in[k], d += idx[k] * w.out[k];
        std::memcpy(dst.data() + d * es, src.data() + s * es, es);
        for (size_t k = w.dims.size(); k-- > 0;) {
            if (++idx[k] < w.dims[k]) break;
            idx[k] = 0;
        }
    }
}

TEST(StridedCopyCpu, MatchesTheElementWalk) {
    const std::vector<Walk> walks = {
        {"Expand of a scalar to 5x7", {5, 7}, {0, 0}, {7, 1}},
        {"Expand 3x1 to 3x4 (inner broadcast)", {3, 4}, {1, 0}, {4, 1}},
        {"Expand 1x4 to 6x4 (outer broadcast)", {6, 4}, {0, 1}, {4, 1}},
        {"Tile 2x3 by 4x2: walk [r0, d0, r1, d1]", {4, 2, 2, 3}, {0, 3, 0, 1}, {12, 6, 3, 1}},
        {"Concat slice: rows of 3 into rows of 5 at column 2", {2, 3}, {3, 1}, {5, 1}, 0, 2},
        {"Concat slice of a broadcast input", {2, 3}, {1, 0}, {7, 1}, 0, 1},
        {"Transpose 3x4", {3, 4}, {1, 3}, {4, 1}},
        {"reversed Slice", {4}, {-1}, {1}, 3, 0},
        {"size-1 dims between", {1, 5, 1, 2}, {0, 2, 0, 1}, {10, 2, 2, 1}},
        {"strided Slice from an offset", {2, 3}, {10, 2}, {3, 1}, 1, 0},
        {"one element", {1, 1}, {0, 0}, {1, 1}, 4, 0},
        {"empty", {3, 0}, {1, 1}, {1, 1}},
    };
    for (DataType type : {DataType::UInt8, DataType::Int32, DataType::Int64}) {
        for (const Walk& w : walks) {
            Tensor src(type, {64});
            for (size_t i = 0; i < src.byteSize(); ++i) src.data()[i] = static_cast<std::byte>(i * 7 + 1);
            Tensor want(type, {64}), got(type, {64});
            std::memset(want.data(), 0xAB, want.byteSize());
            std::memset(got.data(), 0xAB, got.byteSize());
            naiveCopy(src, want, w);
            ops::stridedCopyCpu(src, got, w.dims, w.in, w.out, w.inOffset, w.outOffset);
            EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.byteSize())) << w.what << ", " << dataTypeName(type);
        }
    }
}

TEST(StridedCopyCpu, LargeBroadcastsAreWholeAndExact) {
    // Folding sizes: 2^22 elements from one (Expand) and from a 3x5 block (Tile).
    Tensor one(DataType::UInt8, {1});
    one.data()[0] = std::byte{0x5A};
    Tensor big(DataType::UInt8, {int64_t{1} << 22});
    ops::stridedCopyCpu(one, big, {int64_t{1} << 22}, {0}, {1}, 0, 0);
    for (int64_t i = 0; i < big.elementCount(); ++i)
        ASSERT_EQ(big.data()[i], std::byte{0x5A}) << "element " << i;

    Tensor block = Tensor::fromVector<int32_t>(DataType::Int32, {3, 5}, [] {
        std::vector<int32_t> v(15);
        std::iota(v.begin(), v.end(), 100);
        return v;
    }());
    const int64_t reps = 1 << 16;
    Tensor tiled(DataType::Int32, {reps * 3, 5});
    ops::stridedCopyCpu(block, tiled, {reps, 3, 5}, {0, 5, 1}, {15, 5, 1}, 0, 0);
    const auto* p = tiled.as<int32_t>();
    for (int64_t i = 0; i < tiled.elementCount(); ++i) ASSERT_EQ(p[i], 100 + i % 15) << "element " << i;
}

TEST(BroadcastWalk, VisitsEveryOutputWithNumpyOffsets) {
    struct Case {
        std::vector<int64_t> out, a, b;
    };
    const std::vector<Case> cases = {
        {{2, 3, 4}, {2, 3, 4}, {4}},        // trailing broadcast
        {{2, 3, 4}, {2, 1, 4}, {1, 3, 1}},  // both broadcast, nothing merges
        {{5, 1, 7}, {1}, {5, 1, 7}},        // a scalar, a size-1 dim
        {{6}, {6}, {6}},                    // one run
        {{}, {}, {}},                       // a scalar output
        {{3, 0, 2}, {3, 1, 2}, {2}},        // empty
        {{2, 2, 2, 2, 2, 2, 2, 3}, {2, 1, 2, 1, 2, 1, 2, 1}, {3}},  // more than 6 dims left
    };
    for (const Case& c : cases) {
        const auto sa = ops::broadcastStrides(c.a, c.out), sb = ops::broadcastStrides(c.b, c.out);
        std::vector<std::array<int64_t, 3>> want, got;
        std::vector<int64_t> idx(c.out.size(), 0);
        for (int64_t i = 0, n = elementCount(c.out); i < n; ++i) {
            int64_t oa = 0, ob = 0;
            for (size_t d = 0; d < c.out.size(); ++d) oa += idx[d] * sa[d], ob += idx[d] * sb[d];
            want.push_back({i, oa, ob});
            for (size_t d = c.out.size(); d-- > 0;) {
                if (++idx[d] < c.out[d]) break;
                idx[d] = 0;
            }
        }
        ops::broadcastWalk<2>(c.out, {c.a, c.b},
                              [&](int64_t i, const std::array<int64_t, 2>& off) { got.push_back({i, off[0], off[1]}); });
        EXPECT_EQ(got, want) << shapeToString(c.out) << " from " << shapeToString(c.a) << " and " << shapeToString(c.b);
    }
}

}  // namespace
}  // namespace vkinfer
