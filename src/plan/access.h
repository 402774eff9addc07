// What a command touches: byte ranges of allocations, read or written. The planners work
// only on these, never on tensor ids, so views, in-place concat and reused arena bytes
// alias correctly.
#pragma once

#include <cstdint>
#include <vector>

namespace vkinfer::plan {

// [begin, end) of allocation `alloc`. `tag` identifies the tensor for reports only.
struct Range {
    int alloc = 0;
    int64_t begin = 0;
    int64_t end = 0;
    int tag = -1;
};

inline bool overlaps(const Range& a, const Range& b) {
    return a.alloc == b.alloc && a.begin < b.end && b.begin < a.end;
}

struct Command {
    std::vector<Range> reads;
    std::vector<Range> writes;
};

}  // namespace vkinfer::plan
