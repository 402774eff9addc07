// What the pieces of the native module (vkinfer._vkinfer) share: errors on their way to
// Python, arrays in and out, and the option spellings.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <vkinfer/vkinfer.h>

#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace vkinfer::python {

// A failed Status thrown through pybind11, which raises it as the vkinfer.Error subclass of
// its code (vkinfer/_errors.py). Thrown with the GIL held or not: the translation happens
// once pybind11 holds it again.
struct StatusError : std::exception {
    explicit StatusError(Status s) : status(std::move(s)) {}
    const char* what() const noexcept override { return status.message().c_str(); }
    Status status;
};

[[noreturn]] inline void raise(ErrorCode code, std::string message) { throw StatusError(Status(code, std::move(message))); }
inline void check(const Status& s) {
    if (!s.ok()) throw StatusError(s);
}
template <class T>
T unwrap(Result<T>&& r) {
    if (!r.ok()) throw StatusError(r.status());
    return std::move(r).value();
}

// errors.cpp: the translators of StatusError and of the CLI's errors.
void registerErrors();

// arrays.cpp
// A tensor reading the memory of `obj` in place: a NumPy array (C-contiguous, a type vkinfer
// has), an object with __dlpack__ whose memory the host can read, or one with the array
// interface. TypeError for another type or an unsupported dtype, ValueError for a
// non-contiguous array or one in device memory; `what` names it ("input 'x'").
// The tensor keeps a reference to the object. Needs the GIL.
Tensor borrowTensor(py::handle obj, const std::string& what);
// name -> tensor for each item of a mapping of input names to arrays.
std::vector<NamedTensor> borrowInputs(py::handle feed);
// A NumPy array that owns the tensor's bytes (no copy; DLPack exports it).
py::array toArray(Tensor&& tensor);
// The outputs as a dict, in their order.
py::dict toArrays(std::vector<NamedTensor>&& outputs);
// {name: [dims]} -> InputShapes; ValueError for a negative dimension, TypeError for a non-integer.
InputShapes toShapes(py::handle shapes);
// The NumPy dtype of a vkinfer type.
py::dtype toDtype(DataType type);
// json.loads(text).
py::object parseJson(const std::string& text);

// context.cpp: a Context on device index `device` (None: the default choice).
Context makeContext(py::object device, bool validate);

// warnings.cpp: while alive, what the CLI's code warns about on this thread is collected
// instead of printed; issue() raises them as Python warnings (with the GIL held).
class CollectWarnings {
public:
    CollectWarnings();
    ~CollectWarnings();
    CollectWarnings(const CollectWarnings&) = delete;
    CollectWarnings& operator=(const CollectWarnings&) = delete;
    void issue();

private:
    std::vector<std::string> messages_;
    std::function<void(const std::string&)> previous_;
};

// options.cpp: os.fspath(path) (a str or an os.PathLike; TypeError otherwise).
std::string pathOf(py::handle path);
// "fp32"/"fp16", "minimal"/"conservative" (ValueError naming the value otherwise).
Precision toPrecision(const std::string& name);
SyncMode toSync(const std::string& name);

// One binding function per part of the API.
void bindModel(py::module_& m);
void bindContext(py::module_& m);
void bindSession(py::module_& m);
void bindPlan(py::module_& m);
void bindImages(py::module_& m);

}  // namespace vkinfer::python
