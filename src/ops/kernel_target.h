// What kernel selection sees of the device: its facts (PlanOptions::device) with the kernel
// policy (PlanOptions::kernels) resolved against them. Every selection rule (conv/select.h,
// gemm/select.h) reads this and nothing else about the device, so a plan stays a pure function
// of the graph and these two descriptions.
#pragma once

#include "vkinfer/plan.h"

namespace vkinfer::ops {

struct KernelTarget {
    DeviceFacts facts;
    // Cooperative-matrix (tensor-core) kernels for float16 products: the device has 16x16x16
    // float16 -> float32 matrices at a subgroup size of 32 and the policy allows them, or the
    // policy emulates them (testing).
    bool cooperativeMatrix = false;
    bool emulateCooperativeMatrix = false;
    // Float convolutions off the tensor cores in 8x8-per-invocation tiles (conv2d_rt and its
    // direct twin conv2d_rtd) rather than the portable 4x4 ones (conv2d.comp).
    bool registerTiles = false;
    // On CPU implementations at ConvTiles::Auto the float32 register-direct conv (conv2d_rtd)
    // runs wherever it fits, RGB stems and small maps included: on lavapipe it beat or matched
    // the portable tiles on every model measured, most on wide maps (docs/BENCHMARKS.md,
    // lavapipe). With the register tiles it runs where its rule says it pays.
    bool registerDirectWhereItFits = false;
    // Layers too small for tiles split their reduction across a workgroup (conv2d_small);
    // smallGridAlways: by the few-tiles rule alone, also where the tensor cores could run.
    bool smallGrid = false;
    bool smallGridAlways = false;
    DirectConv directConv = DirectConv::Auto;
    // Which kernel fused float16 attention may take: Portable where the cooperative matrices
    // are not there, else the policy's.
    AttentionKernel attentionKernel = AttentionKernel::Portable;
    // The tensor-core attention may split long key chains between warp groups (KernelPolicy).
    bool attentionKeySplit = false;

    // conv2d_rtd may run at all (by its rule or wherever it fits).
    bool registerDirect() const { return registerTiles || registerDirectWhereItFits; }
    // The tensor-core variant suffix: "_emu" (emulated in plain GLSL) or "_nv".
    const char* coopmatSuffix() const { return emulateCooperativeMatrix ? "_emu" : "_nv"; }
};

// ConvTiles::Auto takes the register tiles on GPUs; on CPU implementations such as lavapipe
// the register-direct float32 conv wherever it fits and the portable tiles for the rest
// (measured: docs/BENCHMARKS.md); small-grid convs come with the register tiles unless the
// policy turns them off.
KernelTarget resolveKernelTarget(const DeviceFacts& facts, const KernelPolicy& policy);

}  // namespace vkinfer::ops
