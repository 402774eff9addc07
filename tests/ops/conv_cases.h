// Convolution cases shared by the kernel tests (coopmat_test.cpp: tensor cores,
// register_tiled_conv_test.cpp: 8x8-per-invocation tiles): one Conv node with optional bias,
// residual Add and Relu, its inputs, and the kernels a plan picks for it on a described device.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ops/op_harness.h"
#include "vkinfer/plan.h"

namespace vkinfer::testing {

using Shape = std::vector<int64_t>;

// As fp16_test.cpp: one rounding of the output to float16 and float16 operands; the sums are
// float32 (the CPU reference: double). Long reductions (K in the thousands) add more.
Tolerance coopmatTolerance();

// Pseudo-random values in [-1, 1], rounded to float16 (so float16 runs see the same operands).
Tensor rnd(const Shape& s, const std::string& what);

struct ConvCase {
    std::string what;
    Shape x;                                        // N, C, H, W
    int64_t m, k, stride = 1, group = 1, pad = -1;  // pad -1: k / 2
    bool bias = true, residual = false, relu = false;
    bool toChannelsLast = false;  // a Transpose(0, 2, 3, 1) last (ConvNeXt, Swin's patch embedding)
};

OnnxBuilder convModel(const ConvCase& c);
std::vector<NamedTensor> inputsOf(const ConvCase& c, const OnnxBuilder& b);

// A device as plans see it: what it is and the kernel policy a session would apply.
struct DeviceDescription {
    DeviceFacts facts;
    KernelPolicy kernels;
};

// The plan at `precision` on `dev` as `vkinfer plan --json` reports it (a test failure and
// null when it cannot be planned).
nlohmann::json planReport(const OnnxBuilder& b, const InputShapes& shapes, const DeviceDescription& dev,
                          Precision precision = Precision::Float16);
// Every kernel of the plan at `precision` on `dev`, in schedule order.
std::vector<std::string> planKernels(const OnnxBuilder& b, const InputShapes& shapes, const DeviceDescription& dev,
                                     Precision precision = Precision::Float16);
// The conv kernels of the plan on `device`.
std::vector<std::string> convKernels(const OnnxBuilder& b, const std::vector<NamedTensor>& inputs,
                                     const DeviceDescription& device, Precision precision = Precision::Float16);

// One case of a kernel test's table in one precision (parameterized tests), every case in
// both, and the test name ("case3_fp16").
struct ConvRun {
    size_t index;
    Precision precision;
};
std::vector<ConvRun> inBothPrecisions(size_t cases);
std::string convRunName(const ::testing::TestParamInfo<ConvRun>& info);

// The GPU kernels forced on any device (KernelPolicy::convTiles = Large; with the tensor
// cores emulated if asked), against the CPU reference at the precision's tolerance. `direct`:
// Always puts the direct kernels (conv2d_cmd, conv2d_rtd) wherever they can run (test maps are
// too small for the rules' grids), Off keeps the tests of the gathering kernels on them.
void expectGpuKernelsMatchCpu(const OnnxBuilder& b, const std::vector<NamedTensor>& inputs, const std::string& what,
                              Precision precision, bool emulateCooperativeMatrix = false,
                              DirectConv direct = DirectConv::Auto);
// The float16 model against the CPU on the emulated cooperative-matrix kernels, and on the
// tensor cores too where the device has them (with the portable tiles for what they reject,
// so that maps narrower than a fragment stay on the tensor cores too).
void expectEmulatedAndNativeMatchCpu(const OnnxBuilder& b, const std::vector<NamedTensor>& inputs,
                                     const std::string& what, DirectConv direct = DirectConv::Auto);
// One run with the GPU kernels forced on any device: the tiles (conv2d_small off, so that small
// maps reach the tiles and tensor cores), or conv2d_small where `smallGrid` lets it take the
// layer; the tensor cores emulated if asked.
void expectConvFamilyMatchesCpu(const OnnxBuilder& b, const std::vector<NamedTensor>& inputs, const std::string& what,
                                Precision precision, bool tensorCores, DirectConv direct, bool smallGrid);
// The model on every kernel family in turn (portable in float32 and float16, conv2d_small, the
// GPU tiles, the direct GPU tiles, the float16 tiles, the tensor cores emulated, gathering and
// direct), each against the CPU reference.
void expectEveryConvFamilyMatchesCpu(const OnnxBuilder& b, const std::vector<NamedTensor>& inputs,
                                     const std::string& what);
// Whether a tensor-core conv among `kernels` reads its input channels-last.
bool hasChannelsLastTensorCoreConv(const std::vector<std::string>& kernels);

// `d` with the direct kernels' policy set.
inline DeviceDescription withDirect(DeviceDescription d, DirectConv policy) {
    d.kernels.directConv = policy;
    return d;
}

// The H200 as a session describes it (docs/BENCHMARKS.md: a GPU with tensor cores, subgroup
// 32, 48 KiB shared memory), with the default policy.
DeviceDescription h200Description();

}  // namespace vkinfer::testing
