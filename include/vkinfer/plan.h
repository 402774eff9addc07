// The execution plan of a model: dispatch schedule, barriers and memory, computed on the
// CPU without a GPU. `vkinfer plan` prints it.
#pragma once

#include <cstdint>
#include <string>

#include "vkinfer/model.h"
#include "vkinfer/status.h"

namespace vkinfer {

enum class SyncMode {
    Minimal,       // barriers derived from the hazards between dispatches (default)
    Conservative,  // a full compute barrier after every dispatch (for debugging)
};

enum class Precision {
    Float32,  // float32 tensors and arithmetic (default; the reference)
    // float16 storage of the float tensors (weights, activations), float32 arithmetic in the
    // kernels. Graph inputs and outputs stay float32 (converted on the GPU). Needs
    // storageBuffer16BitAccess and shaderFloat16. Accuracy per model: docs/BENCHMARKS.md.
    Float16,
};

const char* syncModeName(SyncMode mode);
const char* precisionName(Precision precision);  // "fp32" or "fp16", as the CLI spells them

// Which stride-1 convolutions run on a direct kernel (the input window staged in shared
// memory once instead of gathered per tap): conv2d_cmd on the tensor cores for float16,
// conv2d_rtd on GPUs (registerTiledConv) for float32. Auto by the measured rules (wide maps,
// kernels larger than 1x1; float32 also inputs of at least 8 channels), Off never, Always
// wherever they can run.
enum class DirectConv : uint8_t { Auto, Off, Always };

// What the device offers kernel selection. Planning stays a pure function of the model and
// this description: sessions fill it from their device (Session), `vkinfer plan` and
// planJson() use it as given (the default: no optional kernels), and tests describe devices
// they do not have (an H200, lavapipe) to check which kernels a plan gets there.
struct DeviceCapabilities {
    // 16x16x16 float16 x float16 -> float32 cooperative matrices at subgroup scope, with a
    // subgroup size of 32 (VK_NV_cooperative_matrix): tensor-core Conv/Gemm/MatMul kernels
    // for float16 tensors.
    bool cooperativeMatrix16 = false;
    // Testing only: the cooperative-matrix kernels with the matrix operations emulated in
    // plain GLSL, on any device (slow; for their indexing and epilogues on lavapipe).
    bool emulateCooperativeMatrix = false;
    uint32_t subgroupSize = 0;          // 0: unknown
    uint32_t sharedMemoryBytes = 16384; // maxComputeSharedMemorySize (16 KiB: every device)
    bool float16Arithmetic = false;     // shaderFloat16
    // Float convolutions in 8x8-per-invocation tiles (conv2d_rt), for GPUs; CPU
    // implementations such as lavapipe keep the 4x4 kernels (conv2d.comp). Sessions set it for
    // devices whose type is not CPU (SessionOptions::convTiles).
    bool registerTiledConv = false;
    // Float convolutions too small to fill a GPU with output tiles (fewer 64x64 tiles than it
    // has multiprocessors: 1x1 convs on 14x14 and 7x7 maps, squeeze-excitation convs) with
    // their reduction split across a workgroup (conv2d_small), ahead of the tensor cores and
    // the tiles. Sessions set it with registerTiledConv.
    bool smallGridConv = false;
    // minStorageBufferOffsetAlignment (at least 16 is used): where a tensor stored inside
    // another may begin, i.e. an in-place Concat input or a Slice/Split output that is a view
    // of its input. The default suits every device.
    uint32_t storageBufferOffsetAlignment = 64;
    // Whether the direct convolution kernels may run (sessions: the environment variable
    // VKINFER_DIRECT_CONV=auto|off|always, for comparisons).
    DirectConv directConv = DirectConv::Auto;
};

struct PlanOptions {
    SyncMode sync = SyncMode::Minimal;
    Precision precision = Precision::Float32;
    // Byte alignment of every tensor that has storage of its own (arena, weights); tensors
    // stored inside another follow DeviceCapabilities::storageBufferOffsetAlignment. Sessions
    // use the larger of this and the device's minStorageBufferOffsetAlignment.
    uint32_t alignment = 64;
    DeviceCapabilities device;
};

struct PlanSummary {
    size_t dispatches = 0;
    size_t barriers = 0;
    // The fewest barriers any placement can reach: the longest chain of dependent
    // dispatches minus one (waves - 1).
    size_t barrierLowerBound = 0;
    size_t waves = 0;
    uint64_t arenaBytes = 0;         // the planned intermediate arena
    uint64_t intermediateBytes = 0;  // sum of all non-view intermediates (no-reuse baseline)
    uint64_t weightBytes = 0;
};

// Compiles the plan for the given input shapes (see Model::resolveShapes) and returns it as
// JSON (format in docs/CLI.md) and/or a summary.
Result<std::string> planJson(const Model& model, const InputShapes& shapes, const PlanOptions& options = {});
// A listing for people: one line per dispatch with its wave, and each barrier with its hazards.
Result<std::string> planText(const Model& model, const InputShapes& shapes, const PlanOptions& options = {});
Result<PlanSummary> planSummary(const Model& model, const InputShapes& shapes, const PlanOptions& options = {});

}  // namespace vkinfer
