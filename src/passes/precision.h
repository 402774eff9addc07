// Reduced precision: PlanOptions::precision = Float16 stores the model's float tensors in
// float16 (kernels load float16, compute in float32 and store float16), halving weight,
// activation and bandwidth bytes. Runs after specialization and fusions, before lowering.
#pragma once

#include "graph/graph.h"

namespace vkinfer::passes {

struct PrecisionStats {
    int casts = 0;              // Cast nodes inserted
    int convertedConstants = 0;  // float32 constants given float16 copies
    int float16Values = 0;      // intermediate tensors now float16
};

// Rewrites `g` so that every node whose lowering handles float16 (ops::OpDef::fp16) runs on
// float16 tensors:
//  - every float32 tensor such a node produces becomes float16;
//  - its float32 constant operands are converted to float16 copies, except parameters the
//    lowering reads on the CPU (Resize scales and roi, Clip bounds, Pad's constant value,
//    Dropout's ratio, the statistics of a BatchNormalization folded at load time), which
//    stay float32;
//  - a float32 tensor it reads that is not a constant (a graph input, or the output of a node
//    that is not fp16-capable) goes through a Cast to float16;
//  - a node that is not fp16-capable reading a tensor this pass made float16 reads it through
//    a Cast back to float32.
// One Cast per (tensor, type), shared by every reader. Graph inputs and outputs keep their
// float32 type (the API is unchanged): an output produced in float16 keeps its name and is
// written by a final Cast to float32. Tensors that were float16 in the model, and other
// types, are left alone.
PrecisionStats convertToFloat16(graph::Graph& g);

}  // namespace vkinfer::passes
