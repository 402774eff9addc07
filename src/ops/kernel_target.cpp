#include "ops/kernel_target.h"

namespace vkinfer::ops {

KernelTarget resolveKernelTarget(const DeviceFacts& facts, const KernelPolicy& policy) {
    KernelTarget t;
    t.facts = facts;
    t.emulateCooperativeMatrix = policy.emulateCooperativeMatrix;
    t.cooperativeMatrix = policy.emulateCooperativeMatrix ||
                          (policy.cooperativeMatrix && facts.cooperativeMatrix16 && facts.subgroupSize == 32);
    t.registerTiles = policy.convTiles == ConvTiles::Large || (policy.convTiles == ConvTiles::Auto && facts.gpu);
    t.registerDirectWhereItFits = policy.convTiles == ConvTiles::Auto && !facts.gpu;
    t.smallGrid = t.registerTiles && policy.smallGridConv != SmallGridConv::Off;
    t.smallGridAlways = t.smallGrid && policy.smallGridConv == SmallGridConv::FewTiles;
    t.directConv = policy.directConv;
    t.attentionKernel = t.cooperativeMatrix ? policy.attentionKernel : AttentionKernel::Portable;
    t.attentionKeySplit = policy.attentionKeySplit;
    return t;
}

}  // namespace vkinfer::ops
