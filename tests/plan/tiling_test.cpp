// The tile planner of `vkinfer upscale` (tools/vkinfer/tiling.cpp, compiled into this test:
// it is the CLI's, not the library's): tiles cover the image, every kept core has the
// overlap of context it needs, and tiles keep one shape.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "../../tools/vkinfer/tiling.cpp"

namespace vkinfer::cli {
namespace {

void expectValidAxis(int64_t size, int64_t window, int64_t overlap, int64_t alignment) {
    SCOPED_TRACE(::testing::Message() << "size " << size << " window " << window << " overlap " << overlap
                                      << " alignment " << alignment);
    const auto spans = planAxis(size, window, overlap, alignment);
    ASSERT_FALSE(spans.empty());
    int64_t next = 0;
    std::set<int64_t> lengths;
    for (const auto& s : spans) {
        EXPECT_EQ(s.coreBegin, next);  // cores partition [0, size) in order
        EXPECT_LT(s.coreBegin, s.coreEnd);
        next = s.coreEnd;
        EXPECT_GE(s.begin, 0);
        EXPECT_LE(s.begin + s.length, size);
        EXPECT_LE(s.length, window);
        EXPECT_LE(s.begin, s.coreBegin);
        EXPECT_GE(s.begin + s.length, s.coreEnd);
        // Context: `overlap` pixels on each side inside the window, unless the side is the image's edge.
        if (s.coreBegin > 0) {
            EXPECT_LE(s.begin, s.coreBegin - overlap);
        }
        if (s.coreEnd < size) {
            EXPECT_GE(s.begin + s.length, s.coreEnd + overlap);
        }
        EXPECT_EQ(s.begin % alignment, 0);
        lengths.insert(s.length);
    }
    EXPECT_EQ(next, size);
    if (size <= window) {
        EXPECT_EQ(spans.size(), 1u);
        EXPECT_EQ(spans[0].length, size);
    } else if (alignment == 1) {
        EXPECT_EQ(lengths, std::set<int64_t>{window});  // one shape: the last window shifted, not cut
    } else {
        EXPECT_LE(lengths.size(), 2u);
        EXPECT_GT(*lengths.begin(), window - alignment);
    }
}

TEST(Tiling, AxesAreCoveredWithContextForManySizes) {
    for (int64_t size : {1, 7, 29, 30, 31, 37, 64, 100, 257, 1080, 3840})
        for (int64_t window : {13, 16, 23, 64, 128, 512})
            for (int64_t overlap : {0, 1, 5, 6})
                for (int64_t alignment : {1, 2, 4}) {
                    // Enough for a core: twice the overlap rounded up to the alignment, plus one step.
                    const int64_t context = (overlap + alignment - 1) / alignment * alignment;
                    if (window < 2 * context + alignment) continue;
                    expectValidAxis(size, window, overlap, alignment);
                }
}

TEST(Tiling, TooSmallAWindowIsAnError) {
    EXPECT_THROW(planAxis(100, 10, 5), std::invalid_argument);
    EXPECT_THROW(planAxis(100, 16, 5, 4), std::invalid_argument);  // context rounds up to 8 per side: no step left
    EXPECT_NO_THROW(planAxis(100, 11, 5));
    EXPECT_NO_THROW(planAxis(10, 10, 5));  // the window is the whole axis: no core needs context
}

TEST(Tiling, ImagesGetOneTileShape) {
    // A 4K image in 680-pixel tiles with an overlap of 5: rows x columns tiles, one shape.
    TilePlan plan = planTiles(3840, 2160, 680, 680, 5);
    EXPECT_EQ(plan.tiles.size(), 6u * 4u);
    EXPECT_EQ(plan.shapes(), (std::vector<std::pair<int64_t, int64_t>>{{680, 680}}));
    // Odd sizes that tiles do not divide.
    plan = planTiles(37, 29, 16, 16, 5);
    EXPECT_EQ(plan.shapes().size(), 1u);
    std::vector<int> covered(37 * 29, 0);
    for (const auto& t : plan.tiles)
        for (int64_t y = t.y.coreBegin; y < t.y.coreEnd; ++y)
            for (int64_t x = t.x.coreBegin; x < t.x.coreEnd; ++x) ++covered[size_t(y * 37 + x)];
    for (int c : covered) EXPECT_EQ(c, 1);  // every pixel kept exactly once
    // An axis shorter than the tile is one window of its own size.
    plan = planTiles(100, 12, 32, 32, 4);
    EXPECT_EQ(plan.shapes(), (std::vector<std::pair<int64_t, int64_t>>{{32, 12}}));
}

TEST(Tiling, LargestTileEdgeFitsTheLimit) {
    // 256 bytes per pixel (64 float channels) in lavapipe's 128 MiB storage buffer range.
    const uint64_t limit = uint64_t(128) << 20;
    int64_t edge = largestTileEdge(256, limit, 32);
    EXPECT_EQ(edge % 8, 0);
    EXPECT_LE(double(edge * edge) * 256, double(limit));
    EXPECT_GT(double((edge + 8) * (edge + 8)) * 256, double(limit));
    EXPECT_EQ(largestTileEdge(1e9, limit, 32), 0);  // not even the minimum fits
}

}  // namespace
}  // namespace vkinfer::cli
