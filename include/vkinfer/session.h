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
    // Also record a timestamp after every dispatch (RunStats::dispatchMs), to see where the
    // time goes. Costs a little GPU time per dispatch; needs timestamps. With minimal sync
    // the dispatches of one wave may overlap, and each is charged from the previous
    // dispatch's timestamp to its own; SyncMode::Conservative gives times that do not overlap.
    bool profile = false;
    // Frame slots: each has its own intermediate arena, input/output buffers and staging,
    // so up to this many submissions (or host frames, see interop.h) can be in flight
    // without waiting for one another. Weights and pipelines are shared. 1 to 16.
    uint32_t framesInFlight = 1;
    // Allocate input and output buffers as exportable memory (opaque fd, and dma-buf where
    // the device offers it) so they can be shared with other devices or APIs (interop.h).
    bool shareableIO = false;
    // Plans (one per input-shape set, each with its own weights, arenas and staging) kept at
    // once; past this, the least recently used one is freed, so that a host resizing its
    // window again and again does not grow without bound. Plans recorded into a host command
    // buffer, with exported or imported memory, or with a submission in flight are kept
    // regardless. 0: no limit.
    uint32_t maxCachedPlans = 8;
    // The queue the session's work runs on: the context's, or asynchronous compute (a compute
    // family without graphics, beside a renderer's graphics queue; context.h SessionQueue).
    // Where asynchronous compute is not available the session falls back to the context's
    // queue; Session::queue() says which it got and why. recordInference then records for
    // that family (interop.h: the host's command buffers must come from a pool of it).
    SessionQueue queue = SessionQueue::Context;
    // Which kernels to use where several can run (tensor cores, tile shapes, direct
    // convolutions; plan.h). The environment variables VKINFER_CONV_TILES and
    // VKINFER_DIRECT_CONV set the fields left at Auto (docs/CLI.md, "Environment"); a value
    // they do not know fails Session::create.
    KernelPolicy kernels;
};

// A submission in flight (Session::submit). Values increase by one per submission; the
// session's timeline semaphore (interop.h) reaches `value` when it has finished.
struct Ticket {
    uint64_t value = 0;
    uint32_t frame = 0;
};

// Where the time of one run went.
struct RunStats {
    double wallMs = 0;          // whole run() call: staging copies, submit, wait, readback
    double gpuMs = -1;          // first to last dispatch, from timestamp queries (-1 if unavailable)
    double transferGpuMs = -1;  // GPU copies staging -> inputs and outputs -> staging (-1 if unavailable)
    double uploadMs = 0;        // host copies into staging buffers
    double downloadMs = 0;      // host copies out of staging buffers
    bool planned = false;       // this call compiled a new plan (first use of these input shapes)
    // With SessionOptions::profile: GPU ms per dispatch, in recording order (the `schedule`
    // of planJson for the same shapes and options); empty otherwise or without timestamps.
    std::vector<double> dispatchMs;
    // With SessionOptions::profile: per dispatch, ms from the first dispatch's start to when
    // the dispatch was reached in the command stream (after its barrier: a TOP_OF_PIPE
    // timestamp), and to when it and every command before it had finished their compute work.
    // Dispatches of one wave overlap between their start and end (a timeline, e.g. a trace).
    std::vector<double> dispatchStartMs;
    std::vector<double> dispatchEndMs;
};

// A model bound to a context. Plans are compiled per set of input shapes on first use and
// cached (keyed by shapes); their command buffers are recorded once and replayed.
// Not thread-safe: use one session per thread.
class Session {
public:
    static Result<Session> create(const Context& context, const Model& model, const SessionOptions& options = {});

    // Compiles and allocates the plan for these shapes now rather than on the first run.
    // An input with a default (TensorDesc::hasDefault) that `shapes` does not name is
    // prepared as left out (planned with its default); naming it prepares the plan of a run
    // that gives it.
    Status prepare(const InputShapes& shapes = {});

    // Runs the model. Every model input must be given, by name, with a matching data type,
    // except one whose memory the frame slot imported (interop.h importTensorMemory): that
    // one is read in place and must be left out; and one with a default (TensorDesc::
    // hasDefault), which may be left out to take it. Outputs come back in the model's output
    // order.
    Result<std::vector<NamedTensor>> run(const std::vector<NamedTensor>& inputs, RunStats* stats = nullptr);

    // Asynchronous form of run(): copies the inputs into the next frame slot's staging,
    // submits, and returns at once so the caller can overlap its own work. Slots are used in
    // turn: the k-th submission of the session (run included, counting from 0) goes to slot
    // k % framesInFlight (Ticket::frame), which is how shared memory of a slot (interop.h)
    // is matched to a submission. The outputs stay
    // available to wait() until the slot is reused framesInFlight submissions later;
    // submitting into a busy slot first waits for it to finish.
    Result<Ticket> submit(const std::vector<NamedTensor>& inputs);
    // Blocks until the submission finished and returns its outputs (except outputs whose
    // memory was imported with importTensorMemory: they are written in place and not copied
    // back). Fails if the ticket's slot has been reused since (more than framesInFlight
    // submissions without a wait), and, returning no outputs, if a Gather, GatherElements,
    // GatherND, ScatterElements or ScatterND met an index computed at run time outside its
    // axis (ONNX calls that an error; the kernels stay inside their buffers and report it):
    // the message names the node, the indices tensor, the index and the extent. run() fails
    // alike.
    Result<std::vector<NamedTensor>> wait(const Ticket& ticket, RunStats* stats = nullptr);
    // True once the submission has finished (does not block).
    Result<bool> isDone(const Ticket& ticket);

    // Interleaved mode (interop.h recordInference): stages an input for the next
    // recording of `frame` (copied into the engine's input buffer by the recorded commands),
    // and reads the outputs a recording left in the frame's readback staging once the host's
    // fence for that frame has signaled (outputs that recording sent to host images or
    // buffers are not returned).
    // readOutputs fails as wait() does when an index was out of range.
    Status stageInput(uint32_t frame, const NamedTensor& input);
    Result<std::vector<NamedTensor>> readOutputs(uint32_t frame);
    // Interleaved mode, after the host's fence for `frame`: fails naming the node if the
    // frame's last recorded run met an index out of range (as wait() does), and clears that
    // report for the frame's next run. readOutputs checks the same; call this for a frame
    // whose outputs all went to host images or buffers. A report stays until checked: an
    // unchecked frame's next check also reports it.
    Status checkFrame(uint32_t frame);

    // The plan this session uses for the given shapes (JSON, as planJson()); inputs with a
    // default are taken as in prepare().
    Result<std::string> planJson(const InputShapes& shapes = {});
    // The same plan as text (as planText(): what `vkinfer plan --device N` prints).
    Result<std::string> planText(const InputShapes& shapes = {});

    const Model& model() const;
    const SessionOptions& options() const;
    // The queue (family) this session submits to and records for (SessionOptions::queue).
    const QueueInfo& queue() const;

    std::shared_ptr<detail::SessionImpl> impl() const { return impl_; }

private:
    std::shared_ptr<detail::SessionImpl> impl_;
};

}  // namespace vkinfer
