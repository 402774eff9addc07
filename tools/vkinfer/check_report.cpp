#include "check_report.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>

namespace vkinfer::cli {

namespace {

struct Counts {
    int total = 0, pass = 0, fail = 0, unsupported = 0, crash = 0;
    void add(const std::string& r) {
        ++total;
        if (r == "pass") ++pass;
        else if (r == "fail") ++fail;
        else if (r == "unsupported") ++unsupported;
        else ++crash;
    }
    std::string row() const { return fmt::format("{} | {} | {} | {} | {}", total, pass, fail, unsupported, crash); }
};

// The folder directly under the checked one, from the model folder's name ("data/node/test_abs"
// -> "node", "models/resnet18_half" -> "resnet18_half"); a model checked on its own is its
// own suite.
std::string suiteOf(const CaseResult& r) {
    const std::string& name = r.caseName.empty() ? r.name : r.caseName;
    size_t first = name.find('/');
    if (first == std::string::npos) return name;
    size_t second = name.find('/', first + 1);
    return name.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
}

std::set<std::string> distinctOps(const CaseResult& r) {
    if (!r.ops) return {};
    std::set<std::string> ops(r.ops->begin(), r.ops->end());
    ops.erase("Constant");
    return ops;
}

std::string withoutFolders(std::string s, const std::vector<std::string>& folders) {
    for (const auto& folder : folders)
        if (!folder.empty())
            for (size_t at = s.find(folder); at != std::string::npos; at = s.find(folder, at)) s.erase(at, folder.size());
    return s;
}

std::string oneLine(std::string s, size_t max) {
    for (char& c : s)
        if (c == '\n' || c == '|') c = ' ';
    if (s.size() > max) s = s.substr(0, max - 3) + "...";
    return s;
}

}  // namespace

std::string conformanceMarkdown(const std::vector<CaseResult>& results, const std::set<std::string>& scope,
                                const std::string& heading, const std::vector<std::string>& folders) {
    std::map<std::string, Counts> bySuite, byOp;
    Counts inScope, all, multi;
    std::map<std::string, int> foreignCases;  // by the first foreign value's type, one count per case
    std::set<std::string> seenCases;
    for (const auto& r : results) {
        all.add(r.result);
        bySuite[suiteOf(r)].add(r.result);
        auto ops = distinctOps(r);
        if (ops.size() == 1) byOp[*ops.begin()].add(r.result);
        else multi.add(r.result);
        const bool foreign = r.foreignValues && !r.foreignValues->empty();
        if (foreign && seenCases.insert(r.caseName).second) {
            const std::string& v = r.foreignValues->front();
            ++foreignCases[v.substr(v.rfind(": ") + 2)];
        }
        bool covered = !ops.empty() && !foreign &&
                       std::all_of(ops.begin(), ops.end(), [&](const std::string& o) { return scope.count(o); });
        if (covered) inScope.add(r.result);
    }
    std::string md = heading;
    md += "\n## Summary\n\n| suite | data sets | pass | fail | unsupported | crash or timeout |\n|---|---|---|---|---|---|\n";
    for (const auto& [suite, c] : bySuite) md += fmt::format("| {} | {} |\n", suite, c.row());
    md += fmt::format("| **all** | {} |\n", all.row());
    md += fmt::format(
        "\nIn scope (every operator of the case is in `tests/conformance/scope.txt`, the operators of the "
        "operator-breadth milestone and of what today's exporters write, and every input and output a tensor of an "
        "element type vkinfer has): **{} of {} pass ({:.1f}%)**, {} fail, {} unsupported, {} crash or time out.\n",
        inScope.pass, inScope.total, inScope.total ? 100.0 * inScope.pass / inScope.total : 0.0, inScope.fail,
        inScope.unsupported, inScope.crash);
    if (!foreignCases.empty()) {
        std::string list;
        for (const auto& [type, n] : foreignCases) list += fmt::format("{}{} {}", list.empty() ? "" : ", ", type, n);
        md += fmt::format("\nOut of scope whatever their operators, for an input or output vkinfer cannot hold (cases, "
                          "by its type): {}.\n",
                          list);
    }
    md += "\n## Per operator\n\nData sets of the models with a single operator type (besides Constant); cases "
          "combining several (the `_expanded` function tests, PyTorch exports) are counted in the last row.\n\n"
          "| operator | in scope | data sets | pass | fail | unsupported | crash or timeout |\n|---|---|---|---|---|---|---|\n";
    for (const auto& [op, c] : byOp) md += fmt::format("| {} | {} | {} |\n", op, scope.count(op) ? "yes" : "", c.row());
    md += fmt::format("| (several operators) | | {} |\n", multi.row());
    md += "\n## Data sets that do not pass\n\n| data set | result | why |\n|---|---|---|\n";
    for (const auto& r : results)
        if (r.result != "pass")
            md += fmt::format("| {} | {} | {} |\n", r.name, r.result, oneLine(withoutFolders(r.detail, folders), 220));
    return md;
}

std::set<std::string> readList(const std::string& path) {
    // (An ifstream opens a folder and reads nothing from it: an empty list, silently.)
    if (std::filesystem::is_directory(path)) throw CliError(fmt::format("'{}' is a folder, not a list file", path), 2);
    std::ifstream f(path);
    if (!f) throw CliError(fmt::format("cannot read '{}'", path));
    std::set<std::string> out;
    std::string line;
    while (std::getline(f, line)) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        if (line.empty() || line[0] == '#') continue;
        out.insert(line);
    }
    return out;
}

std::vector<std::string> regressions(const std::vector<CaseResult>& results, const std::set<std::string>& expected) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& r : results) {
        seen.insert(r.name);
        if (r.result == "crash" || r.result == "timeout")
            out.push_back(fmt::format("{} {}: {}", r.result == "crash" ? "CRASH" : "TIMEOUT", r.name, r.detail));
        else if (expected.count(r.name) && r.result != "pass")
            out.push_back(fmt::format("REGRESSION {} ({}): {}", r.name, r.result, r.detail));
    }
    for (const auto& e : expected)
        if (!seen.count(e)) out.push_back(fmt::format("MISSING {}: expected to pass but not run", e));
    return out;
}

}  // namespace vkinfer::cli
