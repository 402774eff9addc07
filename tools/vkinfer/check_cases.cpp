#include "check_cases.h"

#include <fmt/format.h>

#include <algorithm>

namespace vkinfer::cli {

namespace fs = std::filesystem;

namespace {

template <class T>
nlohmann::json orNull(const std::optional<T>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <class T>
std::optional<T> optionalField(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return std::nullopt;
    return it->get<T>();
}

}  // namespace

nlohmann::json CaseResult::toJson() const {
    return {{"case", name},
            {"model", caseName},
            {"result", result},
            {"detail", detail},
            {"max_error", orNull(maxError)},
            {"max_ref", orNull(maxRef)},
            {"ops", orNull(ops)}};
}

CaseResult CaseResult::fromJson(const nlohmann::json& j) {
    CaseResult r;
    r.name = j.value("case", "");
    r.caseName = j.value("model", "");
    r.result = j.value("result", "");
    r.detail = j.value("detail", "");
    r.maxError = optionalField<double>(j, "max_error");
    r.maxRef = optionalField<double>(j, "max_ref");
    r.ops = optionalField<std::vector<std::string>>(j, "ops");
    return r;
}

std::vector<fs::path> caseFolders(const fs::path& dir) {
    if (fs::exists(dir / "model.onnx")) return {dir};
    std::vector<fs::path> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::follow_directory_symlink, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        if (it->is_directory() && fs::exists(it->path() / "model.onnx")) {
            out.push_back(it->path());
            it.disable_recursion_pending();
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Both are made absolute and normalized first: "check models/espcn_x2/" (trailing slash: the
// parent of "x/" is "x") or "check espcn_x2" (no parent) used to label every case ".".
std::string caseName(const fs::path& p, const fs::path& root) {
    auto norm = [](const fs::path& x) {
        std::error_code ec;
        fs::path a = fs::absolute(x, ec).lexically_normal();
        return a.has_filename() ? a : a.parent_path();
    };
    std::string rel = norm(p).lexically_relative(norm(root).parent_path()).string();
    return rel.empty() || rel == "." ? p.string() : rel;
}

namespace {

// Unsupported anywhere (loading, planning, an attribute a kernel lacks) is not a failure.
CaseResult statusResult(const std::string& name, const std::string& model, const Status& s,
                        const std::optional<std::vector<std::string>>& ops) {
    CaseResult r;
    r.name = name;
    r.caseName = model;
    r.ops = ops;
    r.result = s.code() == ErrorCode::Unsupported ? "unsupported" : "fail";
    r.detail = s.code() == ErrorCode::Unsupported ? s.message() : s.toString();
    return r;
}

CaseResult compareOutputs(const std::string& setName, const std::string& model, const std::vector<NamedTensor>& out,
                          const TestDataSet& ds, const CheckOptions& o, const std::optional<std::vector<std::string>>& ops) {
    CaseResult r;
    r.name = setName;
    r.caseName = model;
    r.ops = ops;
    bool ok = true;
    Tolerance tol{o.rtol, o.atol, !o.atolAbsolute};
    for (const auto& ref : ds.outputs) {
        auto it = std::find_if(out.begin(), out.end(), [&](const NamedTensor& t) { return t.name == ref.name; });
        if (it == out.end()) {
            ok = false;
            r.detail += fmt::format("{}output '{}' missing", r.detail.empty() ? "" : "; ", ref.name);
            continue;
        }
        Comparison c = compareTensors(it->tensor, ref.tensor, tol);
        if (c.problem.empty()) {  // (a shape or type mismatch compares no values)
            r.maxError = std::max(r.maxError.value_or(0), c.maxAbsError);
            r.maxRef = std::max(r.maxRef.value_or(0), c.maxAbsExpected);
        }
        if (!c.pass) {
            ok = false;
            if (!r.detail.empty()) r.detail += "; ";
            r.detail += c.problem.empty()
                            ? fmt::format("'{}': {} of {} elements outside |y-ref| <= {:.3g} + {:g}*|ref| (worst at {})",
                                          ref.name, c.mismatches, ref.tensor.elementCount(), c.atolUsed, o.rtol,
                                          c.worstIndex)
                            : fmt::format("'{}': {}", ref.name, c.problem);
        }
    }
    r.result = ok ? "pass" : "fail";
    return r;
}

}  // namespace

std::vector<CaseResult> runCase(const fs::path& dir, const std::string& name, Context& ctx, const CheckOptions& opts,
                                const GlobalOptions& g, const std::function<void(const std::string&)>& onDataSet,
                                size_t skipSets, const std::function<void(const CaseResult&)>& onSetResult) {
    const std::string path = (dir / "model.onnx").string();
    auto listed = Model::listOperators(path);
    std::optional<std::vector<std::string>> ops;
    if (listed.ok()) ops = *listed;
    auto model = Model::load(path);
    if (!model.ok()) return {statusResult(name, name, model.status(), ops)};
    auto sets = listTestDataSets(dir.string());
    if (sets.empty()) {
        CaseResult r;
        r.name = r.caseName = name;
        r.ops = ops;
        r.result = "fail";
        r.detail = "no test_data_set_* folders";
        return {r};
    }
    auto session = Session::create(ctx, *model, sessionOptions(g));
    if (!session.ok()) return {statusResult(name, name, session.status(), ops)};
    std::vector<CaseResult> results;
    auto record = [&](CaseResult r) {
        if (onSetResult) onSetResult(r);
        results.push_back(std::move(r));
    };
    for (size_t k = skipSets; k < sets.size(); ++k) {
        const auto& set = sets[k];
        std::string setName = name + "/" + fs::path(set).filename().string();
        if (onDataSet) onDataSet(setName);
        auto ds = loadTestDataSet(set, *model);
        if (!ds.ok()) {
            record(statusResult(setName, name, ds.status(), ops));
            continue;
        }
        auto out = session->run(ds->inputs);
        if (!out.ok()) {
            record(statusResult(setName, name, out.status(), ops));
            continue;
        }
        record(compareOutputs(setName, name, *out, *ds, opts, ops));
    }
    return results;
}

}  // namespace vkinfer::cli
