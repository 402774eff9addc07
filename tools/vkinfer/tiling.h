// Tiles for image-to-image models (vkinfer upscale): windows of one shape that cover an
// image, each contributing only its core, the part whose receptive field lies inside the
// window (or runs off the image, where the window's edge is the image's edge). The model then
// computes every output pixel from the same input pixels as on the whole image, so the tiled
// result equals the untiled one. Pure arithmetic, no GPU (tests/plan/tiling_test.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vkinfer::cli {

// One window along an axis: input pixels [begin, begin + length) go to the model, and its
// output for input pixels [coreBegin, coreEnd) is kept.
struct TileSpan {
    int64_t begin = 0, length = 0;
    int64_t coreBegin = 0, coreEnd = 0;
};

// Windows of `window` pixels along an axis of `size` pixels whose cores partition [0, size).
// Each core keeps `overlap` pixels of context on both sides inside its window, except at the
// image's edges. Window starts are multiples of `alignment` (models that downsample are
// shift-equivariant only by multiples of their stride); with alignment 1 every window has
// `window` pixels (the last one is shifted back to end at the edge), with a larger alignment
// the last one may be up to alignment - 1 pixels shorter. size <= window gives one window
// of `size`. Throws std::invalid_argument when a window leaves no core; a window of at least
// 2 * overlap (rounded up to the alignment) + alignment always has one.
std::vector<TileSpan> planAxis(int64_t size, int64_t window, int64_t overlap, int64_t alignment = 1);

struct Tile {
    TileSpan x, y;
};

struct TilePlan {
    std::vector<Tile> tiles;  // rows top to bottom, left to right within a row
    // Distinct window shapes (width, height): each is one plan of the model.
    std::vector<std::pair<int64_t, int64_t>> shapes() const;
};

// Tiles of at most tileWidth x tileHeight input pixels for a width x height image.
TilePlan planTiles(int64_t width, int64_t height, int64_t tileWidth, int64_t tileHeight, int64_t overlap,
                   int64_t alignment = 1);

// The largest square tile edge (a multiple of 8, >= minimum) whose bytes, growing with the
// pixel count as `bytesPerPixel`, fit in `limitBytes`; 0 when not even `minimum` fits.
int64_t largestTileEdge(double bytesPerPixel, uint64_t limitBytes, int64_t minimum);

}  // namespace vkinfer::cli
