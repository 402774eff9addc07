#include "progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace vkinfer::cli::progress {

namespace {

std::mutex lineMutex;
bool lineShown = false;  // a progress line is on the terminal now
std::atomic<bool> silenced{false};

}  // namespace

bool onTerminal() {
    static const bool tty = [] {
        const char* term = std::getenv("TERM");
        return isatty(STDERR_FILENO) == 1 && !(term && std::strcmp(term, "dumb") == 0);
    }();
    return tty;
}

void silence() { silenced = true; }

void update(const std::string& text, bool logLine) {
    if (silenced) return;
    std::lock_guard<std::mutex> lock(lineMutex);
    if (onTerminal()) {
        std::fflush(stdout);
        // \x1b[K clears what a longer previous line left to the right.
        fmt::print(stderr, "\r{}\x1b[K", text);
        std::fflush(stderr);
        lineShown = true;
    } else if (logLine) {
        fmt::print(stderr, "{}\n", text);
        std::fflush(stderr);
    }
}

void clear() {
    std::lock_guard<std::mutex> lock(lineMutex);
    if (!lineShown) return;
    fmt::print(stderr, "\r\x1b[K");
    std::fflush(stderr);
    lineShown = false;
}

SlowNotice::SlowNotice(std::string text, std::chrono::milliseconds delay) {
    thread_ = std::thread([this, text = std::move(text), delay] {
        std::unique_lock<std::mutex> lock(mutex_);
        if (done_.wait_for(lock, delay, [this] { return finished_; })) return;
        shown_ = true;
        update(text + " ...");
    });
}

SlowNotice::~SlowNotice() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        finished_ = true;
    }
    done_.notify_all();
    thread_.join();
    if (shown_) clear();
}

}  // namespace vkinfer::cli::progress
