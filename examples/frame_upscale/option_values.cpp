#include "option_values.h"

#include <cstdlib>

namespace demo::option {

std::string walk(int argc, char** argv, const std::map<std::string, bool>& known,
                 const std::function<std::string(const std::string&, const std::string&)>& option,
                 const std::function<std::string(const std::string&)>& positional) {
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i], value;
        bool inlineValue = false;
        if (arg.rfind("--", 0) == 0) {
            size_t eq = arg.find('=');
            if (eq != std::string::npos) {
                value = arg.substr(eq + 1);
                arg = arg.substr(0, eq);
                inlineValue = true;
            }
        }
        auto it = known.find(arg);
        if (it == known.end()) {
            if (arg.rfind("-", 0) == 0) return "unknown option '" + arg + "'";
            if (!positional) return "unexpected argument '" + arg + "' (options start with --)";
            std::string error = positional(arg);
            if (!error.empty()) return error;
            continue;
        }
        if (!it->second) {
            if (inlineValue) return "option " + arg + " takes no value";
        } else if (!inlineValue) {
            if (i + 1 >= argc) return "option " + arg + " needs a value";
            value = argv[++i];
        }
        std::string error = option(arg, value);
        if (!error.empty()) return error;
    }
    return "";
}

std::optional<uint64_t> number(const std::string& text, uint64_t lo, uint64_t hi) {
    if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    uint64_t v = std::strtoull(text.c_str(), nullptr, 10);
    if (v < lo || v > hi) return std::nullopt;
    return v;
}

std::string frames(const std::string& option, const std::string& value, uint32_t* out) {
    auto n = number(value, 1, kMaxFrames);
    if (!n) return option + " '" + value + "': expected a whole number from 1 to " + std::to_string(kMaxFrames);
    *out = static_cast<uint32_t>(*n);
    return "";
}

std::string size(const std::string& option, const std::string& value, uint32_t* width, uint32_t* height) {
    size_t x = value.find('x');
    auto w = x == std::string::npos ? std::nullopt : number(value.substr(0, x), kMinSide, kMaxSide);
    auto h = x == std::string::npos ? std::nullopt : number(value.substr(x + 1), kMinSide, kMaxSide);
    if (!w || !h)
        return option + " '" + value + "': expected WxH with each side a whole number from " +
               std::to_string(kMinSide) + " to " + std::to_string(kMaxSide) + ", e.g. 960x540";
    *width = static_cast<uint32_t>(*w);
    *height = static_cast<uint32_t>(*h);
    return "";
}

std::string pattern(const std::string& option, const std::string& value, PatternKind* out) {
    for (PatternKind k : {PatternKind::Interleaved, PatternKind::Shared, PatternKind::Separate, PatternKind::Async})
        if (value == Pattern::name(k)) {
            *out = k;
            return "";
        }
    return option + " '" + value + "': expected interleaved, shared, separate or async";
}

std::string precision(const std::string& option, const std::string& value, vkinfer::Precision* out) {
    if (value == "fp32" || value == "fp16") {
        *out = value == "fp16" ? vkinfer::Precision::Float16 : vkinfer::Precision::Float32;
        return "";
    }
    return option + " '" + value + "': expected fp32 or fp16";
}

std::string sceneCost(const std::string& option, const std::string& value, uint32_t* out) {
    auto n = number(value, 0, kMaxSceneCost);
    if (!n) return option + " '" + value + "': expected a whole number from 0 to " + std::to_string(kMaxSceneCost);
    *out = static_cast<uint32_t>(*n);
    return "";
}

std::string sharing(const std::string& option, const std::string& value, Sharing* out) {
    if (value == "exclusive" || value == "concurrent") {
        *out = value == "concurrent" ? Sharing::Concurrent : Sharing::Exclusive;
        return "";
    }
    return option + " '" + value + "': expected exclusive or concurrent";
}

std::string device(const std::string& option, const std::string& value, int* out) {
    auto n = number(value, 0, 1023);
    if (!n) return option + " '" + value + "': expected a device index (0, 1, ...)";
    *out = static_cast<int>(*n);
    return "";
}

}  // namespace demo::option
