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
        return app.exit(e);
    } catch (const CliError& e) {
        if (*e.what()) fmt::print(stderr, "vkinfer: error: {}\n", e.what());
        return e.exitCode();
    }
    return 0;
}
