// Host (CPU) tensors: the data a caller hands to a session and gets back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace vkinfer {

// Values match ONNX TensorProto.DataType so that files convert without a table.
enum class DataType : int32_t {
    Undefined = 0,
    Float32 = 1,
    UInt8 = 2,
    Int8 = 3,
    UInt16 = 4,
    Int16 = 5,
    Int32 = 6,
    Int64 = 7,
    String = 8,
    Bool = 9,
    Float16 = 10,
    Float64 = 11,
    UInt32 = 12,
    UInt64 = 13,
};

// Bytes per element; 0 for Undefined and String.
size_t dataTypeSize(DataType type);
// "float32", "int64", ...
const char* dataTypeName(DataType type);

// Product of the dimensions (1 for a scalar).
int64_t elementCount(const std::vector<int64_t>& shape);
// "1x3x224x224" ("scalar" for rank 0).
std::string shapeToString(const std::vector<int64_t>& shape);

// A dense, row-major tensor in host memory. Copyable value type.
class Tensor {
public:
    Tensor() = default;
    // Zero-filled tensor of the given type and shape.
    Tensor(DataType type, std::vector<int64_t> shape);

    template <class T>
    static Tensor fromVector(DataType type, std::vector<int64_t> shape, const std::vector<T>& values) {
        Tensor t(type, std::move(shape));
        std::memcpy(t.data(), values.data(), std::min(t.byteSize(), values.size() * sizeof(T)));
        return t;
    }

    DataType dtype() const { return dtype_; }
    const std::vector<int64_t>& shape() const { return shape_; }
    int64_t elementCount() const { return vkinfer::elementCount(shape_); }
    size_t byteSize() const { return bytes_.size(); }
    bool empty() const { return dtype_ == DataType::Undefined; }

    std::byte* data() { return bytes_.data(); }
    const std::byte* data() const { return bytes_.data(); }
    template <class T>
    T* as() { return reinterpret_cast<T*>(bytes_.data()); }
    template <class T>
    const T* as() const { return reinterpret_cast<const T*>(bytes_.data()); }

    // Reinterpret with a new shape of the same element count (returns false if it differs).
    bool reshape(std::vector<int64_t> shape);

    // Element i converted to double / int64 whatever the stored type (for shape tensors, tests).
    double getDouble(int64_t i) const;
    int64_t getInt(int64_t i) const;

private:
    DataType dtype_ = DataType::Undefined;
    std::vector<int64_t> shape_;
    std::vector<std::byte> bytes_;
};

struct NamedTensor {
    std::string name;
    Tensor tensor;
};

}  // namespace vkinfer
