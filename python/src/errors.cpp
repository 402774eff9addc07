// Failed Status values and the CLI's errors become the vkinfer.Error subclass of their code.
#include <common.h>

#include "binding.h"

namespace vkinfer::python {

namespace {

void setError(const Status& s, const std::string& message) {
    py::object classes = py::module_::import("vkinfer._errors").attr("BY_CODE");
    py::object cls = classes.attr("get")(static_cast<int>(s.code()), py::module_::import("vkinfer._errors").attr("Error"));
    py::object error = cls(message, s.vkResult());
    PyErr_SetObject(cls.ptr(), error.ptr());
}

}  // namespace

void registerErrors() {
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const StatusError& e) {
            setError(e.status, e.status.message());
        } catch (const cli::CliError& e) {
            // bench() and upscale() run the CLI's code: its failures keep the library's code.
            setError(e.status(), e.status().message());
        }
    });
}

}  // namespace vkinfer::python
