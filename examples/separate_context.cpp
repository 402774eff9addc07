// Separate context: vkinfer owns its instance, device and queue; the host hands it CPU
// tensors. Shown both ways: run() (blocking) and submit()/wait() with two frames in flight,
// which lets the host prepare frame k+1 on the CPU while the GPU works on frame k.
//
//   example_separate_context data/espcn_x2
//
// Exits 0 when every output matches the reference data in the model folder.
#include <vkinfer/vkinfer.h>

#include <cstdio>
#include <string>

namespace {

bool report(const vkinfer::Status& s, const char* what) {
    if (s.ok()) return true;
    std::fprintf(stderr, "%s: %s\n", what, s.toString().c_str());
    return false;
}

// Compares every output with the data set's references (default tolerance).
bool matches(const std::vector<vkinfer::NamedTensor>& outputs, const vkinfer::TestDataSet& data, const char* what) {
    for (const auto& ref : data.outputs)
        for (const auto& out : outputs)
            if (out.name == ref.name) {
                vkinfer::Comparison c = vkinfer::compareTensors(out.tensor, ref.tensor);
                std::printf("%-28s %-8s max error %.3g (%s)\n", what, out.name.c_str(), c.maxAbsError,
                            c.pass ? "ok" : "MISMATCH");
                if (!c.pass) return false;
            }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s MODEL_DIR (with model.onnx and test_data_set_0)\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];
    auto model = vkinfer::Model::load(dir + "/model.onnx");
    if (!report(model.status(), "loading the model")) return 1;
    auto data = vkinfer::loadTestDataSet(dir + "/test_data_set_0", *model);
    if (!report(data.status(), "loading test data")) return 1;

    // The engine's own context. VKINFER_VALIDATE=1 in the environment turns on the
    // validation layer with synchronization validation; any message fails the next call.
    auto context = vkinfer::Context::create();
    if (!report(context.status(), "creating the context")) return 1;
    std::printf("device: %s\n", context->device().name.c_str());

    vkinfer::SessionOptions options;
    options.framesInFlight = 2;  // two sets of intermediate/IO buffers: two runs in flight
    auto session = vkinfer::Session::create(*context, *model, options);
    if (!report(session.status(), "creating the session")) return 1;

    // 1. Blocking: upload, run, wait, download. The first call for a shape compiles the plan.
    vkinfer::RunStats stats;
    auto outputs = session->run(data->inputs, &stats);
    if (!report(outputs.status(), "run")) return 1;
    std::printf("run: %.2f ms wall (first call: includes planning), %.2f ms GPU\n", stats.wallMs, stats.gpuMs);
    if (!matches(*outputs, *data, "run")) return 1;

    // 2. Asynchronous: submit returns once the work is queued; the host does its own work
    // meanwhile and collects the outputs later. Each frame slot has its own buffers, so the
    // second submission does not wait for the first.
    auto first = session->submit(data->inputs);
    if (!report(first.status(), "submit 1")) return 1;
    auto second = session->submit(data->inputs);
    if (!report(second.status(), "submit 2")) return 1;
    // ... host CPU work for the next frame would go here ...
    for (const auto* ticket : {&*first, &*second}) {
        auto out = session->wait(*ticket, &stats);
        if (!report(out.status(), "wait")) return 1;
        std::printf("ticket %llu (frame slot %u): %.2f ms GPU\n", static_cast<unsigned long long>(ticket->value),
                    ticket->frame, stats.gpuMs);
        if (!matches(*out, *data, "submit/wait")) return 1;
    }
    std::puts("separate context: all outputs match the reference");
    return 0;
}
