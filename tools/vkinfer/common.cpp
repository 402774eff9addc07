#include "common.h"

#include "progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace vkinfer::cli {

SyncMode syncMode(const GlobalOptions& g) {
    return g.sync == "conservative" ? SyncMode::Conservative : SyncMode::Minimal;
}

Precision precision(const GlobalOptions& g) { return g.precision == "fp16" ? Precision::Float16 : Precision::Float32; }

Context makeContext(const GlobalOptions& g) {
    ContextOptions o;
    o.deviceIndex = g.device;
    o.validate = g.validate;
    return orDie(Context::create(o));
}

SessionOptions sessionOptions(const GlobalOptions& g) {
    SessionOptions o;
    o.sync = syncMode(g);
    o.precision = precision(g);
    return o;
}

void addGlobalOptions(CLI::App& app, GlobalOptions& g) {
    app.add_option("--device", g.device, "Vulkan device index from `vkinfer devices` (default: first discrete GPU, "
                                          "else first integrated GPU, else device 0)")
        ->check(intInRange(0, std::numeric_limits<int>::max()));
    app.add_flag("--validate", g.validate,
                 "Enable the Khronos validation layer with synchronization validation; any message fails the "
                 "command (also: VKINFER_VALIDATE=1)");
    app.add_option("--sync", g.sync, "Barrier placement: minimal (derived from hazards) or conservative (after every "
                                     "dispatch)")
        ->check(CLI::IsMember({"minimal", "conservative"}));
    app.add_option("--precision", g.precision,
                   "Tensor precision: fp32 (default) or fp16 (float16 storage, float32 arithmetic; graph inputs and "
                   "outputs stay float32)")
        ->check(CLI::IsMember({"fp32", "fp16"}));
}

std::string globalOptionsHelp(const CLI::App& app) {
    std::vector<const CLI::Option*> opts;
    for (const CLI::Option* o : app.get_options())
        if (o != app.get_help_ptr() && o->get_name() != "--version") opts.push_back(o);
    return CLI::Formatter().make_group("Global options (before or after the command)", false, opts);
}

CLI::Validator finiteNonNegative() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            double v = 0;
            if (!CLI::detail::lexical_cast(text, v)) return "'" + text + "' is not a number";
            if (!std::isfinite(v) || v < 0) return "must be a finite number >= 0, got " + text;
            return {};
        },
        "NUMBER>=0");
}

CLI::Validator finitePositive(double max) {
    return CLI::Validator(
        [max](std::string& text) -> std::string {
            double v = 0;
            if (!CLI::detail::lexical_cast(text, v)) return "'" + text + "' is not a number";
            if (!std::isfinite(v) || v <= 0 || v > max) return fmt::format("must be a number > 0 and <= {:g}, got {}", max, text);
            return {};
        },
        "NUMBER>0");
}

CLI::Validator powerOfTwo(uint32_t lo, uint32_t hi) {
    return CLI::Validator(
        [lo, hi](std::string& text) -> std::string {
            uint64_t v = 0;
            if (!CLI::detail::lexical_cast(text, v) || v < lo || v > hi || (v & (v - 1)) != 0)
                return fmt::format("must be a power of two from {} to {}, got {}", lo, hi, text);
            return {};
        },
        fmt::format("POW2 in [{}, {}]", lo, hi));
}

CLI::Validator nonEmpty() {
    return CLI::Validator([](std::string& text) -> std::string { return text.empty() ? "must not be empty" : ""; }, "");
}

CLI::Validator intInRange(int64_t lo, int64_t hi) {
    const bool open = hi == std::numeric_limits<int>::max();
    return CLI::Validator(
        [lo, hi, open](std::string& text) -> std::string {
            int64_t v = 0;
            if (CLI::detail::lexical_cast(text, v) && v >= lo && v <= hi) return {};
            return open ? fmt::format("must be an integer >= {}, got {}", lo, text)
                        : fmt::format("must be an integer from {} to {}, got {}", lo, hi, text);
        },
        open ? fmt::format("INT>={}", lo) : fmt::format("INT in [{}, {}]", lo, hi));
}

namespace {
thread_local WarningSink warningSink;
}

WarningSink setWarningSink(WarningSink sink) {
    std::swap(warningSink, sink);
    return sink;
}

void warn(const std::string& message) {
    if (warningSink) return warningSink(message);
    progress::clear();
    fmt::print(stderr, "vkinfer: warning: {}\n", message);
}

std::string bytesText(uint64_t b) {
    if (b < 1024) return fmt::format("{} bytes", b);
    if (b < (uint64_t(1) << 20)) return fmt::format("{:.1f} KiB", double(b) / 1024);
    if (b < (uint64_t(1) << 30)) return fmt::format("{:.1f} MiB", double(b) / (1 << 20));
    return fmt::format("{:.2f} GiB", double(b) / double(uint64_t(1) << 30));
}

std::string summarize(const Tensor& t) {
    std::string s = fmt::format("{} {}", dataTypeName(t.dtype()), shapeToString(t.shape()));
    const int64_t n = t.elementCount();
    if (n == 0) return s + " (empty)";
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    int64_t nonFinite = 0;
    for (int64_t i = 0; i < n; ++i) {
        double v = t.getDouble(i);
        if (!std::isfinite(v)) {
            ++nonFinite;
            continue;
        }
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
    }
    s += fmt::format("  min {:.6g}  max {:.6g}  mean {:.6g}", lo, hi, sum / std::max<int64_t>(n - nonFinite, 1));
    if (nonFinite) s += fmt::format("  ({} non-finite values)", nonFinite);
    const auto& sh = t.shape();
    if (sh.size() == 2 && sh[0] == 1 && sh[1] > 1) {
        std::vector<int64_t> idx(static_cast<size_t>(sh[1]));
        std::iota(idx.begin(), idx.end(), 0);
        size_t k = std::min<size_t>(5, idx.size());
        std::partial_sort(idx.begin(), idx.begin() + static_cast<long>(k), idx.end(),
                          [&](int64_t a, int64_t b) { return t.getDouble(a) > t.getDouble(b); });
        s += "\n    top-" + std::to_string(k) + ":";
        for (size_t i = 0; i < k; ++i) s += fmt::format(" {} ({:.4g})", idx[i], t.getDouble(idx[i]));
    }
    return s;
}

std::string safeFileName(const std::string& tensorName) {
    std::string out;
    for (char c : tensorName) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.') ? c : '_';
    while (!out.empty() && (out.front() == '_' || out.front() == '.')) out.erase(out.begin());
    return out.empty() ? "output" : out;
}

std::string counted(int64_t n, const std::string& singular, const std::string& plural) {
    return fmt::format("{} {}", n, n == 1 ? singular : plural.empty() ? singular + "s" : plural);
}

std::string withArticle(const std::string& word) {
    const bool an = !word.empty() && (std::string("aeio").find(word[0]) != std::string::npos ||
                                      (word[0] == 'u' && word.rfind("uint", 0) != 0));
    return (an ? "an " : "a ") + word;
}

}  // namespace vkinfer::cli
