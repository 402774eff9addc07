// The device-free planning entry points of include/vkinfer/plan.h.
#include "core/environment.h"
#include "core/error.h"
#include "plan/compile.h"
#include "runtime/model_data.h"
#include "vkinfer/plan.h"

namespace vkinfer {

const char* syncModeName(SyncMode mode) { return mode == SyncMode::Minimal ? "minimal" : "conservative"; }
const char* precisionName(Precision precision) { return precision == Precision::Float16 ? "fp16" : "fp32"; }

namespace {

plan::CompiledPlan compileFor(const Model& model, const InputShapes& shapes, const PlanOptions& options) {
    if (!model.data()) fail(ErrorCode::InvalidArgument, "the model is empty");
    InputShapes resolved = unwrap(model.resolveShapes(shapes));
    // Inputs with a default that `shapes` leaves out are planned as a run that leaves them out.
    const detail::ModelData& data = *model.data();
    return plan::compilePlan(data.graph, resolved, options,
                             detail::defaultValues(data, detail::defaultedUnlessNamed(data, shapes)));
}

}  // namespace

Result<KernelPolicy> kernelPolicyFromEnvironment(KernelPolicy policy) {
    return guardResult<KernelPolicy>([&] { return env::applyToKernelPolicy(policy); });
}

Result<std::string> planJson(const Model& model, const InputShapes& shapes, const PlanOptions& options) {
    return guardResult<std::string>([&] { return plan::planToJson(compileFor(model, shapes, options)); });
}

Result<std::string> planText(const Model& model, const InputShapes& shapes, const PlanOptions& options) {
    return guardResult<std::string>([&] { return plan::planToText(compileFor(model, shapes, options)); });
}

Result<PlanSummary> planSummary(const Model& model, const InputShapes& shapes, const PlanOptions& options) {
    return guardResult<PlanSummary>([&] { return compileFor(model, shapes, options).summary; });
}

}  // namespace vkinfer
