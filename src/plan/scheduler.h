// Wave scheduling (pure): orders commands so that independent ones sit between the same pair
// of barriers.
//
// A command's wave is the length of the longest chain of hazards (RAW, WAW or WAR on
// overlapping bytes, in the given order) that ends at it. Commands of one wave have no
// hazard among themselves, so recording wave by wave needs at most one barrier per wave
// boundary, and waves - 1 is the fewest barriers any order can reach.
#pragma once

#include <vector>

#include "plan/access.h"

namespace vkinfer::plan {

struct Schedule {
    std::vector<int> order;              // command indices in recording order
    std::vector<int> wave;               // wave of each command (by original index)
    int waves = 0;
    std::vector<std::vector<int>> deps;  // direct predecessors of each command
};

Schedule scheduleWaves(const std::vector<Command>& commands);

}  // namespace vkinfer::plan
