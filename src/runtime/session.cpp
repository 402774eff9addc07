#include "vkinfer/session.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "core/error.h"
#include "runtime/model_data.h"
#include "runtime/prepared_plan.h"

namespace vkinfer {

namespace detail {

struct SessionImpl {
    Context context;
    Model model;
    SessionOptions options;
    std::map<std::string, std::unique_ptr<rt::PreparedPlan>> plans;  // keyed by input shapes

    SessionImpl(Context c, Model m, SessionOptions o) : context(std::move(c)), model(std::move(m)), options(o) {}

    ContextImpl& ctx() { return *context.impl(); }

    PlanOptions planOptions() const {
        PlanOptions po;
        po.sync = options.sync;
        po.precision = options.precision;
        po.alignment = context.impl()->planAlignment(po.alignment);
        return po;
    }

    static std::string keyOf(const InputShapes& shapes) {
        std::string key;
        for (const auto& [name, shape] : shapes) key += name + "=" + shapeToString(shape) + ";";
        return key;
    }

    // The prepared plan for these (resolved) shapes, compiling it on first use.
    rt::PreparedPlan& planFor(const InputShapes& shapes, bool* compiled) {
        std::string key = keyOf(shapes);
        auto it = plans.find(key);
        if (compiled) *compiled = it == plans.end();
        if (it != plans.end()) return *it->second;
        auto compiledPlan = plan::compilePlan(model.data()->graph, shapes, planOptions());
        auto prepared = std::make_unique<rt::PreparedPlan>(ctx(), std::move(compiledPlan), options.timestamps);
        ctx().checkValidation("plan preparation");
        return *plans.emplace(key, std::move(prepared)).first->second;
    }
};

}  // namespace detail

Result<Session> Session::create(const Context& context, const Model& model, const SessionOptions& options) {
    return guardResult<Session>([&] {
        if (!context.impl()) fail(ErrorCode::InvalidArgument, "Session::create: the context is empty");
        if (!model.data()) fail(ErrorCode::InvalidArgument, "Session::create: the model is empty");
        Session s;
        s.impl_ = std::make_shared<detail::SessionImpl>(context, model, options);
        return s;
    });
}

Status Session::prepare(const InputShapes& shapes) {
    return guardStatus([&] { impl_->planFor(unwrap(impl_->model.resolveShapes(shapes)), nullptr); });
}

Result<std::vector<NamedTensor>> Session::run(const std::vector<NamedTensor>& inputs, RunStats* stats) {
    return guardResult<std::vector<NamedTensor>>([&] {
        auto t0 = std::chrono::steady_clock::now();
        const auto& decls = impl_->model.inputs();
        std::vector<const Tensor*> ordered(decls.size(), nullptr);
        InputShapes shapes;
        for (const auto& in : inputs) {
            auto it = std::find_if(decls.begin(), decls.end(), [&](const TensorDesc& d) { return d.name == in.name; });
            if (it == decls.end()) {
                std::string names;
                for (const auto& d : decls) names += (names.empty() ? "'" : ", '") + d.name + "'";
                fail(ErrorCode::InvalidArgument, "the model has no input named '{}' (its inputs: {})", in.name, names);
            }
            size_t i = static_cast<size_t>(it - decls.begin());
            if (ordered[i]) fail(ErrorCode::InvalidArgument, "input '{}' is given twice", in.name);
            if (in.tensor.dtype() != it->dtype)
                fail(ErrorCode::InvalidArgument, "input '{}' must be {} but a {} tensor was given", in.name,
                     dataTypeName(it->dtype), dataTypeName(in.tensor.dtype()));
            ordered[i] = &in.tensor;
            shapes.emplace_back(in.name, in.tensor.shape());
        }
        for (size_t i = 0; i < decls.size(); ++i)
            if (!ordered[i]) fail(ErrorCode::InvalidArgument, "input '{}' is missing", decls[i].name);
        InputShapes resolved = unwrap(impl_->model.resolveShapes(shapes));
        bool compiled = false;
        rt::PreparedPlan& prepared = impl_->planFor(resolved, &compiled);
        auto outputs = prepared.run(ordered, stats);
        impl_->ctx().checkValidation("inference");
        if (stats) {
            stats->planned = compiled;
            stats->wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        }
        return outputs;
    });
}

Result<std::string> Session::planJson(const InputShapes& shapes) {
    return guardResult<std::string>([&] {
        InputShapes resolved = unwrap(impl_->model.resolveShapes(shapes));
        return plan::planToJson(impl_->planFor(resolved, nullptr).plan());
    });
}

const Model& Session::model() const { return impl_->model; }
const SessionOptions& Session::options() const { return impl_->options; }

}  // namespace vkinfer
