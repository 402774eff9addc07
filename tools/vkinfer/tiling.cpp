#include "tiling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace vkinfer::cli {

namespace {

int64_t floorTo(int64_t v, int64_t a) { return v >= 0 ? v / a * a : -((-v + a - 1) / a * a); }
int64_t ceilTo(int64_t v, int64_t a) { return -floorTo(-v, a); }

}  // namespace

std::vector<TileSpan> planAxis(int64_t size, int64_t window, int64_t overlap, int64_t alignment) {
    if (size <= 0 || window <= 0 || overlap < 0 || alignment <= 0)
        throw std::invalid_argument("planAxis: size, window and alignment must be > 0 and overlap >= 0");
    if (size <= window) return {{0, size, 0, size}};
    std::vector<TileSpan> spans;
    int64_t core = 0;
    while (core < size) {
        int64_t begin = core == 0 ? 0 : std::max<int64_t>(0, floorTo(core - overlap, alignment));
        if (begin + window >= size) {
            // The last window ends at the edge. Shifted back (not shortened) to keep its shape;
            // it starts no later than the unshifted one, so the core keeps its context.
            begin = std::max<int64_t>(0, ceilTo(size - window, alignment));
            spans.push_back({begin, size - begin, core, size});
            break;
        }
        const int64_t coreEnd = floorTo(begin + window - overlap, alignment);
        if (coreEnd <= core)
            throw std::invalid_argument("a tile of " + std::to_string(window) + " pixels leaves no core with an overlap of " +
                                        std::to_string(overlap) + " pixels on each side (alignment " +
                                        std::to_string(alignment) + ")");
        spans.push_back({begin, window, core, coreEnd});
        core = coreEnd;
    }
    return spans;
}

TilePlan planTiles(int64_t width, int64_t height, int64_t tileWidth, int64_t tileHeight, int64_t overlap,
                   int64_t alignment) {
    TilePlan plan;
    const auto xs = planAxis(width, tileWidth, overlap, alignment);
    const auto ys = planAxis(height, tileHeight, overlap, alignment);
    for (const auto& y : ys)
        for (const auto& x : xs) plan.tiles.push_back({x, y});
    return plan;
}

std::vector<std::pair<int64_t, int64_t>> TilePlan::shapes() const {
    std::vector<std::pair<int64_t, int64_t>> s;
    for (const auto& t : tiles) {
        std::pair<int64_t, int64_t> wh{t.x.length, t.y.length};
        if (std::find(s.begin(), s.end(), wh) == s.end()) s.push_back(wh);
    }
    return s;
}

int64_t largestTileEdge(double bytesPerPixel, uint64_t limitBytes, int64_t minimum) {
    if (bytesPerPixel <= 0) return std::numeric_limits<int32_t>::max();
    const double pixels = static_cast<double>(limitBytes) / bytesPerPixel;
    const auto edge = static_cast<int64_t>(std::floor(std::sqrt(pixels))) / 8 * 8;
    return edge >= minimum ? edge : 0;
}

}  // namespace vkinfer::cli
