// How many output channels one invocation of conv_transpose.comp computes: the one choice the
// ConvTranspose lowering makes, a pure function of the problem (tested in
// tests/plan/kernel_selection_test.cpp).
#pragma once

#include <algorithm>
#include <cstdint>

namespace vkinfer::ops {

// Invocations below which the kernel keeps one output channel each: computing several reads
// each input once for all of them, but divides the invocations, and small layers need them
// to fill a GPU. Measured on the H200 (docs/BENCHMARKS.md, run 47): FSRCNN x2's deconvolution
// (32 -> 3 channels) at 960x540 took 4.36 ms with one channel per invocation and 1.89 ms with
// three (6.2 M outputs); at 48x64 (37 k outputs) three were slower, 0.220 against 0.189 ms.
inline constexpr int64_t kConvTransposeBlockMinInvocations = int64_t{1} << 17;

// Up to 4 channels of a group (`outputsPerGroup`), fewer where the launch would drop below
// kConvTransposeBlockMinInvocations; `outputs` counts every output element.
inline int64_t convTransposeChannelsPerInvocation(int64_t outputs, int64_t outputsPerGroup) {
    for (int64_t mb = std::min<int64_t>(4, outputsPerGroup); mb > 1; --mb)
        if (outputs / mb >= kConvTransposeBlockMinInvocations) return mb;
    return 1;
}

}  // namespace vkinfer::ops
