#include "core/host_alloc.h"

#include <limits>
#include <new>
#include <stdexcept>

#include "core/error.h"

namespace vkinfer {

int64_t checkedTensorBytes(DataType type, const std::vector<int64_t>& shape, const std::string& what) {
    int64_t bytes = static_cast<int64_t>(dataTypeSize(type));
    for (int64_t d : shape) {
        if (d < 0) fail(ErrorCode::InvalidArgument, "{}: shape {} has a negative dimension", what, shapeToString(shape));
        if (d != 0 && bytes > std::numeric_limits<int64_t>::max() / d)
            fail(ErrorCode::InvalidArgument, "{}: shape {} ({}) is too large to address", what, shapeToString(shape),
                 dataTypeName(type));
        bytes *= d;
    }
    return bytes;
}

Tensor allocateTensor(DataType type, const std::vector<int64_t>& shape, const std::string& what) {
    int64_t bytes = checkedTensorBytes(type, shape, what);
    try {
        return Tensor(type, shape);
    } catch (const std::bad_alloc&) {
    } catch (const std::length_error&) {
    }
    fail(ErrorCode::OutOfMemory, "{}: {} {} needs {} bytes of host memory, which could not be allocated", what,
         dataTypeName(type), shapeToString(shape), bytes);
}

}  // namespace vkinfer
