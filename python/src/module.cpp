// vkinfer._vkinfer: the native half of the Python package (python/vkinfer/ is the rest).
#include <progress.h>

#include "binding.h"

PYBIND11_MODULE(_vkinfer, m) {
    using namespace vkinfer::python;
    m.doc() = "vkinfer's native module: use the vkinfer package, which re-exports it.";
    vkinfer::cli::progress::silence();  // the CLI's code runs here: no progress lines on stderr
    registerErrors();
    bindModel(m);
    bindContext(m);
    bindSession(m);
    bindPlan(m);
    bindImages(m);
    m.def("validation_requested_by_environment", &vkinfer::validationRequestedByEnvironment,
          "True when VKINFER_VALIDATE is set (to anything but '' or '0').");
    m.attr("__version__") = vkinfer::versionString();
}
