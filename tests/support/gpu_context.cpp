#include "support/gpu_context.h"

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
        return false;
    }
    ctx = std::make_unique<Context>(std::move(r).value());
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
