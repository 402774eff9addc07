// Running a model on a device with CPU tensors (the "separate context" pattern).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vkinfer/context.h"
#include "vkinfer/model.h"
#include "vkinfer/plan.h"
#include "vkinfer/status.h"
#include "vkinfer/tensor.h"

namespace vkinfer {

namespace detail {
struct SessionImpl;
}

struct SessionOptions {
    SyncMode sync = SyncMode::Minimal;
    Precision precision = Precision::Float32;
    // Record timestamp queries around the dispatches (RunStats::gpuMs).
    bool timestamps = true;
};

// Where the time of one run went.
struct RunStats {
    double wallMs = 0;     // whole run() call: staging copies, submit, wait, readback
    double gpuMs = -1;     // first to last dispatch, from timestamp queries (-1 if unavailable)
    double uploadMs = 0;   // host copies into staging buffers
    double downloadMs = 0; // host copies out of staging buffers
    bool planned = false;  // this call compiled a new plan (first use of these input shapes)
};

// A model bound to a context. Plans are compiled per set of input shapes on first use and
// cached (keyed by shapes); their command buffers are recorded once and replayed.
// Not thread-safe: use one session per thread.
class Session {
public:
    static Result<Session> create(const Context& context, const Model& model, const SessionOptions& options = {});

    // Compiles and allocates the plan for these shapes now rather than on the first run.
    Status prepare(const InputShapes& shapes = {});

    // Runs the model. Every model input must be given, by name, with a matching data type.
    // Outputs come back in the model's output order.
    Result<std::vector<NamedTensor>> run(const std::vector<NamedTensor>& inputs, RunStats* stats = nullptr);

    // The plan this session uses for the given shapes (JSON, as planJson()).
    Result<std::string> planJson(const InputShapes& shapes = {});

    const Model& model() const;
    const SessionOptions& options() const;

    std::shared_ptr<detail::SessionImpl> impl() const { return impl_; }

private:
    std::shared_ptr<detail::SessionImpl> impl_;
};

}  // namespace vkinfer
