// vkinfer.plan(), plan_text(), plan_summary(): plans compiled on the CPU, no device needed.
#include <inputs.h>

#include "binding.h"

namespace vkinfer::python {

namespace {

PlanOptions planOptions(const std::string& precision, const std::string& sync) {
    PlanOptions o;
    o.precision = toPrecision(precision);
    o.sync = toSync(sync);
    return o;
}

template <class F>
auto planned(const Model& model, py::handle shapes, const std::string& precision, const std::string& sync, F&& plan) {
    const PlanOptions o = planOptions(precision, sync);
    InputShapes given = toShapes(shapes);
    py::gil_scoped_release release;
    // As `vkinfer plan`: inputs with a default that `shapes` leaves out are planned as constants.
    const InputShapes all = cli::resolveShapesWithDefaults(model, model.label(), given);
    return unwrap(plan(model, all, o));
}

}  // namespace

void bindPlan(py::module_& m) {
    const char* args = R"(

model is a vkinfer.Model; shapes ({name: [dims]}) give the dynamic inputs' shapes (declared ones by
default, else those of test_data_set_0 beside the model file, as for the CLI). The plan describes no device in particular (no optional kernels): Session.plan() gives
the plan a session runs on its device.)";
    m.def("plan", [](const Model& model, py::handle shapes, const std::string& precision, const std::string& sync) {
        return parseJson(planned(model, shapes, precision, sync,
                                 [](const Model& md, const InputShapes& s, const PlanOptions& o) { return planJson(md, s, o); }));
    }, py::arg("model"), py::arg("shapes") = py::none(), py::kw_only(), py::arg("precision") = "fp32",
       py::arg("sync") = "minimal",
       (std::string("The execution plan as `vkinfer plan --json` prints it (docs/CLI.md), as a dict: dispatch schedule, "
                    "waves, barriers, memory.") + args).c_str());
    m.def("plan_text", [](const Model& model, py::handle shapes, const std::string& precision, const std::string& sync) {
        return planned(model, shapes, precision, sync,
                       [](const Model& md, const InputShapes& s, const PlanOptions& o) { return planText(md, s, o); });
    }, py::arg("model"), py::arg("shapes") = py::none(), py::kw_only(), py::arg("precision") = "fp32",
       py::arg("sync") = "minimal",
       (std::string("The plan for people, as `vkinfer plan` prints it: one line per dispatch, barriers with their "
                    "hazards.") + args).c_str());
    m.def("plan_summary", [](const Model& model, py::handle shapes, const std::string& precision, const std::string& sync) {
        const PlanSummary s = planned(model, shapes, precision, sync,
                                      [](const Model& md, const InputShapes& sh, const PlanOptions& o) { return planSummary(md, sh, o); });
        py::dict d;
        d["dispatches"] = s.dispatches;
        d["barriers"] = s.barriers;
        d["barrier_lower_bound"] = s.barrierLowerBound;
        d["waves"] = s.waves;
        d["arena_bytes"] = s.arenaBytes;
        d["intermediate_bytes"] = s.intermediateBytes;
        d["weight_bytes"] = s.weightBytes;
        return d;
    }, py::arg("model"), py::arg("shapes") = py::none(), py::kw_only(), py::arg("precision") = "fp32",
       py::arg("sync") = "minimal", (std::string("Counts of the plan: dispatches, barriers, waves, bytes.") + args).c_str());
}

}  // namespace vkinfer::python
