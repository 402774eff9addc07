#include "check_cases.h"

#include "check_peer.h"

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
            {"peer_max_error", orNull(peerMaxError)},
            {"peer_source", peerSource},
            {"ops", orNull(ops)},
            {"foreign_values", orNull(foreignValues)}};
}

CaseResult CaseResult::fromJson(const nlohmann::json& j) {
    CaseResult r;
    r.name = j.value("case", "");
    r.caseName = j.value("model", "");
    r.result = j.value("result", "");
    r.detail = j.value("detail", "");
    r.maxError = optionalField<double>(j, "max_error");
    r.maxRef = optionalField<double>(j, "max_ref");
    r.peerMaxError = optionalField<double>(j, "peer_max_error");
    r.peerSource = j.value("peer_source", "");
    r.ops = optionalField<std::vector<std::string>>(j, "ops");
    r.foreignValues = optionalField<std::vector<std::string>>(j, "foreign_values");
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

namespace {

// Absolute and normalized: "check models/espcn_x2/" (trailing slash: the parent of "x/" is
// "x") or "check espcn_x2" (no parent) used to label every case ".".
fs::path normalizedFolder(const fs::path& x) {
    std::error_code ec;
    fs::path a = fs::absolute(x, ec).lexically_normal();
    return a.has_filename() ? a : a.parent_path();
}

}  // namespace

std::string caseName(const fs::path& p, const fs::path& root) {
    std::string rel = normalizedFolder(p).lexically_relative(normalizedFolder(root).parent_path()).string();
    return rel.empty() || rel == "." ? p.string() : rel;
}

std::vector<std::string> caseFolderPrefixes(const fs::path& root) {
    auto withSlash = [](std::string s) { return s.empty() || s.back() == '/' ? s : s + "/"; };
    std::vector<std::string> out{withSlash(normalizedFolder(root).parent_path().string())};
    const fs::path given = root.has_filename() ? root : root.parent_path();
    if (given.has_parent_path()) out.push_back(withSlash(given.parent_path().string()));
    return out;
}

CaseResult describeCase(const fs::path& dir, const std::string& name) {
    CaseResult r;
    r.name = r.caseName = name;
    const std::string path = (dir / "model.onnx").string();
    if (auto listed = Model::listOperators(path); listed.ok()) r.ops = *listed;
    if (auto info = Model::inspect(path); info.ok()) {
        std::vector<std::string> foreign;
        auto look = [&](const std::vector<TensorDesc>& values, const char* what) {
            for (const auto& v : values) {
                // A value without an element type is a sequence, map or optional (inspect's
                // description of what is not a tensor), or a tensor that declares none.
                if (v.dtype == DataType::Undefined)
                    foreign.push_back(fmt::format("{} '{}': not a typed tensor", what, v.name));
                else if (dataTypeSize(v.dtype) == 0)
                    foreign.push_back(fmt::format("{} '{}': {}", what, v.name, dataTypeName(v.dtype)));
            }
        };
        look(info->inputs, "input");
        look(info->outputs, "output");
        r.foreignValues = foreign;
    }
    return r;
}

namespace {

// Unsupported anywhere (loading, planning, an attribute a kernel lacks) is not a failure.
CaseResult statusResult(CaseResult r, const std::string& name, const Status& s) {
    r.name = name;
    r.result = s.code() == ErrorCode::Unsupported ? "unsupported" : "fail";
    r.detail = s.code() == ErrorCode::Unsupported ? s.message() : s.toString();
    return r;
}

CaseResult compareOutputs(CaseResult r, const std::string& setName, const std::vector<NamedTensor>& out,
                          const TestDataSet& ds, const CheckOptions& o, const std::optional<PeerErrors>& peer) {
    r.name = setName;
    bool ok = true;
    const Tolerance tol{o.rtol, o.atol, !o.atolAbsolute};
    if (peer) r.peerSource = peer->source;
    for (const auto& ref : ds.outputs) {
        auto it = std::find_if(out.begin(), out.end(), [&](const NamedTensor& t) { return t.name == ref.name; });
        if (it == out.end()) {
            ok = false;
            r.detail += fmt::format("{}output '{}' missing", r.detail.empty() ? "" : "; ", ref.name);
            continue;
        }
        Comparison c = compareTensors(it->tensor, ref.tensor, tol);
        const double* peerError = nullptr;
        if (peer)
            if (auto e = peer->maxError.find(ref.name); e != peer->maxError.end()) peerError = &e->second;
        if (peerError) {
            r.peerMaxError = std::max(r.peerMaxError.value_or(0), *peerError);
            // The larger of the two bounds, as an absolute one (rtol stays).
            const double bound = std::max(c.atolUsed, o.peerFactor * *peerError);
            if (!c.pass && c.problem.empty()) c = compareTensors(it->tensor, ref.tensor, Tolerance{o.rtol, bound, false});
        }
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
    const CaseResult facts = describeCase(dir, name);
    auto model = Model::load((dir / "model.onnx").string());
    if (!model.ok()) return {statusResult(facts, name, model.status())};
    auto sets = listTestDataSets(dir.string());
    if (sets.empty()) {
        CaseResult r = facts;
        r.result = "fail";
        r.detail = "no test_data_set_* folders";
        return {r};
    }
    auto session = Session::create(ctx, *model, sessionOptions(g));
    if (!session.ok()) return {statusResult(facts, name, session.status())};
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
            record(statusResult(facts, setName, ds.status()));
            continue;
        }
        std::optional<PeerErrors> peer;
        if (opts.usePeerErrors && precision(g) == Precision::Float16) {
            auto read = readPeerErrors(set);
            if (!read.ok()) {
                record(statusResult(facts, setName, read.status()));
                continue;
            }
            peer = std::move(read).value();
        }
        auto out = session->run(ds->inputs);
        if (!out.ok()) {
            record(statusResult(facts, setName, out.status()));
            continue;
        }
        record(compareOutputs(facts, setName, *out, *ds, opts, peer));
    }
    return results;
}

}  // namespace vkinfer::cli
