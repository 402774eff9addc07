// vkinfer.Session: a model on a context, run with NumPy arrays (or DLPack and array-interface
// objects) in and out. The GIL is released while the device works; a lock per session lets
// threads share one (their runs take turns; sessions of their own run in parallel).
#include <fmt/format.h>

#include <bench_profile.h>
#include <common.h>
#include <inputs.h>

#include <mutex>
#include <optional>

#include "binding.h"

namespace vkinfer::python {

namespace {

struct PySession {
    PySession(Context c, Model m, SessionOptions o) : context(std::move(c)), model(std::move(m)), options(o) {}
    Context context;
    Model model;
    SessionOptions options;
    std::optional<Session> session;  // empty once closed
    std::mutex mutex;                // held by a call using `session` (without the GIL)

    // Call with `mutex` held.
    Session& get() {
        if (!session) raise(ErrorCode::InvalidArgument, fmt::format("the session of '{}' is closed", model.label()));
        return *session;
    }
    // Runs body(session) with the GIL released and the session locked.
    template <class F>
    auto locked(F&& body) {
        py::gil_scoped_release release;
        std::lock_guard<std::mutex> lock(mutex);
        return body(get());
    }
};

Model modelOf(py::handle source) {
    if (py::isinstance<Model>(source)) return source.cast<Model>();
    if (py::isinstance<py::bytes>(source))
        return py::module_::import("vkinfer").attr("Model").attr("from_bytes")(source).cast<Model>();
    if (py::isinstance<py::str>(source) || py::hasattr(source, "__fspath__"))
        return py::module_::import("vkinfer").attr("Model").attr("load")(source).cast<Model>();
    throw py::type_error(fmt::format("model: expected a vkinfer.Model, a path or ModelProto bytes, got a {}",
                                     std::string(py::str(py::type::handle_of(source).attr("__name__")))));
}

uint32_t countIn(int64_t value, int64_t lo, int64_t hi, const char* what) {
    if (value < lo || value > hi) throw py::value_error(fmt::format("{} {}: expected {} to {}", what, value, lo, hi));
    return static_cast<uint32_t>(value);
}

std::unique_ptr<PySession> create(py::handle model, py::object context, py::object device, bool validate,
                                  const std::string& precision, const std::string& sync, int64_t framesInFlight,
                                  bool profile, bool timestamps, int64_t maxCachedPlans) {
    SessionOptions o;
    o.precision = toPrecision(precision);
    o.sync = toSync(sync);
    o.framesInFlight = countIn(framesInFlight, 1, 16, "frames_in_flight");
    o.profile = profile;
    o.timestamps = timestamps || profile;
    o.maxCachedPlans = countIn(maxCachedPlans, 0, 1 << 20, "max_cached_plans");
    if (!context.is_none() && !py::isinstance<Context>(context))
        throw py::type_error("context: expected a vkinfer.Context or None");
    if (!context.is_none() && (!device.is_none() || validate))
        throw py::value_error("device and validate belong to the Context: give them to vkinfer.Context(...), or give no context");
    Model m = modelOf(model);
    auto s = std::make_unique<PySession>(context.is_none() ? makeContext(device, validate) : context.cast<Context>(),
                                         std::move(m), o);
    py::gil_scoped_release release;
    s->session = unwrap(Session::create(s->context, s->model, o));
    return s;
}

py::object gpuMs(double ms) { return ms < 0 ? py::object(py::none()) : py::object(py::float_(ms)); }

py::dict statsDict(const RunStats& s) {
    py::dict d;
    d["wall_ms"] = s.wallMs;
    d["gpu_ms"] = gpuMs(s.gpuMs);
    d["transfer_gpu_ms"] = gpuMs(s.transferGpuMs);
    d["upload_ms"] = s.uploadMs;
    d["download_ms"] = s.downloadMs;
    d["planned"] = s.planned;
    if (!s.dispatchMs.empty()) {
        d["dispatch_ms"] = s.dispatchMs;
        d["dispatch_start_ms"] = s.dispatchStartMs;
        d["dispatch_end_ms"] = s.dispatchEndMs;
    }
    return d;
}

py::object runResult(std::vector<NamedTensor>&& outputs, const RunStats* stats) {
    py::dict arrays = toArrays(std::move(outputs));
    if (!stats) return arrays;
    return py::make_tuple(arrays, statsDict(*stats));
}

}  // namespace

void bindSession(py::module_& m) {
    py::class_<Ticket>(m, "Ticket", "A submission in flight (Session.submit); give it to Session.wait.")
        .def_readonly("value", &Ticket::value, "The session's timeline value the submission reaches when done.")
        .def_readonly("frame", &Ticket::frame, "The frame slot it runs in.")
        .def("__repr__", [](const Ticket& t) { return fmt::format("<vkinfer.Ticket {} in frame {}>", t.value, t.frame); });

    py::class_<PySession>(m, "Session", R"(A model bound to a device, run with arrays in and out (vkinfer's own API;
InferenceSession is ONNX Runtime's).

Session(model, context=None, *, device=None, validate=False, precision="fp32", sync="minimal",
        frames_in_flight=1, profile=False, timestamps=True, max_cached_plans=8)

model is a vkinfer.Model, a path or ModelProto bytes. Without a context the session makes its
own on `device` (an index from vkinfer.devices()), with the Khronos validation layer when
`validate`. precision "fp16" stores weights and activations as float16 (inputs and outputs stay
as declared); sync "conservative" puts a barrier after every dispatch (for debugging). Plans are
compiled per set of input shapes on first use and cached (max_cached_plans, 0: no limit).

Threads may share a session (their calls take turns) or run sessions of their own in parallel:
the GIL is released while the device works. close() (or a with block) frees the device memory
at once; a closed session raises InvalidArgumentError.)")
        .def(py::init(&create), py::arg("model"), py::arg("context") = py::none(), py::kw_only(),
             py::arg("device") = py::none(), py::arg("validate") = false, py::arg("precision") = "fp32",
             py::arg("sync") = "minimal", py::arg("frames_in_flight") = 1, py::arg("profile") = false,
             py::arg("timestamps") = true, py::arg("max_cached_plans") = 8)
        .def("run", [](PySession& s, py::handle inputs, bool stats) {
            std::vector<NamedTensor> in = borrowInputs(inputs);
            RunStats st;
            auto out = s.locked([&](Session& session) { return unwrap(session.run(in, stats ? &st : nullptr)); });
            return runResult(std::move(out), stats ? &st : nullptr);
        }, py::arg("inputs"), py::kw_only(), py::arg("stats") = false,
           R"(Runs the model: inputs is a dict of input name -> array (NumPy, or an object with __dlpack__ or the
array interface, read in place: C-contiguous, of the input's declared type). Returns a dict of output
name -> NumPy array in the model's output order, or (outputs, stats) with stats=True: wall_ms,
gpu_ms, transfer_gpu_ms, upload_ms, download_ms, planned (this run compiled a plan) and, in a
session with profile=True, dispatch_ms per dispatch.

Inputs with a default (Model.inputs[i].has_default) may be left out. TypeError for a dtype vkinfer
has no tensor type for, ValueError for a non-contiguous array; the engine's errors (an unknown or
missing input, a wrong type or shape) raise the vkinfer.Error subclass of their code.)")
        .def("submit", [](PySession& s, py::handle inputs) {
            std::vector<NamedTensor> in = borrowInputs(inputs);
            return s.locked([&](Session& session) { return unwrap(session.submit(in)); });
        }, py::arg("inputs"), R"(Starts a run and returns at once with its Ticket (the inputs are copied before it
returns). Up to frames_in_flight submissions run without waiting for one another.)")
        .def("wait", [](PySession& s, const Ticket& ticket, bool stats) {
            RunStats st;
            auto out = s.locked([&](Session& session) { return unwrap(session.wait(ticket, stats ? &st : nullptr)); });
            return runResult(std::move(out), stats ? &st : nullptr);
        }, py::arg("ticket"), py::kw_only(), py::arg("stats") = false,
           "Blocks until the submission finished; returns its outputs as run() does.")
        .def("is_done", [](PySession& s, const Ticket& ticket) {
            return s.locked([&](Session& session) { return unwrap(session.isDone(ticket)); });
        }, py::arg("ticket"), "True once the submission has finished (does not block).")
        .def("prepare", [](PySession& s, py::handle shapes) {
            InputShapes sh = toShapes(shapes);
            s.locked([&](Session& session) { check(session.prepare(sh)); return 0; });
        }, py::arg("shapes") = py::none(),
           "Compiles and allocates the plan for these input shapes ({name: [dims]}) now, not at the first run.")
        .def("plan", [](PySession& s, py::handle shapes) {
            InputShapes sh = toShapes(shapes);
            return parseJson(s.locked([&](Session& session) { return unwrap(session.planJson(sh)); }));
        }, py::arg("shapes") = py::none(), R"(The plan this session runs for these input shapes ({name: [dims]}; declared
shapes by default), on its device: the plan JSON of `vkinfer plan --json` (docs/CLI.md) as a dict.)")
        .def("bench", [](PySession& s, py::handle inputs, int64_t iters, int64_t warmup, bool profile, py::handle shapes) {
            const int n = static_cast<int>(countIn(iters, 1, 1000000, "iters"));
            const int w = static_cast<int>(countIn(warmup, 0, 1000000, "warmup"));
            CollectWarnings warnings;
            std::vector<NamedTensor> in;
            if (inputs.is_none()) {
                InputShapes sh = toShapes(shapes);
                py::gil_scoped_release release;
                in = cli::syntheticInputs(s.model, cli::resolveShapesWithDefaults(s.model, s.model.label(), sh));
            } else {
                if (!shapes.is_none()) throw py::value_error("shapes apply only to generated inputs (the inputs given have theirs)");
                in = borrowInputs(inputs);
            }
            std::string text = s.locked([&](Session& session) {
                nlohmann::json j = cli::benchJson(session, s.context, s.model.label(), in, {n, w});
                if (profile)
                    j["profile"] = cli::profileJson(cli::profileDispatches(s.context, s.model, in, session.options(), n));
                return cli::jsonText(j);
            });
            warnings.issue();
            return parseJson(text);
        }, py::arg("inputs") = py::none(), py::kw_only(), py::arg("iters") = 50, py::arg("warmup") = 5,
           py::arg("profile") = false, py::arg("shapes") = py::none(),
           R"(Latency over `iters` runs after `warmup` (at least 1): the figures of `vkinfer bench --json` as a
dict (model, device, inputs, sync, precision, iters, wall_ms and gpu_ms with median, min, p90 and
mean; with profile=True, GPU time per dispatch and per operator). Without inputs, uniform [0, 1)
values of the declared shapes (or `shapes`, {name: [dims]}) as the CLI makes them.)")
        .def("close", [](PySession& s) {
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);  // after a run in another thread
            s.session.reset();
        }, "Frees the session's device memory now. Later calls raise InvalidArgumentError; closing twice is fine.")
        .def_property_readonly("closed", [](PySession& s) {
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            return !s.session.has_value();
        })
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](py::object self, py::args) { self.attr("close")(); })
        .def_property_readonly("model", [](const PySession& s) { return s.model; })
        .def_property_readonly("context", [](const PySession& s) { return s.context; })
        .def_property_readonly("inputs", [](const PySession& s) { return s.model.inputs(); }, "The model's inputs.")
        .def_property_readonly("outputs", [](const PySession& s) { return s.model.outputs(); }, "The model's outputs.")
        .def_property_readonly("precision", [](const PySession& s) { return std::string(precisionName(s.options.precision)); })
        .def_property_readonly("sync", [](const PySession& s) { return std::string(syncModeName(s.options.sync)); })
        .def_property_readonly("frames_in_flight", [](const PySession& s) { return s.options.framesInFlight; })
        .def("__repr__", [](PySession& s) {
            return fmt::format("<vkinfer.Session '{}' on '{}'{}>", s.model.label(), s.context.device().name,
                               s.session ? "" : ", closed");
        });
}

}  // namespace vkinfer::python
