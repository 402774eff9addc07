// Shared pieces of the vkinfer command-line tool.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <vkinfer/vkinfer.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace vkinfer::cli {

// Options every command accepts (before or after the command name).
struct GlobalOptions {
    int device = -1;
    bool validate = false;
    std::string sync = "minimal";
    std::string precision = "fp32";
};

// A failure that ends the command: printed as "vkinfer: error: ..." with the exit code.
class CliError : public std::runtime_error {
public:
    explicit CliError(const std::string& message, int exitCode = 1) : std::runtime_error(message), exitCode_(exitCode) {}
    explicit CliError(const Status& s) : CliError(s.toString()) {}
    int exitCode() const { return exitCode_; }

private:
    int exitCode_;
};

template <class T>
T orDie(Result<T>&& r) {
    if (!r.ok()) throw CliError(r.status());
    return std::move(r).value();
}
inline void orDie(const Status& s) {
    if (!s.ok()) throw CliError(s);
}

SyncMode syncMode(const GlobalOptions& g);
Precision precision(const GlobalOptions& g);
Context makeContext(const GlobalOptions& g);
SessionOptions sessionOptions(const GlobalOptions& g);

// "name=1x3x224x224" (or "1x3x224x224" when the model has one input).
InputShapes parseShapes(const std::vector<std::string>& specs, const Model& model);
// `given`, completed for dynamic inputs from test_data_set_0 next to the model file when
// present. Fails naming the input whose shape is still unknown.
InputShapes resolveShapesWithDefaults(const Model& model, const std::string& modelPath, const InputShapes& given);

// Input tensors from "-i NAME=FILE" (or "-i FILE" for a single-input model).
std::vector<NamedTensor> loadInputs(const std::vector<std::string>& specs, const Model& model);
// Deterministic uniform [0, 1) inputs of the given shapes (for bench and plan-less runs).
std::vector<NamedTensor> syntheticInputs(const Model& model, const InputShapes& shapes);

// A one-line description: shape, type, min/max/mean, and top-5 classes for [1, K] outputs.
std::string summarize(const Tensor& t);
std::string safeFileName(const std::string& tensorName);

// Adds the global options to an app or subcommand.
void addGlobalOptions(CLI::App& app, GlobalOptions& g);

// One registration function per command.
void addDevicesCommand(CLI::App& app, GlobalOptions& g);
void addRunCommand(CLI::App& app, GlobalOptions& g);
void addCheckCommand(CLI::App& app, GlobalOptions& g);
void addPlanCommand(CLI::App& app, GlobalOptions& g);
void addBenchCommand(CLI::App& app, GlobalOptions& g);

// JSON text; names from a model are arbitrary bytes, so invalid UTF-8 becomes U+FFFD
// instead of an exception.
inline std::string jsonText(const nlohmann::json& j, int indent = 1) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace vkinfer::cli
