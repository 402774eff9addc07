// Command-line parsing the demo (options.cpp) and the patterns benchmark
// (bench/patterns/patterns_bench.cpp) share: the walk over argv and the values both take.
// Nothing here exits: each returns "" or the usage error to print (exit status 2), naming
// the option and what it takes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "pattern.h"

namespace demo::option {

constexpr uint32_t kMaxFrames = 1000000;
constexpr uint32_t kMaxSceneCost = 100000;
constexpr uint32_t kMinSide = 8, kMaxSide = 4096;

// Walks argv[1..]: `--name VALUE`, `--name=VALUE` and flags, as `known` (name -> takes a
// value) lists them, are given to `option(name, value)`; other arguments to `positional(arg)`
// (null: an error). Stops at the first error either returns.
std::string walk(int argc, char** argv, const std::map<std::string, bool>& known,
                 const std::function<std::string(const std::string&, const std::string&)>& option,
                 const std::function<std::string(const std::string&)>& positional = nullptr);

// A decimal number in [lo, hi], all of `text`.
std::optional<uint64_t> number(const std::string& text, uint64_t lo, uint64_t hi);

// The values: `option` is the name for the message ("--frames").
std::string frames(const std::string& option, const std::string& value, uint32_t* out);
std::string size(const std::string& option, const std::string& value, uint32_t* width, uint32_t* height);
std::string pattern(const std::string& option, const std::string& value, PatternKind* out);
std::string precision(const std::string& option, const std::string& value, vkinfer::Precision* out);
std::string sceneCost(const std::string& option, const std::string& value, uint32_t* out);
std::string sharing(const std::string& option, const std::string& value, Sharing* out);
std::string device(const std::string& option, const std::string& value, int* out);

}  // namespace demo::option
