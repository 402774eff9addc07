// Crash isolation for `vkinfer check --isolate`: a worker process runs cases and streams
// one line per event to the parent over a pipe; if it dies or stops making progress, the
// parent records the case it was on and starts a new worker at the next case. The parent
// never touches Vulkan, so forking it is safe.
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <new>

#include "check_cases.h"

namespace vkinfer::cli {

namespace fs = std::filesystem;

namespace {

void writeLine(int fd, const std::string& line) {
    std::string s = line + "\n";
    size_t off = 0;
    while (off < s.size()) {
        ssize_t n = ::write(fd, s.data() + off, s.size() - off);
        if (n <= 0) _exit(3);  // the parent went away
        off += static_cast<size_t>(n);
    }
}

// Worker: "B <i>" before case i, "D <name>" before each of its data sets, "R <json>" per
// result as soon as it is known, "E <i>" after it. It starts at case `first`, skipping its
// first `skipSets` data sets (those a killed worker finished or hung on).
[[noreturn]] void worker(int fd, const std::vector<fs::path>& dirs, const std::vector<std::string>& names, size_t first,
                         size_t skipSets, const CheckOptions& opts, const GlobalOptions& g) {
    ContextOptions co;
    co.deviceIndex = g.device;
    co.validate = g.validate;
    auto ctx = Context::create(co);
    for (size_t i = first; i < dirs.size(); ++i) {
        writeLine(fd, fmt::format("B {}", i));
        std::vector<CaseResult> results;
        if (!ctx.ok()) {
            CaseResult r;
            r.name = r.caseName = names[i];
            r.result = "fail";
            r.detail = ctx.status().toString();
            results.push_back(r);
        } else {
            // An exception here would unwind through the parent's stack frames copied by fork.
            try {
                size_t streamed = 0;
                results = runCase(
                    dirs[i], names[i], *ctx, opts, g, [fd](const std::string& set) { writeLine(fd, "D " + set); },
                    i == first ? skipSets : 0, [&](const CaseResult& r) {
                        writeLine(fd, "R " + jsonText(r.toJson(), -1));
                        ++streamed;
                    });
                // Results of a case that failed before its data sets (the model does not
                // load) were not streamed.
                if (streamed > 0) results.clear();
            } catch (const std::exception& e) {
                CaseResult r;
                r.name = r.caseName = names[i];
                r.result = "fail";
                r.detail = dynamic_cast<const std::bad_alloc*>(&e) ? "out of host memory" : fmt::format("internal error: {}", e.what());
                results = {r};
            }
        }
        for (const auto& r : results) writeLine(fd, "R " + jsonText(r.toJson(), -1));
        writeLine(fd, fmt::format("E {}", i));
    }
    _exit(0);
}

struct Worker {
    pid_t pid = -1;
    int fd = -1;
};

Worker startWorker(const std::vector<fs::path>& dirs, const std::vector<std::string>& names, size_t first,
                   size_t skipSets, const CheckOptions& opts, const GlobalOptions& g) {
    int p[2];
    if (pipe(p) != 0) throw CliError(fmt::format("pipe: {}", strerror(errno)));
    std::fflush(stdout);
    std::fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) throw CliError(fmt::format("fork: {}", strerror(errno)));
    if (pid == 0) {
        close(p[0]);
        worker(p[1], dirs, names, first, skipSets, opts, g);
    }
    close(p[1]);
    return {pid, p[0]};
}

std::string describeExit(int status) {
    if (WIFSIGNALED(status)) return fmt::format("the process died of signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
    if (WIFEXITED(status)) return fmt::format("the process exited with status {}", WEXITSTATUS(status));
    return "the process ended";
}

}  // namespace

void runIsolated(const std::vector<fs::path>& dirs, const std::vector<std::string>& names, const CheckOptions& opts,
                 const GlobalOptions& g, double timeoutSeconds, const std::function<void(const CaseResult&)>& onResult,
                 const std::function<void(size_t, const std::string&)>& onDataSet) {
    size_t next = 0, skipSets = 0;
    while (next < dirs.size()) {
        Worker w = startWorker(dirs, names, next, skipSets, opts, g);
        const size_t startedAt = next, startedSkipping = skipSets;
        skipSets = 0;
        std::string buffer;
        long current = -1;
        long setIndex = -1;    // of the data set the current case is on, counted from its first
        std::string setName;   // and its name
        auto lastProgress = std::chrono::steady_clock::now();
        bool timedOut = false;
        for (;;) {
            pollfd pfd{w.fd, POLLIN, 0};
            int ready = poll(&pfd, 1, 500);
            auto now = std::chrono::steady_clock::now();
            if (ready == 0) {
                if (current >= 0 && std::chrono::duration<double>(now - lastProgress).count() > timeoutSeconds) {
                    kill(w.pid, SIGKILL);
                    timedOut = true;
                    break;
                }
                continue;
            }
            char chunk[65536];
            ssize_t n = read(w.fd, chunk, sizeof(chunk));
            if (n <= 0) break;  // the worker finished or died
            buffer.append(chunk, static_cast<size_t>(n));
            size_t nl;
            while ((nl = buffer.find('\n')) != std::string::npos) {
                std::string line = buffer.substr(0, nl);
                buffer.erase(0, nl + 1);
                lastProgress = now;
                if (line.rfind("B ", 0) == 0) {
                    current = std::stol(line.substr(2));
                    setIndex = static_cast<size_t>(current) == startedAt ? static_cast<long>(startedSkipping) - 1 : -1;
                    setName.clear();
                } else if (line.rfind("D ", 0) == 0) {
                    ++setIndex;
                    setName = line.substr(2);
                    if (onDataSet && current >= 0) onDataSet(static_cast<size_t>(current), setName);
                } else if (line.rfind("R ", 0) == 0) {
                    onResult(CaseResult::fromJson(nlohmann::json::parse(line.substr(2))));
                } else if (line.rfind("E ", 0) == 0) {
                    next = static_cast<size_t>(std::stol(line.substr(2))) + 1;
                    current = -1;
                }
            }
        }
        close(w.fd);
        int status = 0;
        waitpid(w.pid, &status, 0);
        if (current < 0) {
            if (next < dirs.size() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
                // Died between cases (e.g. while creating its context): report once and stop.
                CaseResult r;
                r.name = r.caseName = names[next];
                r.result = "crash";
                r.detail = "the worker failed before running this case: " + describeExit(status);
                onResult(r);
                ++next;
            }
            continue;
        }
        // The data set it was on is the one recorded; the case's later data sets run in a new
        // worker, then the cases after it.
        CaseResult r = describeCase(dirs[static_cast<size_t>(current)], names[static_cast<size_t>(current)]);
        if (!setName.empty()) r.name = setName;
        r.result = timedOut ? "timeout" : "crash";
        r.detail = timedOut ? fmt::format("no progress for {:g} s; the process was killed", timeoutSeconds)
                            : describeExit(status);
        onResult(r);
        const size_t sets = listTestDataSets(dirs[static_cast<size_t>(current)].string()).size();
        if (!setName.empty() && setIndex >= 0 && static_cast<size_t>(setIndex) + 1 < sets) {
            next = static_cast<size_t>(current);
            skipSets = static_cast<size_t>(setIndex) + 1;
        } else {
            next = static_cast<size_t>(current) + 1;
        }
    }
}

}  // namespace vkinfer::cli
