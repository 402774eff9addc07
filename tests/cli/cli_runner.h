// Runs the built vkinfer CLI as a subprocess and captures its exit code, stdout and stderr.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "io/io_test_util.h"

extern char** environ;

namespace vkinfer::testing {

struct CliResult {
    int exitCode = -1;  // the process's exit status; 128 + signal if it died of a signal
    std::string out;
    std::string err;

    std::vector<std::string> outLines() const {
        std::vector<std::string> lines;
        std::istringstream in(out);
        for (std::string l; std::getline(in, l);) lines.push_back(l);
        return lines;
    }
    std::string lastOutLine() const {
        auto lines = outLines();
        return lines.empty() ? std::string() : lines.back();
    }
    // For failure messages.
    std::string describe() const {
        return "exit " + std::to_string(exitCode) + "\n--- stdout ---\n" + out + "--- stderr ---\n" + err;
    }
};

// Runs `VKINFER_CLI args...` (no shell: arguments are passed as they are), with the
// environment of the test plus `env` ("NAME=VALUE" entries, overriding), in folder `cwd`
// (empty: the test's). Kills the process after timeoutSeconds and fails the test then.
inline CliResult runCli(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                        const std::string& cwd = "", int timeoutSeconds = 120) {
    TempDir tmp;
    const std::string outPath = tmp.file("stdout"), errPath = tmp.file("stderr");

    std::vector<std::string> argStrings;
    argStrings.push_back(VKINFER_CLI);
    argStrings.insert(argStrings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argStrings) argv.push_back(a.data());
    argv.push_back(nullptr);

    std::vector<std::string> envStrings;
    for (char** e = environ; *e; ++e) {
        std::string entry(*e);
        std::string name = entry.substr(0, entry.find('='));
        bool overridden = false;
        for (const auto& o : env) overridden |= o.substr(0, o.find('=')) == name;
        if (!overridden) envStrings.push_back(entry);
    }
    envStrings.insert(envStrings.end(), env.begin(), env.end());
    std::vector<char*> envp;
    for (auto& e : envStrings) envp.push_back(e.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
    pid_t pid = -1;
    int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error(std::string("posix_spawn ") + VKINFER_CLI + " failed: " + std::to_string(rc));

    CliResult r;
    int status = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (w < 0) throw std::runtime_error("waitpid failed");
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            ADD_FAILURE() << "vkinfer did not finish within " << timeoutSeconds << " s";
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = readFile(outPath);
    r.err = readFile(errPath);
    return r;
}

}  // namespace vkinfer::testing
