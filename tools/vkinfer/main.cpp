// vkinfer: command-line front end of the engine (docs/CLI.md).
#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <regex>
#include <sstream>
#include <system_error>

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
    addUpscaleCommand(app, global);
    addInfoCommand(app, global);
    // `vkinfer COMMAND --help` lists the global options too (they are the app's, not the command's).
    const std::string globalHelp = globalOptionsHelp(app);
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) sub->footer(globalHelp);
    // A closed pipe (`vkinfer plan ... | head`) is a write error, not death by SIGPIPE (exit 141).
    std::signal(SIGPIPE, SIG_IGN);
    // Nothing may end in std::terminate's abort (exit 134): an exception that escapes where it
    // cannot be caught (a destructor, a noexcept function) still gives a message and exit 1.
    std::set_terminate([] {
        std::string what = "unknown exception";
        if (auto e = std::current_exception()) {
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& x) {
                what = x.what();
            } catch (...) {
            }
        }
        std::fprintf(stderr, "vkinfer: error: internal error: %s\n", what.c_str());
        std::_Exit(1);
    });
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
            if (message == "A subcommand is required") {
                std::string option;
                for (const auto& arg : app.remaining())
                    if (option.empty() && arg.size() > 1 && arg[0] == '-') option = arg.substr(0, arg.find('='));
                message = option.empty() ? "no command given (vkinfer --help lists the commands)"
                                         : fmt::format("unknown option '{}' (vkinfer --help lists the commands and "
                                                       "global options)",
                                                       option);
            }
        }
        // CLI11's own words where they read as a program's, not a person's.
        const std::string command =
            app.get_subcommands().empty() ? std::string("COMMAND") : app.get_subcommands().back()->get_name();
        // "The following arguments were not expected: 3 --iterations" (CLI11 lists them last first).
        static const std::regex extrasText(R"(^The following arguments? (?:were|was) not expected: (.*)$)");
        if (std::smatch m; std::regex_match(message, m, extrasText)) {
            std::vector<std::string> extras;
            std::istringstream words(m[1].str());
            for (std::string w; words >> w;) extras.insert(extras.begin(), w);
            std::string option, values;
            for (const auto& x : extras) {
                if (option.empty() && x.size() > 1 && x[0] == '-') option = x.substr(0, x.find('='));
                values += (values.empty() ? "'" : ", '") + x + "'";
            }
            message = !option.empty() ? fmt::format("unknown option '{}' (vkinfer {} --help lists the options)", option,
                                                    command)
                                      : fmt::format("unexpected argument{} {} (vkinfer {} --help lists the arguments)",
                                                    extras.size() == 1 ? "" : "s", values, command);
        }
        static const std::regex atMost(R"(^(\S+): At Most (\d+) required but received (\d+)$)");
        if (std::smatch m; std::regex_match(message, m, atMost))
            message = fmt::format("{} is given {} times; it takes {}", m[1].str(), m[3].str(),
                                  m[2] == "1" ? std::string("one value") : m[2].str() + " values");
        else if (message.ends_with(" is required"))
            message += " (vkinfer " + command + " --help lists the arguments)";
        // One line, like every other failure.
        fmt::print(stderr, "vkinfer: error: {}\n", message);
        return 2;
    } catch (const CliError& e) {
        if (*e.what()) fmt::print(stderr, "vkinfer: error: {}\n", e.what());
        return e.exitCode();
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "vkinfer: error: out of host memory (an allocation of the command line tool failed)\n");
        return 1;
    } catch (const std::system_error& e) {  // e.g. writing to a closed pipe
        fmt::print(stderr, "vkinfer: error: {}\n", e.what());
        return 1;
    } catch (const std::exception& e) {
        fmt::print(stderr, "vkinfer: error: internal error: {}\n", e.what());
        return 1;
    } catch (...) {
        fmt::print(stderr, "vkinfer: error: internal error: unknown exception\n");
        return 1;
    }
    return 0;
}
