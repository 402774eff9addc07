#include "vkinfer/tensor.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "core/half.h"

namespace vkinfer {

size_t dataTypeSize(DataType type) {
    switch (type) {
        case DataType::Float32: return 4;
        case DataType::UInt8: return 1;
        case DataType::Int8: return 1;
        case DataType::UInt16: return 2;
        case DataType::Int16: return 2;
        case DataType::Int32: return 4;
        case DataType::Int64: return 8;
        case DataType::Bool: return 1;
        case DataType::Float16: return 2;
        case DataType::Float64: return 8;
        case DataType::UInt32: return 4;
        case DataType::UInt64: return 8;
        case DataType::String:
        case DataType::Undefined: return 0;
    }
    return 0;
}

const char* dataTypeName(DataType type) {
    switch (type) {
        case DataType::Undefined: return "undefined";
        case DataType::Float32: return "float32";
        case DataType::UInt8: return "uint8";
        case DataType::Int8: return "int8";
        case DataType::UInt16: return "uint16";
        case DataType::Int16: return "int16";
        case DataType::Int32: return "int32";
        case DataType::Int64: return "int64";
        case DataType::String: return "string";
        case DataType::Bool: return "bool";
        case DataType::Float16: return "float16";
        case DataType::Float64: return "float64";
        case DataType::UInt32: return "uint32";
        case DataType::UInt64: return "uint64";
    }
    switch (static_cast<int>(type)) {  // ONNX types vkinfer does not represent
        case 14: return "complex64";
        case 15: return "complex128";
        case 16: return "bfloat16";
        case 17: return "float8e4m3fn";
        case 18: return "float8e4m3fnuz";
        case 19: return "float8e5m2";
        case 20: return "float8e5m2fnuz";
        case 21: return "uint4";
        case 22: return "int4";
        case 23: return "float4e2m1";
        case 24: return "float8e8m0";
        case 25: return "uint2";
        case 26: return "int2";
        default: return "unknown";
    }
}

int64_t elementCount(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

std::string shapeToString(const std::vector<int64_t>& shape) {
    if (shape.empty()) return "scalar";
    std::string s;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) s += 'x';
        s += shape[i] < 0 ? std::string("?") : std::to_string(shape[i]);
    }
    return s;
}

Tensor::Tensor(DataType type, std::vector<int64_t> shape)
    : dtype_(type), shape_(std::move(shape)),
      bytes_(static_cast<size_t>(vkinfer::elementCount(shape_)) * dataTypeSize(type)) {}

Tensor Tensor::borrow(DataType type, std::vector<int64_t> shape, const void* bytes, std::shared_ptr<const void> owner) {
    Tensor t;
    t.dtype_ = type;
    t.shape_ = std::move(shape);
    t.viewBytes_ = static_cast<size_t>(vkinfer::elementCount(t.shape_)) * dataTypeSize(type);
    t.owner_ = std::move(owner);
    // A zero-byte tensor has nothing to borrow (and `bytes` may be null): it owns its empty storage.
    if (t.viewBytes_ > 0) t.view_ = static_cast<const std::byte*>(bytes);
    else t.owner_.reset();
    return t;
}

void Tensor::ownBytes() {
    // May throw std::bad_alloc: the tensor is left borrowing, unchanged.
    std::vector<std::byte> copy(view_, view_ + viewBytes_);
    bytes_ = std::move(copy);
    view_ = nullptr;
    viewBytes_ = 0;
    owner_.reset();
}

bool Tensor::reshape(std::vector<int64_t> shape) {
    if (vkinfer::elementCount(shape) != elementCount()) return false;
    shape_ = std::move(shape);
    return true;
}

template <class T>
static T load(const std::byte* p, int64_t i) {
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof(T));
    return v;
}

double Tensor::getDouble(int64_t i) const {
    const std::byte* p = data();
    switch (dtype_) {
        case DataType::Float32: return load<float>(p, i);
        case DataType::Float64: return load<double>(p, i);
        case DataType::Float16: return halfToFloat(load<uint16_t>(p, i));
        case DataType::Int8: return load<int8_t>(p, i);
        case DataType::UInt8: return load<uint8_t>(p, i);
        case DataType::Int16: return load<int16_t>(p, i);
        case DataType::UInt16: return load<uint16_t>(p, i);
        case DataType::Int32: return load<int32_t>(p, i);
        case DataType::UInt32: return load<uint32_t>(p, i);
        case DataType::Int64: return static_cast<double>(load<int64_t>(p, i));
        case DataType::UInt64: return static_cast<double>(load<uint64_t>(p, i));
        case DataType::Bool: return load<uint8_t>(p, i) ? 1.0 : 0.0;
        default: return 0;
    }
}

int64_t Tensor::getInt(int64_t i) const {
    const std::byte* p = data();
    switch (dtype_) {
        case DataType::Int64: return load<int64_t>(p, i);
        case DataType::UInt64: return static_cast<int64_t>(load<uint64_t>(p, i));
        case DataType::Int32: return load<int32_t>(p, i);
        case DataType::UInt32: return load<uint32_t>(p, i);
        case DataType::Int16: return load<int16_t>(p, i);
        case DataType::UInt16: return load<uint16_t>(p, i);
        case DataType::Int8: return load<int8_t>(p, i);
        case DataType::UInt8: return load<uint8_t>(p, i);
        case DataType::Bool: return load<uint8_t>(p, i) ? 1 : 0;
        default: {
            // A float read as an integer (a model giving pads or a shape as floats): converting
            // NaN or a value outside int64 is undefined, so NaN reads 0 and the rest saturate.
            double v = getDouble(i);
            if (std::isnan(v)) return 0;
            if (v >= 0x1p63) return std::numeric_limits<int64_t>::max();
            if (v < -0x1p63) return std::numeric_limits<int64_t>::min();
            return static_cast<int64_t>(v);
        }
    }
}

}  // namespace vkinfer
