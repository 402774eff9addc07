// Shared pieces of the vkinfer command-line tool.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <vkinfer/vkinfer.h>

#include <cstdint>
#include <functional>
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
// status() is the library's failure where one caused it, else InvalidArgument with the
// message (what the command was given does not work), for callers other than main
// (the Python package raises it as the matching exception).
class CliError : public std::runtime_error {
public:
    explicit CliError(const std::string& message, int exitCode = 1)
        : std::runtime_error(message), exitCode_(exitCode), status_(ErrorCode::InvalidArgument, message) {}
    explicit CliError(const Status& s) : std::runtime_error(s.toString()), exitCode_(1), status_(s) {}
    int exitCode() const { return exitCode_; }
    const Status& status() const { return status_; }

private:
    int exitCode_;
    Status status_;
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

// A one-line description: shape, type, min/max/mean, and top-5 classes for [1, K] outputs.
std::string summarize(const Tensor& t);
std::string safeFileName(const std::string& tensorName);
// "812 bytes", "1.5 KiB", "3.2 MiB", "1.25 GiB".
std::string bytesText(uint64_t bytes);
// "1 node", "2 nodes" (plural: where not singular + "s"); "an int32", "a uint8".
std::string counted(int64_t n, const std::string& singular, const std::string& plural = "");
std::string withArticle(const std::string& word);

// Adds the global options to an app or subcommand.
void addGlobalOptions(CLI::App& app, GlobalOptions& g);
// The global options of `app` as a help section, for the footer of each command's --help.
std::string globalOptionsHelp(const CLI::App& app);

// Checks of numeric option values (CLI11 reports a failed one as "--NAME: <message>", exit 2).
// A finite number >= 0 ("nan" and "inf" parse as doubles but are no tolerance).
CLI::Validator finiteNonNegative();
// A finite number > 0 and <= `max`.
CLI::Validator finitePositive(double max);
// A power of two in [lo, hi].
CLI::Validator powerOfTwo(uint32_t lo, uint32_t hi);
// A text that is not empty (paths: "-o ''" meant no output folder, silently).
CLI::Validator nonEmpty();
// An integer in [lo, hi] (hi = INT_MAX: "an integer >= lo").
CLI::Validator intInRange(int64_t lo, int64_t hi);

// Prints "vkinfer: warning: <message>" on stderr, or hands it to the sink set for this
// thread (a library caller shows warnings its own way).
void warn(const std::string& message);
using WarningSink = std::function<void(const std::string& message)>;
// Sets this thread's sink (an empty one restores stderr) and returns the previous one.
WarningSink setWarningSink(WarningSink sink);

// One registration function per command.
void addDevicesCommand(CLI::App& app, GlobalOptions& g);
void addRunCommand(CLI::App& app, GlobalOptions& g);
void addCheckCommand(CLI::App& app, GlobalOptions& g);
void addPlanCommand(CLI::App& app, GlobalOptions& g);
void addBenchCommand(CLI::App& app, GlobalOptions& g);
void addUpscaleCommand(CLI::App& app, GlobalOptions& g);
void addInfoCommand(CLI::App& app, GlobalOptions& g);

// JSON text; names from a model are arbitrary bytes, so invalid UTF-8 becomes U+FFFD
// instead of an exception.
inline std::string jsonText(const nlohmann::json& j, int indent = 1) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace vkinfer::cli
