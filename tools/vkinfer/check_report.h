// Reports over `vkinfer check` results: the Markdown conformance report and the
// expected-pass list that CI holds the engine to.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "check_cases.h"

namespace vkinfer::cli {

// Per suite (first path component), per operator (cases with one operator type besides
// Constant), the in-scope pass rate (cases all of whose operators are in `scope`), and every
// case that does not pass with its reason. `folders` (the checked folder's parent as given and
// absolute, each ending in '/') are cut from the reasons, so that the report names files as
// the case names do and does not depend on where the data lies.
std::string conformanceMarkdown(const std::vector<CaseResult>& results, const std::set<std::string>& scope,
                                const std::string& heading, const std::vector<std::string>& folders = {});

// Lines of a list file, without blanks and '#' comments.
std::set<std::string> readList(const std::string& path);

// Names of expected passes that did not pass, and every crash or timeout.
std::vector<std::string> regressions(const std::vector<CaseResult>& results, const std::set<std::string>& expected);

}  // namespace vkinfer::cli
