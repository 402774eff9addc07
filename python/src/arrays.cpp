// Arrays in and out without copies: inputs are tensors that borrow the caller's memory
// (Tensor::borrow, kept alive by a reference to the Python object), outputs are NumPy
// arrays that own the tensor's bytes.
#include <fmt/format.h>

#include <cstring>
#include <memory>

#include "binding.h"

namespace vkinfer::python {

namespace {

std::string typeName(py::handle obj) { return py::str(py::type::handle_of(obj).attr("__name__")); }

DataType dataTypeOf(const py::dtype& d, const std::string& what) {
    const size_t size = static_cast<size_t>(d.itemsize());
    if (d.byteorder() == '>')
        throw py::type_error(fmt::format("{}: dtype {} is big-endian; vkinfer reads little-endian (x.astype(x.dtype.newbyteorder('<')))",
                                         what, std::string(py::str(static_cast<py::handle>(d)))));
    switch (d.kind()) {
        case 'f':
            if (size == 2) return DataType::Float16;
            if (size == 4) return DataType::Float32;
            if (size == 8) return DataType::Float64;
            break;
        case 'i':
            if (size == 1) return DataType::Int8;
            if (size == 2) return DataType::Int16;
            if (size == 4) return DataType::Int32;
            if (size == 8) return DataType::Int64;
            break;
        case 'u':
            if (size == 1) return DataType::UInt8;
            if (size == 2) return DataType::UInt16;
            if (size == 4) return DataType::UInt32;
            if (size == 8) return DataType::UInt64;
            break;
        case 'b':
            if (size == 1) return DataType::Bool;
            break;
        default:
            break;
    }
    throw py::type_error(fmt::format("{}: dtype {} is not a tensor type vkinfer has (float16, float32, float64, int8 to "
                                     "int64, uint8 to uint64, bool)",
                                     what, std::string(py::str(static_cast<py::handle>(d)))));
}

// The object as a NumPy array without copying its memory where it can be read in place.
py::array asArray(py::handle obj, const std::string& what) {
    if (py::isinstance<py::array>(obj)) return py::reinterpret_borrow<py::array>(obj);
    if (py::hasattr(obj, "__dlpack__"))
        return py::module_::import("vkinfer._arrays").attr("from_dlpack")(obj, what).cast<py::array>();
    if (py::hasattr(obj, "__array_interface__") || py::hasattr(obj, "__array_struct__") || py::hasattr(obj, "__array__"))
        return py::module_::import("numpy").attr("asarray")(obj).cast<py::array>();
    throw py::type_error(fmt::format("{}: a {} is not an array (give a NumPy array, or an object with __dlpack__ or "
                                     "the array interface)",
                                     what, typeName(obj)));
}

}  // namespace

Tensor borrowTensor(py::handle obj, const std::string& what) {
    py::array array = asArray(obj, what);
    const DataType type = dataTypeOf(array.dtype(), what);
    std::vector<int64_t> shape(static_cast<size_t>(array.ndim()));
    for (size_t i = 0; i < shape.size(); ++i) shape[i] = static_cast<int64_t>(array.shape(static_cast<py::ssize_t>(i)));
    if (!(array.flags() & py::array::c_style)) {
        std::string strides;
        for (py::ssize_t i = 0; i < array.ndim(); ++i) strides += (i ? ", " : "") + std::to_string(array.strides(i));
        throw py::value_error(fmt::format("{}: the array is not C-contiguous (shape {}, strides ({}) bytes); "
                                          "numpy.ascontiguousarray(x) makes a contiguous copy",
                                          what, shapeToString(shape), strides));
    }
    if (!(array.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_)) {  // e.g. a view at an odd byte offset
        Tensor copy(type, shape);
        std::memcpy(copy.data(), array.data(), copy.byteSize());
        return copy;
    }
    auto* reference = new py::object(array);
    std::shared_ptr<const void> owner(reference, [](py::object* r) {
        py::gil_scoped_acquire gil;  // the last tensor may go inside a call that released it
        delete r;
    });
    return Tensor::borrow(type, std::move(shape), array.data(), std::move(owner));
}

std::vector<NamedTensor> borrowInputs(py::handle feed) {
    if (!py::isinstance<py::dict>(feed) && !py::hasattr(feed, "items"))
        throw py::type_error(fmt::format("inputs: expected a dict of input name -> array, got a {}", typeName(feed)));
    std::vector<NamedTensor> inputs;
    for (py::handle item : feed.attr("items")()) {
        py::tuple pair = py::reinterpret_borrow<py::tuple>(item);
        if (!py::isinstance<py::str>(pair[0]))
            throw py::type_error(fmt::format("inputs: a key is a {}, not an input name (str)", typeName(pair[0])));
        std::string name = pair[0].cast<std::string>();
        Tensor t = borrowTensor(pair[1], "input '" + name + "'");
        inputs.push_back({std::move(name), std::move(t)});
    }
    return inputs;
}

py::dtype toDtype(DataType type) {
    if (dataTypeSize(type) == 0)
        raise(ErrorCode::Unsupported, fmt::format("a {} tensor has no NumPy form in vkinfer", dataTypeName(type)));
    return py::dtype(dataTypeName(type));
}

py::array toArray(Tensor&& tensor) {
    py::dtype dtype = toDtype(tensor.dtype());
    auto holder = std::make_unique<Tensor>(std::move(tensor));
    std::vector<py::ssize_t> shape(holder->shape().begin(), holder->shape().end());
    void* data = holder->data();
    py::capsule base(holder.get(), [](void* p) { delete static_cast<Tensor*>(p); });
    holder.release();  // the capsule owns it now
    return py::array(dtype, std::move(shape), std::vector<py::ssize_t>{}, data, base);
}

py::dict toArrays(std::vector<NamedTensor>&& outputs) {
    py::dict d;
    for (auto& o : outputs) d[py::str(o.name)] = toArray(std::move(o.tensor));
    return d;
}

InputShapes toShapes(py::handle shapes) {
    InputShapes out;
    if (shapes.is_none()) return out;
    if (!py::isinstance<py::dict>(shapes) && !py::hasattr(shapes, "items"))
        throw py::type_error(fmt::format("shapes: expected a dict of input name -> list of dimensions, got a {}",
                                         typeName(shapes)));
    for (py::handle item : shapes.attr("items")()) {
        py::tuple pair = py::reinterpret_borrow<py::tuple>(item);
        if (!py::isinstance<py::str>(pair[0]))
            throw py::type_error(fmt::format("shapes: a key is a {}, not an input name (str)", typeName(pair[0])));
        const std::string name = pair[0].cast<std::string>();
        if (py::isinstance<py::str>(pair[1]) || !py::hasattr(pair[1], "__iter__"))
            throw py::type_error(fmt::format("shapes['{}']: expected a list of dimensions, got a {}", name, typeName(pair[1])));
        std::vector<int64_t> dims;
        for (py::handle d : pair[1]) {
            if (!py::hasattr(d, "__index__") || py::isinstance<py::bool_>(d))
                throw py::type_error(fmt::format("shapes['{}']: a dimension is a {}, not an integer", name, typeName(d)));
            py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(d.ptr()));
            if (!index) throw py::error_already_set();
            int overflow = 0;
            const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
            if (overflow) throw py::value_error(fmt::format("shapes['{}']: a dimension does not fit in 64 bits", name));
            if (v < 0) throw py::value_error(fmt::format("shapes['{}']: dimension {} is negative", name, v));
            dims.push_back(v);
        }
        out.emplace_back(name, std::move(dims));
    }
    return out;
}

py::object parseJson(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

}  // namespace vkinfer::python
