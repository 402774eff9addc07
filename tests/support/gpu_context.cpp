#include "support/gpu_context.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

namespace vkinfer::testing {

namespace {

std::unique_ptr<Context>& slot() {
    static std::unique_ptr<Context> ctx;
    return ctx;
}

}  // namespace

bool gpuAvailable() {
    auto& ctx = slot();
    if (ctx) return true;
    ContextOptions opts;
    opts.validate = validationRequestedByEnvironment();
    auto r = Context::create(opts);
    if (!r) {
        // Validation requested but impossible is a failure, not a skip.
        if (opts.validate && r.status().code() == ErrorCode::Unsupported) {
            ADD_FAILURE() << r.status().toString();
        }
        // Say why once, so that a run where every GPU test skips shows its cause (on the H200
        // with a carried validation layer the context failed and the tests skipped silently).
        static bool reported = false;
        if (!reported) std::fprintf(stderr, "GPU tests skip: %s\n", r.status().toString().c_str());
        reported = true;
        return false;
    }
    ctx = std::make_unique<Context>(std::move(r).value());
    // Destroy the context before the Vulkan driver's own exit-time teardown: destroyed as a
    // static (whose destructor was registered before the driver was loaded, so it runs after
    // the driver's handlers), it crashed every test binary at exit on NVIDIA's driver 580.
    // Handlers registered now, after the driver was loaded, run before the driver's.
    std::atexit([] { slot().reset(); });
    return true;
}

Context& gpuContext() {
    if (!gpuAvailable()) throw std::runtime_error("no Vulkan device");
    return *slot();
}

std::string modelsDir() {
    const char* env = std::getenv("VKINFER_MODELS_DIR");
    std::string dir = env && *env ? env : VKINFER_MODELS_DIR;
    return std::filesystem::is_directory(dir) ? dir : std::string();
}

}  // namespace vkinfer::testing
