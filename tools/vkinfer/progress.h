// Progress of long work on stderr, so that stdout stays the results alone (and --json pure
// JSON). On a terminal, one line rewritten in place with \r; otherwise plain lines, for logs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace vkinfer::cli::progress {

// True when stderr is a terminal (and TERM is not "dumb").
bool onTerminal();
// Shows nothing from now on (a library caller: the Python package).
void silence();

// Shows `text` as the current progress ("check [3/20] relu/test_data_set_0"). On a terminal
// the line replaces the previous one; otherwise it is printed as a line of its own, unless
// `logLine` is false (updates too frequent for a log, such as iterations of a benchmark).
void update(const std::string& text, bool logLine = true);
// Removes the progress line from the terminal (before results go to stdout, or a warning to
// stderr, on the same terminal). Nothing to do when not on a terminal.
void clear();

// Says `text` on stderr (as update) only if the scope lasts longer than `delay`: long plans
// show that something is happening, short ones add nothing to the output. Cleared at the end.
class SlowNotice {
public:
    SlowNotice(std::string text, std::chrono::milliseconds delay = std::chrono::milliseconds(1500));
    ~SlowNotice();
    SlowNotice(const SlowNotice&) = delete;
    SlowNotice& operator=(const SlowNotice&) = delete;

private:
    std::mutex mutex_;
    std::condition_variable done_;
    bool finished_ = false;
    bool shown_ = false;
    std::thread thread_;
};

}  // namespace vkinfer::cli::progress
