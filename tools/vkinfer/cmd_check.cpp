// vkinfer check: runs every test_data_set_* of one model folder (or of every model folder
// under a directory) and compares the outputs with the reference data.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "common.h"

namespace vkinfer::cli {

namespace fs = std::filesystem;

namespace {

struct CheckArgs {
    std::string dir;
    double rtol = 1e-3;
    double atol = 1e-4;
    bool atolAbsolute = false;
    std::string filter;
    std::string report;
};

// Folders holding a model.onnx: `dir` itself, or those below it (sorted).
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

struct Tally {
    int passed = 0, failed = 0;
    std::vector<std::string> unsupported;
    nlohmann::json report = nlohmann::json::array();
};

// `p` relative to the folder above `root`, so that labels start with root's own name.
// Both are made absolute and normalized first: "check models/espcn_x2/" (trailing slash: the
// parent of "x/" is "x") or "check espcn_x2" (no parent) used to label every case ".".
std::string label(const fs::path& p, const fs::path& root) {
    auto norm = [](const fs::path& x) {
        std::error_code ec;
        fs::path a = fs::absolute(x, ec).lexically_normal();
        return a.has_filename() ? a : a.parent_path();
    };
    std::string rel = norm(p).lexically_relative(norm(root).parent_path()).string();
    return rel.empty() || rel == "." ? p.string() : rel;
}

void recordFailure(Tally& t, const std::string& name, const std::string& why) {
    ++t.failed;
    fmt::print("FAIL  {}  {}\n", name, why);
    t.report.push_back({{"case", name}, {"result", "fail"}, {"detail", why}});
}

void checkCase(const fs::path& dir, const fs::path& root, Context& ctx, const CheckArgs& a, const GlobalOptions& g,
               Tally& t) {
    const std::string name = label(dir, root);
    auto model = Model::load((dir / "model.onnx").string());
    if (!model.ok()) {
        if (model.status().code() == ErrorCode::Unsupported) {
            t.unsupported.push_back(fmt::format("{}: {}", name, model.status().message()));
            t.report.push_back({{"case", name}, {"result", "unsupported"}, {"detail", model.status().message()}});
            fmt::print("SKIP  {}  unsupported: {}\n", name, model.status().message());
        } else {
            recordFailure(t, name, model.status().toString());
        }
        return;
    }
    auto sets = listTestDataSets(dir.string());
    if (sets.empty()) {
        recordFailure(t, name, "no test_data_set_* folders");
        return;
    }
    Session session = orDie(Session::create(ctx, *model, sessionOptions(g)));
    Tolerance tol{a.rtol, a.atol, !a.atolAbsolute};
    for (const auto& set : sets) {
        std::string setName = name + "/" + fs::path(set).filename().string();
        auto ds = loadTestDataSet(set, *model);
        if (!ds.ok()) {
            recordFailure(t, setName, ds.status().toString());
            continue;
        }
        auto out = session.run(ds->inputs);
        if (!out.ok()) {
            if (out.status().code() == ErrorCode::Unsupported) {
                t.unsupported.push_back(fmt::format("{}: {}", setName, out.status().message()));
                t.report.push_back({{"case", setName}, {"result", "unsupported"}, {"detail", out.status().message()}});
                fmt::print("SKIP  {}  unsupported: {}\n", setName, out.status().message());
            } else {
                recordFailure(t, setName, out.status().toString());
            }
            continue;
        }
        bool ok = true;
        double maxErr = 0, maxRef = 0;
        std::string why;
        for (const auto& ref : ds->outputs) {
            auto it = std::find_if(out->begin(), out->end(), [&](const NamedTensor& o) { return o.name == ref.name; });
            if (it == out->end()) {
                ok = false;
                why += fmt::format("output '{}' missing; ", ref.name);
                continue;
            }
            Comparison c = compareTensors(it->tensor, ref.tensor, tol);
            maxErr = std::max(maxErr, c.maxAbsError);
            maxRef = std::max(maxRef, c.maxAbsExpected);
            if (!c.pass) {
                ok = false;
                why += c.problem.empty()
                           ? fmt::format("'{}': {} of {} elements outside |y-ref| <= {:.3g} + {:g}*|ref| (worst at {}); ",
                                         ref.name, c.mismatches, ref.tensor.elementCount(), c.atolUsed, a.rtol, c.worstIndex)
                           : fmt::format("'{}': {}; ", ref.name, c.problem);
            }
        }
        if (ok) {
            ++t.passed;
            fmt::print("PASS  {}  max error {:.3g} (max |ref| {:.3g})\n", setName, maxErr, maxRef);
            t.report.push_back({{"case", setName}, {"result", "pass"}, {"max_error", maxErr}});
        } else {
            recordFailure(t, setName, fmt::format("max error {:.3g} (max |ref| {:.3g}): {}", maxErr, maxRef, why));
        }
        std::fflush(stdout);
    }
}

int checkCommand(const CheckArgs& a, const GlobalOptions& g) {
    fs::path root(a.dir);
    if (!fs::is_directory(root)) throw CliError(fmt::format("'{}' is not a folder", a.dir), 2);
    auto cases = caseFolders(root);
    if (!a.filter.empty())
        cases.erase(std::remove_if(cases.begin(), cases.end(),
                                   [&](const fs::path& p) { return label(p, root).find(a.filter) == std::string::npos; }),
                    cases.end());
    if (cases.empty()) throw CliError(fmt::format("no model.onnx found in or under '{}'", a.dir), 2);
    Context ctx = makeContext(g);
    Tally t;
    for (const auto& c : cases) checkCase(c, root, ctx, a, g, t);
    if (!t.unsupported.empty()) {
        fmt::print("unsupported ({}):\n", t.unsupported.size());
        for (const auto& u : t.unsupported) fmt::print("  {}\n", u);
    }
    if (!a.report.empty()) {
        std::ofstream f(a.report);
        f << t.report.dump(1) << "\n";
        if (!f) throw CliError(fmt::format("cannot write '{}'", a.report));
    }
    fmt::print("{} passed, {} failed, {} unsupported\n", t.passed, t.failed, t.unsupported.size());
    return t.failed == 0 ? 0 : 1;
}

}  // namespace

void addCheckCommand(CLI::App& app, GlobalOptions& g) {
    auto* cmd = app.add_subcommand(
        "check", "Run every test_data_set_* of a model folder (ONNX backend-test layout), or of every model folder "
                 "below DIR, and compare with the reference outputs");
    auto a = std::make_shared<CheckArgs>();
    cmd->add_option("dir", a->dir, "Folder with model.onnx and test_data_set_*, or a folder of such folders")->required();
    cmd->add_option("--rtol", a->rtol, "Relative tolerance")->capture_default_str();
    cmd->add_option("--atol", a->atol, "Absolute tolerance, as a fraction of max|ref| unless --atol-absolute")
        ->capture_default_str();
    cmd->add_flag("--atol-absolute", a->atolAbsolute, "Use --atol as an absolute tolerance");
    cmd->add_option("--filter", a->filter, "Only model folders whose label (the path from DIR's own name down) contains this text");
    cmd->add_option("--report", a->report, "Also write the results as JSON to this file");
    cmd->callback([a, &g] {
        int rc = checkCommand(*a, g);
        if (rc != 0) throw CliError("", rc);  // the summary line already says why
    });
}

}  // namespace vkinfer::cli
