// Host allocations that can fail with a message naming what was being allocated, instead of
// a bare std::bad_alloc (or a wrapped size_t) escaping from deep inside the library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vkinfer/tensor.h"

namespace vkinfer {

// Bytes of a dense tensor of this type and shape. Throws Error(InvalidArgument) naming `what`
// when a dimension is negative or the size does not fit in 63 bits.
int64_t checkedTensorBytes(DataType type, const std::vector<int64_t>& shape, const std::string& what);

// A zero-filled tensor; throws Error(OutOfMemory) "<what>: <shape> <type> needs N bytes of host
// memory, which could not be allocated" when the allocation fails.
Tensor allocateTensor(DataType type, const std::vector<int64_t>& shape, const std::string& what);

}  // namespace vkinfer
