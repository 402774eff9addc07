// Whether a kernel may load a float16 operand in whole 16-byte words of 8 halves (the
// tensor-core GEMM's _va / _vb and _clamped loads, attention's k and v words): the operand's
// rows are contiguous and every row and every start (offsets, batch strides) lies on a word.
#pragma once

#include <cstdint>
#include <initializer_list>

namespace vkinfer::ops {

inline constexpr int64_t kHalvesPerWord = 8;

inline bool onWord(int64_t elements) { return elements % kHalvesPerWord == 0; }

// unitStride: the stride along a row (1: contiguous); rowStride: between rows; starts: the
// element offsets and strides every other index adds.
inline bool rowsOfWords(int64_t unitStride, int64_t rowStride, std::initializer_list<int64_t> starts) {
    if (unitStride != 1 || !onWord(rowStride)) return false;
    for (int64_t s : starts)
        if (!onWord(s)) return false;
    return true;
}

}  // namespace vkinfer::ops
