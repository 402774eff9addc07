// The environment variables that adjust vkinfer, read in this one place by one rule: a
// variable sets what its option leaves at the default (Auto, or off); an option set in code
// wins; a value the variable does not take throws InvalidArgument naming the variable, the
// value and the values it takes (an empty variable counts as unset). docs/CLI.md,
// "Environment", lists them.
#pragma once

#include "vkinfer/plan.h"

namespace vkinfer::env {

// VKINFER_CONV_TILES=auto|small|large sets KernelPolicy::convTiles, VKINFER_DIRECT_CONV=
// auto|off|always KernelPolicy::directConv, each where the policy has Auto.
KernelPolicy applyToKernelPolicy(KernelPolicy policy);

// VKINFER_VALIDATE: any value but "0" turns the validation layer on where the option is off.
bool validate(bool option);

// VKINFER_COOPMAT=auto|nv: nv keeps the NV form of the tensor-core kernels where a device
// offers both VK_NV_ and VK_KHR_cooperative_matrix (to compare them).
bool preferNvCooperativeMatrix();

}  // namespace vkinfer::env
