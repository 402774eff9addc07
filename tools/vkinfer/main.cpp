// vkinfer: command-line front end of the engine (docs/CLI.md).
#include <fmt/format.h>

#include "common.h"

int main(int argc, char** argv) {
    using namespace vkinfer::cli;
    CLI::App app{"vkinfer: neural-network inference on Vulkan compute (ONNX models)", "vkinfer"};
    app.set_version_flag("--version", std::string("vkinfer ") + vkinfer::versionString());
    app.require_subcommand(1);
    app.fallthrough();
    GlobalOptions global;
    addGlobalOptions(app, global);
    addDevicesCommand(app, global);
    addRunCommand(app, global);
    addCheckCommand(app, global);
    addPlanCommand(app, global);
    addBenchCommand(app, global);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version: CLI11 prints them and the exit code is 0.
        if (e.get_exit_code() == 0) return app.exit(e);
        // Usage errors exit 2 with the same "vkinfer: error:" prefix as other failures
        // (app.exit(e) returned CLI11's own codes, 105-109, e.g. 106 for an unknown command).
        std::string message = e.what();
        if (app.get_subcommands().empty()) {
            // An unknown command was reported as "A subcommand is required".
            for (const auto& arg : app.remaining()) {
                if (arg.empty() || arg[0] == '-') continue;
                std::string names;
                for (const auto* sub : app.get_subcommands({}))
                    names += (names.empty() ? "" : ", ") + sub->get_name();
                message = fmt::format("unknown command '{}' (commands: {})", arg, names);
                break;
            }
        }
        fmt::print(stderr, "vkinfer: error: {}\nRun with --help for more information.\n", message);
        return 2;
    } catch (const CliError& e) {
        if (*e.what()) fmt::print(stderr, "vkinfer: error: {}\n", e.what());
        return e.exitCode();
    }
    return 0;
}
