#include "io/onnx_tensor.h"

#include <cstring>

#include "core/error.h"
#include "io/external_data.h"

namespace vkinfer::io {

namespace {

template <class Dst, class Field>
void copyTyped(Tensor& t, const Field& field, const std::string& what) {
    if (static_cast<int64_t>(field.size()) != t.elementCount())
        fail(ErrorCode::ParseError, "tensor '{}': {} values stored for shape {} ({} expected)", what, field.size(),
             shapeToString(t.shape()), t.elementCount());
    Dst* out = t.as<Dst>();
    for (int i = 0; i < field.size(); ++i) out[i] = static_cast<Dst>(field.Get(i));
}

// Number of values stored in the typed field that `type` uses (ONNX TensorProto rules).
int64_t typedFieldSize(const onnx::TensorProto& proto, DataType type) {
    switch (type) {
        case DataType::Float32: return proto.float_data_size();
        case DataType::Float64: return proto.double_data_size();
        case DataType::Int64: return proto.int64_data_size();
        case DataType::UInt64:
        case DataType::UInt32: return proto.uint64_data_size();
        default: return proto.int32_data_size();
    }
}

}  // namespace

uint64_t checkedByteSize(const std::vector<int64_t>& dims, DataType type, const std::string& what) {
    int64_t n = static_cast<int64_t>(dataTypeSize(type));
    for (int64_t d : dims) {
        if (d < 0) fail(ErrorCode::ParseError, "tensor {} has a negative dimension ({})", what, shapeToString(dims));
        if (__builtin_mul_overflow(n, d, &n))
            fail(ErrorCode::ParseError, "tensor {}: shape {} is too large", what, shapeToString(dims));
    }
    return static_cast<uint64_t>(n);
}

void normalizeBools(Tensor& t) {
    if (t.dtype() != DataType::Bool) return;
    uint8_t* b = reinterpret_cast<uint8_t*>(t.data());
    for (size_t i = 0; i < t.byteSize(); ++i) b[i] = b[i] != 0;
}

namespace {

Tensor decodeTensor(const onnx::TensorProto& proto, const std::string& what, ExternalData* external) {
    // ONNX readers go by data_location alone (external_data entries without it are ignored).
    const bool isExternal = proto.data_location() == onnx::TensorProto::EXTERNAL;
    auto type = static_cast<DataType>(proto.data_type());
    // data_type 0 (UNDEFINED) is what a proto cut before its data_type field parses as:
    // a malformed tensor rather than an unsupported type.
    if (proto.data_type() == 0) fail(ErrorCode::ParseError, "tensor '{}' has no data type (truncated?)", what);
    if (dataTypeSize(type) == 0)
        fail(ErrorCode::Unsupported, "tensor '{}' has unsupported data type {}", what, proto.data_type());
    std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
    // Sizes are checked against the stored data before allocating: a corrupt or hostile
    // file claiming a huge shape used to fail with "out of host memory" (Internal), or wrap
    // around to a tiny tensor when the element count overflowed int64.
    const uint64_t bytes = checkedByteSize(dims, type, "'" + what + "'");
    if (isExternal) {
        if (!external) {
            std::string location = "(none)";
            for (const auto& kv : proto.external_data())
                if (kv.key() == "location") location = kv.value();
            fail(ErrorCode::Unsupported,
                 "tensor '{}' keeps its data in the external file '{}', which is only read for a model's tensors", what,
                 location);
        }
        return external->read(proto, type, dims, bytes, what);
    }
    if (proto.has_raw_data()) {
        const std::string& raw = proto.raw_data();
        if (raw.size() != bytes)
            fail(ErrorCode::ParseError, "tensor '{}': raw data holds {} bytes, shape {} of {} needs {}", what,
                 raw.size(), shapeToString(dims), dataTypeName(type), bytes);
        Tensor t(type, dims);
        std::memcpy(t.data(), raw.data(), raw.size());
        return t;
    }
    const int64_t count = static_cast<int64_t>(bytes / dataTypeSize(type));
    if (typedFieldSize(proto, type) != count)
        fail(ErrorCode::ParseError, "tensor '{}': {} values stored for shape {} ({} expected){}", what,
             typedFieldSize(proto, type), shapeToString(dims), count,
             proto.external_data_size() > 0 ? " (it has external_data entries, but its data_location is not EXTERNAL)"
                                            : "");
    Tensor t(type, dims);
    switch (type) {
        case DataType::Float32: copyTyped<float>(t, proto.float_data(), what); break;
        case DataType::Float64: copyTyped<double>(t, proto.double_data(), what); break;
        case DataType::Int64: copyTyped<int64_t>(t, proto.int64_data(), what); break;
        case DataType::UInt64:
        case DataType::UInt32: {
            if (type == DataType::UInt64) copyTyped<uint64_t>(t, proto.uint64_data(), what);
            else copyTyped<uint32_t>(t, proto.uint64_data(), what);
            break;
        }
        case DataType::Int32: copyTyped<int32_t>(t, proto.int32_data(), what); break;
        case DataType::Int16: copyTyped<int16_t>(t, proto.int32_data(), what); break;
        case DataType::UInt16:
        case DataType::Float16: copyTyped<uint16_t>(t, proto.int32_data(), what); break;
        case DataType::Int8: copyTyped<int8_t>(t, proto.int32_data(), what); break;
        case DataType::UInt8:
        case DataType::Bool: copyTyped<uint8_t>(t, proto.int32_data(), what); break;
        default: fail(ErrorCode::Unsupported, "tensor '{}' has unsupported data type {}", what, dataTypeName(type));
    }
    return t;
}

}  // namespace

Tensor tensorFromProto(const onnx::TensorProto& proto, const std::string& what, ExternalData* external) {
    Tensor t = decodeTensor(proto, what, external);
    normalizeBools(t);
    return t;
}

void tensorToProto(const Tensor& tensor, const std::string& name, onnx::TensorProto* proto) {
    proto->Clear();
    proto->set_name(name);
    proto->set_data_type(static_cast<int32_t>(tensor.dtype()));
    for (int64_t d : tensor.shape()) proto->add_dims(d);
    proto->set_raw_data(std::string(reinterpret_cast<const char*>(tensor.data()), tensor.byteSize()));
}

}  // namespace vkinfer::io
