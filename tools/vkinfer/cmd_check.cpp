// vkinfer check: runs every test_data_set_* of one model folder (or of every model folder
// under a directory) and compares the outputs with the reference data.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "check_cases.h"
#include "check_report.h"
#include "common.h"
#include "progress.h"

namespace vkinfer::cli {

namespace fs = std::filesystem;

namespace {

struct CheckArgs {
    std::string dir;
    CheckOptions opts;
    std::string filter;
    std::string report;
    bool isolate = false;
    double timeout = 120;
    std::string markdown;
    std::string scope;
    std::string title = "Conformance";
    std::string expect;
    std::string writeExpected;
};

void printResult(const CaseResult& r) {
    progress::clear();
    std::string errors =
        r.maxError ? fmt::format("max error {:.3g} (max |ref| {:.3g})", *r.maxError, r.maxRef.value_or(0)) : "";
    if (r.peerMaxError && r.maxError)
        errors += fmt::format(", peer fp16 max error {:.3g}{}", *r.peerMaxError,
                              *r.peerMaxError > 0 ? fmt::format(" (ratio {:.2f})", *r.maxError / *r.peerMaxError) : "");
    if (r.result == "pass")
        fmt::print("PASS  {}  {}\n", r.name, errors);
    else if (r.result == "unsupported")
        fmt::print("SKIP  {}  unsupported: {}\n", r.name, r.detail);
    else if (r.result == "fail")
        fmt::print("FAIL  {}  {}{}\n", r.name, errors.empty() ? "" : errors + ": ", r.detail);
    else
        fmt::print("{}  {}  {}\n", r.result == "crash" ? "CRASH" : "TIMEOUT", r.name, r.detail);
    std::fflush(stdout);
}

void writeFile(const std::string& path, const std::string& text) {
    std::ofstream f(path);
    f << text;
    if (!f) throw CliError(fmt::format("cannot write '{}'", path));
}

// Fails now rather than after the whole run if `path` cannot be written (opened to append:
// it is created if absent, and replaced only at the end).
void checkWritable(const std::string& path, const char* option) {
    if (path.empty()) return;
    if (fs::is_directory(path)) throw CliError(fmt::format("{} '{}' is a folder, not a file", option, path), 2);
    std::ofstream f(path, std::ios::app);
    if (!f) throw CliError(fmt::format("{} '{}': cannot write the file: {}", option, path, std::strerror(errno)));
}

int checkCommand(const CheckArgs& a, const GlobalOptions& g) {
    fs::path root(a.dir);
    if (!fs::is_directory(root)) throw CliError(fmt::format("'{}' is not a folder", a.dir), 2);
    checkWritable(a.report, "--report");
    checkWritable(a.markdown, "--markdown");
    checkWritable(a.writeExpected, "--write-expected");
    auto dirs = caseFolders(root);
    std::vector<std::string> names;
    for (const auto& d : dirs) names.push_back(caseName(d, root));
    if (!a.filter.empty()) {
        std::vector<fs::path> keptDirs;
        std::vector<std::string> keptNames;
        for (size_t i = 0; i < dirs.size(); ++i)
            if (names[i].find(a.filter) != std::string::npos) {
                keptDirs.push_back(dirs[i]);
                keptNames.push_back(names[i]);
            }
        dirs = keptDirs;
        names = keptNames;
    }
    if (dirs.empty()) throw CliError(fmt::format("no model.onnx found in or under '{}'", a.dir), 2);
    std::set<std::string> expected = a.expect.empty() ? std::set<std::string>{} : readList(a.expect);
    std::set<std::string> scope = a.scope.empty() ? std::set<std::string>{} : readList(a.scope);

    std::vector<CaseResult> results;
    auto collect = [&](const CaseResult& r) {
        printResult(r);
        results.push_back(r);
    };
    // Which model and data set is running, on stderr ("check [3/20] relu/test_data_set_0").
    auto showProgress = [&](size_t i, const std::string& set) {
        progress::update(fmt::format("check [{}/{}] {}", i + 1, dirs.size(), set));
    };
    if (a.isolate) {
        runIsolated(dirs, names, a.opts, g, a.timeout, collect, showProgress);
    } else {
        Context ctx = makeContext(g);
        for (size_t i = 0; i < dirs.size(); ++i)
            for (const auto& r : runCase(dirs[i], names[i], ctx, a.opts, g,
                                         [&](const std::string& set) { showProgress(i, set); }))
                collect(r);
    }
    progress::clear();

    int passed = 0, failed = 0;
    std::vector<const CaseResult*> unsupported;
    for (const auto& r : results) {
        if (r.result == "pass") ++passed;
        else if (r.result == "unsupported") unsupported.push_back(&r);
        else ++failed;
    }
    if (!unsupported.empty()) {
        fmt::print("unsupported ({}):\n", unsupported.size());
        for (const auto* u : unsupported) fmt::print("  {}: {}\n", u->name, u->detail);
    }
    if (!a.report.empty()) {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& r : results) j.push_back(r.toJson());
        writeFile(a.report, jsonText(j) + "\n");
    }
    if (!a.markdown.empty())
        writeFile(a.markdown, conformanceMarkdown(results, scope,
                                                  fmt::format("# {}\n\nGenerated by `scripts/conformance.sh` "
                                                              "(`vkinfer check --isolate`), rtol {:g}, atol {:g}{}.\n",
                                                              a.title, a.opts.rtol, a.opts.atol,
                                                              a.opts.atolAbsolute ? "" : " x max|ref|"),
                                                  caseFolderPrefixes(root)));
    if (!a.writeExpected.empty()) {
        std::string text = "# Data sets that pass (regenerate with scripts/conformance.sh); CI fails if one stops passing.\n";
        for (const auto& r : results)
            if (r.result == "pass") text += r.name + "\n";
        writeFile(a.writeExpected, text);
    }
    int rc = failed == 0 ? 0 : 1;
    if (!a.expect.empty()) {
        // Held to the expected list: known failures are tolerated, regressions and crashes not.
        auto bad = regressions(results, expected);
        for (const auto& b : bad) fmt::print("{}\n", b);
        fmt::print("{} regression{} against {} ({} expected passes)\n", bad.size(), bad.size() == 1 ? "" : "s",
                   a.expect, expected.size());
        rc = bad.empty() ? 0 : 1;
    }
    fmt::print("{} passed, {} failed, {} unsupported\n", passed, failed, unsupported.size());
    return rc;
}

}  // namespace

