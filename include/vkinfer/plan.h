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

// What the device is, as kernel selection needs to know it. Planning stays a pure function of
// the model, these facts and a KernelPolicy: sessions fill the facts from their device,
// `vkinfer plan` and planJson() use them as given (the default describes no device in
// particular: no optional kernels), and tests describe devices they do not have (an H200,
// lavapipe) to check which kernels a plan gets there.
struct DeviceFacts {
    // A GPU (discrete, integrated or virtual), not a CPU implementation such as lavapipe:
    // KernelPolicy::convTiles = Auto takes the GPU tiles here (on a CPU, the register-direct
    // float32 conv wherever it fits and the portable tiles elsewhere).
    bool gpu = false;
    // 16x16x16 float16 x float16 -> float32 cooperative matrices at subgroup scope
    // (VK_KHR_cooperative_matrix or VK_NV_cooperative_matrix, with its feature and the Vulkan
    // memory model enabled): tensor-core Conv/Gemm/MatMul kernels for float16 tensors, used
    // where subgroupSize is 32.
    bool cooperativeMatrix16 = false;
    uint32_t subgroupSize = 0;          // 0: unknown
    uint32_t sharedMemoryBytes = 16384; // maxComputeSharedMemorySize (16 KiB: every device)
    bool float16Arithmetic = false;     // shaderFloat16
    // minStorageBufferOffsetAlignment (at least 16 is used): where a tensor stored inside
    // another may begin, i.e. an in-place Concat input or a Slice/Split output that is a view
    // of its input. The default suits every device.
    uint32_t storageBufferOffsetAlignment = 64;
};

// Which tiles the float convolutions that do not run on cooperative matrices use: Auto takes
// 8x8 outputs per invocation on GPUs (conv2d_rt, conv2d_rtd); on CPU devices the float32
// direct kernel (conv2d_rtd) wherever it fits (ungrouped, stride 1, 3- or 5-wide windows) and
// the portable 4x4 tiles (conv2d.comp) for the rest. Small takes the portable tiles everywhere,
// Large the GPU kernels everywhere (to compare them, or to test the GPU kernels on lavapipe).
enum class ConvTiles : uint8_t { Auto, Small, Large };

// Which layers conv2d_small takes (with the GPU tiles): Auto by the measured rule
// (ops/conv/small_grid.h), Off none, FewTiles every layer with few output tiles and few
// multiply-adds, also where the tensor cores would take it by the rule (to compare them).
enum class SmallGridConv : uint8_t { Auto, Off, FewTiles };

// Which stride-1 convolutions run on a direct kernel (the input window staged in shared
// memory once instead of gathered per tap): conv2d_cmd on the tensor cores for float16,
// conv2d_rtd with the GPU tiles for float32. Auto by the measured rules (wide maps, kernels
// larger than 1x1; float32 also inputs of at least 8 channels; on CPU devices at
// ConvTiles::Auto, wherever conv2d_rtd fits), Off never, Always wherever they can run.
enum class DirectConv : uint8_t { Auto, Off, Always };

// Which kernel runs fused float16 attention on a device with cooperative matrices: Auto the
// tensor-core kernel (shaders/attention_cm.comp) where it measured faster, heads of 16 or
// more (ops/attention_select.h; docs/BENCHMARKS.md), else the portable one
// (shaders/attention.comp, float32 arithmetic); Portable always that; Coopmat the tensor-core
// kernel wherever it fits (heads up to 128).
enum class AttentionKernel : uint8_t { Auto, Portable, Coopmat };

