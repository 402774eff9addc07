#include <fmt/format.h>

#include "binding.h"

namespace vkinfer::python {

std::string pathOf(py::handle path) { return py::str(py::module_::import("os").attr("fspath")(path)); }

Precision toPrecision(const std::string& name) {
    if (name == "fp32" || name == "float32") return Precision::Float32;
    if (name == "fp16" || name == "float16") return Precision::Float16;
    throw py::value_error(fmt::format("precision '{}': expected 'fp32' or 'fp16'", name));
}

SyncMode toSync(const std::string& name) {
    if (name == "minimal") return SyncMode::Minimal;
    if (name == "conservative") return SyncMode::Conservative;
    throw py::value_error(fmt::format("sync '{}': expected 'minimal' or 'conservative'", name));
}

}  // namespace vkinfer::python
