// The work behind `vkinfer check`: finding model folders, running their data sets in this
// process or in isolated worker processes, and the results.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common.h"

namespace vkinfer::cli {

struct CheckOptions {
    double rtol = 1e-3;
    double atol = 1e-4;
    bool atolAbsolute = false;
    // Under --precision fp16, a data set with a peer's float16 error beside it
    // (check_peer.h) passes an output whose every element is within peerFactor x that error
    // of the reference (or within the tolerance above, whichever is larger). Off when the
    // tolerance is given on the command line.
    bool usePeerErrors = true;
    double peerFactor = 2.0;
};

// One line of the check output: a data set, or a whole case (unsupported, crashed, ...).
struct CaseResult {
    std::string name;       // "<case>/test_data_set_<k>", or "<case>"
    std::string caseName;   // "<case>": the folder, from the checked folder's own name down
    std::string result;     // pass | fail | unsupported | crash | timeout
    std::string detail;
    // Over the outputs compared with their reference; none (null in JSON) when nothing was
    // compared: the model or data set did not load or run, or no output had the right shape.
    std::optional<double> maxError;
    std::optional<double> maxRef;
    // The peer's float16 max error on this data set (over the outputs compared with it) and
    // who measured it, when the tolerance was derived from it.
    std::optional<double> peerMaxError;
    std::string peerSource;
    // Operator types of the model's nodes; none when the model file does not parse.
    std::optional<std::vector<std::string>> ops;
    // The model's inputs and outputs that are not dense tensors of an element type vkinfer
    // has ("input 'x': bfloat16", "output 'y': not a typed tensor" for a sequence, map or
    // optional); none when the file does not parse.
    // The conformance report counts such a case out of scope, whatever its operators.
    std::optional<std::vector<std::string>> foreignValues;

    nlohmann::json toJson() const;
    static CaseResult fromJson(const nlohmann::json& j);
};

// Folders holding a model.onnx: `dir` itself, or those below it (sorted).
std::vector<std::filesystem::path> caseFolders(const std::filesystem::path& dir);
// `p` relative to the folder above `root`, so that names start with root's own name.
std::string caseName(const std::filesystem::path& p, const std::filesystem::path& root);
// The folder caseName's names are relative to, with a trailing '/': absolute first, then as
// `root` spells it (when it has a parent there).
std::vector<std::string> caseFolderPrefixes(const std::filesystem::path& root);

// A result naming the case `name` (model folder `dir`) with what its file declares (ops,
// foreignValues) and nothing run yet.
CaseResult describeCase(const std::filesystem::path& dir, const std::string& name);

// Runs every data set of one model folder in this process, but the first `skipSets`;
// `onDataSet` hears the name of each data set ("<case>/test_data_set_0") before it runs
// (progress), `onSetResult` each data set's result as soon as it is known (a worker streams
// them, so that a later data set that hangs loses none).
std::vector<CaseResult> runCase(const std::filesystem::path& dir, const std::string& name, Context& ctx,
                                const CheckOptions& opts, const GlobalOptions& g,
                                const std::function<void(const std::string&)>& onDataSet = {}, size_t skipSets = 0,
                                const std::function<void(const CaseResult&)>& onSetResult = {});

// Runs the cases in worker processes (one at a time, each reused for the cases that follow)
// so that a case that crashes or hangs for longer than `timeoutSeconds` is recorded as such
// and the rest still run. Calls `onResult` in case order, and `onDataSet` (case index, data
// set name) when a worker starts a data set.
void runIsolated(const std::vector<std::filesystem::path>& dirs, const std::vector<std::string>& names,
                 const CheckOptions& opts, const GlobalOptions& g, double timeoutSeconds,
                 const std::function<void(const CaseResult&)>& onResult,
                 const std::function<void(size_t, const std::string&)>& onDataSet = {});

}  // namespace vkinfer::cli