// What to use where several kernels can run: the user's or a test's choice, never read off
// the device. Sessions take it from SessionOptions::kernels, with the environment variables
// of docs/CLI.md ("Environment") applied to the fields left at their defaults.
struct KernelPolicy {
    // Cooperative-matrix (tensor-core) kernels where the device has them and a layer fits
    // (float16 tensors: Precision::Float16 or a float16 model). false: the other kernels only,
    // e.g. to compare them.
    bool cooperativeMatrix = true;
    // Testing only: the cooperative-matrix kernels with the matrix operations emulated in
    // plain GLSL, on any device (slow; for their indexing and epilogues on lavapipe).
    bool emulateCooperativeMatrix = false;
    ConvTiles convTiles = ConvTiles::Auto;
    // With the GPU tiles: float convolutions too small to fill a GPU with output tiles (fewer
    // 64x64 tiles than it has multiprocessors: 1x1 convs on 14x14 and 7x7 maps,
    // squeeze-excitation convs, the narrow convs of small restoration nets) split their
    // reduction across a workgroup (conv2d_small), ahead of the tensor cores and the tiles.
    // Off: they take the tiles or the tensor cores.
    SmallGridConv smallGridConv = SmallGridConv::Auto;
    DirectConv directConv = DirectConv::Auto;
    // 2-D transposed convolutions run as one ordinary convolution of their output phases and a
    // pixel shuffle (the sub-pixel decomposition, passes/subpixel_deconv.h) where that costs at
    // most 4x the multiply-adds; false: every ConvTranspose on its gathering kernel
    // (conv_transpose.comp), to compare them. VKINFER_DECONV=gather sets false.
    bool subPixelDeconv = true;
    // Chains and small DAGs of element-wise float operations (Add, Mul, Div, Erf, Sqrt, Tanh,
    // ...) run as one pointwise kernel each, constants of one element folded into the program
    // (passes/pointwise_fusion.h), and a LayerNormalization written out as ReduceMean, Sub,
    // Pow, ReduceMean, Add, Sqrt, Div, Mul, Add becomes one, as does one between a permute of
    // the channels last and back (LayerNorm2d). false: each node its own dispatch, to compare
    // them. VKINFER_FUSE_POINTWISE=off sets false.
    bool fusePointwise = true;
    // Attention as exporters write it (MatMul(Q, K^T), a scale, optional added bias or mask,
    // Softmax over the keys, MatMul with V; the head reshapes and transposes around it read
    // through strides) runs as one kernel with an online softmax (passes/attention_fusion.h):
    // the scores never reach memory. false: the nodes as they are, to compare them.
    // VKINFER_FUSE_ATTENTION=off sets false.
    bool fuseAttention = true;
    // Which kernel runs fused float16 attention where the device has cooperative matrices
    // (float32 always runs the portable one). VKINFER_ATTENTION=portable|coopmat sets it when
    // left at Auto.
    AttentionKernel attentionKernel = AttentionKernel::Auto;
    // The tensor-core attention over many keys and few query rows (at least four blocks of 32
    // keys, fewer than 512 warps of 16 query rows over all heads: ViT-B/16 at batch 1) splits
    // the keys between up to four groups of warps on the same rows, which combine their
    // softmax sums at the end (ops/attention_select.h): more warps, each with a shorter chain
    // (ViT-B/16 fp16 on an H100: 0.970 of the time without, docs/BENCHMARKS.md run 65).
    // false: one group of warps walks all the keys, to compare them.
    // VKINFER_ATTENTION_SPLIT=off sets false.
    bool attentionKeySplit = true;
    // A Cast between float32 and float16 next to a Pad, DepthToSpace, SpaceToDepth or
    // Transpose (Precision::Float16's casts of the graph's inputs and outputs, mostly) is done
    // by that copy as it moves the elements, with the same rounding (passes/cast_folding.h):
    // one dispatch and one pass over the tensor fewer. false: the Casts run on their own, to
    // compare them. VKINFER_FOLD_CASTS=off sets false.
    bool foldCasts = true;
};

// `policy` with the environment variables of docs/CLI.md ("Environment") applied to the
// fields it leaves at their defaults, as sessions apply them: for planning without a session
// (planJson, planText, planSummary) what a session would run. InvalidArgument names a
// variable with a value it does not take.
Result<KernelPolicy> kernelPolicyFromEnvironment(KernelPolicy policy = {});

struct PlanOptions {
    SyncMode sync = SyncMode::Minimal;
    Precision precision = Precision::Float32;
    // Byte alignment of every tensor that has storage of its own (arena, weights); tensors
    // stored inside another follow DeviceFacts::storageBufferOffsetAlignment. Sessions use the
    // larger of this and the device's minStorageBufferOffsetAlignment.
    uint32_t alignment = 64;
    DeviceFacts device;
    KernelPolicy kernels;
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
// JSON (format in docs/CLI.md) and/or a summary. Inputs with a default that `shapes` does not
// name are planned with their defaults as constants (as a run that leaves them out).
Result<std::string> planJson(const Model& model, const InputShapes& shapes, const PlanOptions& options = {});
// A listing for people: one line per dispatch with its wave, and each barrier with its hazards.
Result<std::string> planText(const Model& model, const InputShapes& shapes, const PlanOptions& options = {});
Result<PlanSummary> planSummary(const Model& model, const InputShapes& shapes, const PlanOptions& options = {});

}  // namespace vkinfer
