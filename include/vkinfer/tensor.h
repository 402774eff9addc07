// Host (CPU) tensors: the data a caller hands to a session and gets back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
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
//
// A tensor either owns its bytes or borrows read-only bytes that someone else keeps alive
// (Tensor::borrow: a model's weights read in place from a memory-mapped external data file).
// Borrowing is invisible to users of the class: the const accessors read the borrowed bytes,
// copies share them, and the first non-const data() or as<T>() copies them into storage of
// the tensor's own (copy on write), so writing never reaches the borrowed memory. Pointers
// from the const accessors of a borrowed tensor stay valid while some tensor still borrows
// the bytes (or the owner is otherwise kept alive), not merely while this tensor exists.
class Tensor {
public:
    Tensor() = default;
    // Zero-filled tensor of the given type and shape.
    Tensor(DataType type, std::vector<int64_t> shape);
    Tensor(const Tensor&) = default;
    Tensor& operator=(const Tensor&) = default;
    // A moved-from tensor neither owns nor borrows bytes (as a moved-from vector is empty).
    Tensor(Tensor&& o) noexcept
        : dtype_(o.dtype_), shape_(std::move(o.shape_)), bytes_(std::move(o.bytes_)),
          view_(std::exchange(o.view_, nullptr)), viewBytes_(std::exchange(o.viewBytes_, 0)),
          owner_(std::move(o.owner_)) {}
    Tensor& operator=(Tensor&& o) noexcept {
        dtype_ = o.dtype_;
        shape_ = std::move(o.shape_);
        bytes_ = std::move(o.bytes_);
        view_ = std::exchange(o.view_, nullptr);
        viewBytes_ = std::exchange(o.viewBytes_, 0);
        owner_ = std::move(o.owner_);
        return *this;
    }

    template <class T>
    static Tensor fromVector(DataType type, std::vector<int64_t> shape, const std::vector<T>& values) {
        Tensor t(type, std::move(shape));
        if (!values.empty()) std::memcpy(t.data(), values.data(), std::min(t.byteSize(), values.size() * sizeof(T)));
        return t;
    }

    // A tensor that reads its elementCount x dataTypeSize bytes at `bytes` in place, without
    // copying them. `owner` keeps that memory alive and unchanged; the tensor and every copy
    // of it hold a reference to it. `bytes` must be aligned to the element size.
    static Tensor borrow(DataType type, std::vector<int64_t> shape, const void* bytes,
                         std::shared_ptr<const void> owner);
    // True while the tensor reads borrowed bytes (before any non-const access).
    bool borrowed() const { return view_ != nullptr; }

    DataType dtype() const { return dtype_; }
    const std::vector<int64_t>& shape() const { return shape_; }
    int64_t elementCount() const { return vkinfer::elementCount(shape_); }
    size_t byteSize() const { return view_ ? viewBytes_ : bytes_.size(); }
    bool empty() const { return dtype_ == DataType::Undefined; }

    std::byte* data() {
        if (view_) ownBytes();
        return bytes_.empty() ? noBytes() : bytes_.data();
    }
    const std::byte* data() const { return view_ ? view_ : bytes_.empty() ? noBytes() : bytes_.data(); }
    template <class T>
    T* as() { return reinterpret_cast<T*>(data()); }
    template <class T>
    const T* as() const { return reinterpret_cast<const T*>(data()); }

    // Reinterpret with a new shape of the same element count (returns false if it differs).
    bool reshape(std::vector<int64_t> shape);

    // Element i converted to double / int64 whatever the stored type (for shape tensors, tests).
    double getDouble(int64_t i) const;
    int64_t getInt(int64_t i) const;

private:
    void ownBytes();  // copy borrowed bytes into bytes_ and stop borrowing
    // data() of a tensor without bytes: a valid pointer to none rather than null, so that
    // memcpy/memcmp of its 0 bytes is defined (UBSan reports null even for 0 bytes).
    static std::byte* noBytes() {
        alignas(16) static std::byte none[16];
        return none;
    }

    DataType dtype_ = DataType::Undefined;
    std::vector<int64_t> shape_;
    std::vector<std::byte> bytes_;
    // Borrowed bytes (view_ non-null): viewBytes_ of them, kept alive by owner_.
    const std::byte* view_ = nullptr;
    size_t viewBytes_ = 0;
    std::shared_ptr<const void> owner_;
};

struct NamedTensor {
    std::string name;
    Tensor tensor;
};

}  // namespace vkinfer