void addCheckCommand(CLI::App& app, GlobalOptions& g) {
    auto* cmd = app.add_subcommand(
        "check", "Run every test_data_set_* of a model folder (ONNX backend-test layout), or of every model folder "
                 "below DIR, and compare with the reference outputs");
    auto a = std::make_shared<CheckArgs>();
    cmd->add_option("dir", a->dir, "Folder with model.onnx and test_data_set_*, or a folder of such folders")
        ->required()
        ->check(nonEmpty());
    auto* rtol = cmd->add_option("--rtol", a->opts.rtol, "Relative tolerance (a finite number >= 0)")
                     ->capture_default_str()
                     ->check(finiteNonNegative());
    auto* atol =
        cmd->add_option("--atol", a->opts.atol,
                        "Absolute tolerance, as a fraction of max|ref| unless --atol-absolute (a finite number >= 0)")
            ->capture_default_str()
            ->check(finiteNonNegative());
    cmd->add_option("--peer-factor", a->opts.peerFactor,
                    "With --precision fp16: a data set with reference_fp16.json (a peer's float16 error on it) passes "
                    "within this multiple of that error; not with --rtol or --atol (a finite number >= 1)")
        ->capture_default_str()
        ->check(finiteNonNegative())
        ->check(CLI::Range(1.0, 1e6))
        ->excludes(rtol)
        ->excludes(atol);
    cmd->add_flag("--atol-absolute", a->opts.atolAbsolute, "Use --atol as an absolute tolerance");
    cmd->add_option("--filter", a->filter, "Only model folders whose name (from DIR's own name down) contains this text");
    cmd->add_option("--report", a->report, "Also write the results as JSON to this file")->check(nonEmpty());
    auto* isolate = cmd->add_flag(
        "--isolate", a->isolate,
        "Run cases in worker processes: a case that crashes (CRASH) or makes no progress for --timeout seconds "
        "(TIMEOUT) is reported as such and the rest run");
    cmd->add_option("--timeout", a->timeout,
                    "With --isolate: seconds without progress before a case is killed and reported as TIMEOUT (more "
                    "than 0, at most 1e6)")
        ->capture_default_str()
        ->check(finitePositive(1e6))
        ->needs(isolate);
    auto* markdown =
        cmd->add_option("--markdown", a->markdown, "Write a conformance report (per suite and operator) in Markdown")
            ->check(nonEmpty());
    cmd->add_option("--scope", a->scope, "With --markdown: file listing the operators that count as in scope")
        ->check(nonEmpty())
        ->needs(markdown);
    cmd->add_option("--title", a->title, "With --markdown: the report's heading")
        ->capture_default_str()
        ->check(nonEmpty())
        ->needs(markdown);
    cmd->add_option("--expect", a->expect,
                    "File listing data sets that must pass: exit 1 only if one of them does not, or any case crashes "
                    "or times out")
        ->check(nonEmpty());
    cmd->add_option("--write-expected", a->writeExpected, "Write the data sets that passed to this file")
        ->check(nonEmpty());
    cmd->callback([a, &g, rtol, atol] {
        // A tolerance given by hand is the one that applies.
        a->opts.usePeerErrors = rtol->count() == 0 && atol->count() == 0;
        int rc = checkCommand(*a, g);
        if (rc != 0) throw CliError("", rc);  // the summary line already says why
    });
}

}  // namespace vkinfer::cli
