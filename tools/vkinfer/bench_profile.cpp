#include "bench_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace vkinfer::cli {

Stats statsOf(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v) sum += x;
    auto at = [&](double q) { return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5))]; };
    return {at(0.5), v.front(), at(0.9), sum / static_cast<double>(v.size())};
}

std::string inputsText(const std::vector<NamedTensor>& inputs) {
    std::string text;
    for (const auto& in : inputs) text += (text.empty() ? "" : ", ") + in.name + "=" + shapeToString(in.tensor.shape());
    return text;
}

nlohmann::json benchJson(Session& session, const Context& ctx, const std::string& modelName,
                         const std::vector<NamedTensor>& inputs, const BenchSettings& settings,
                         const std::function<void(int done, int total)>& onRun) {
    const int warmup = std::max(settings.warmup, 1);
    const int total = warmup + settings.iters;
    for (int i = 0; i < warmup; ++i) {
        if (onRun) onRun(i, total);
        orDie(session.run(inputs));
    }
    std::vector<double> wall, gpu;
    for (int i = 0; i < settings.iters; ++i) {
        if (onRun) onRun(warmup + i, total);
        RunStats s;
        orDie(session.run(inputs, &s));
        wall.push_back(s.wallMs);
        if (s.gpuMs >= 0) gpu.push_back(s.gpuMs);
    }
    auto figures = [](const std::vector<double>& v) {
        const Stats s = statsOf(v);
        return nlohmann::json{{"median", s.median}, {"min", s.min}, {"p90", s.p90}, {"mean", s.mean}};
    };
    nlohmann::json j{{"model", modelName},
                     {"device", ctx.device().name},
                     {"inputs", inputsText(inputs)},
                     {"sync", syncModeName(session.options().sync)},
                     {"precision", precisionName(session.options().precision)},
                     {"iters", settings.iters}};
    if (!wall.empty()) j["wall_ms"] = figures(wall);
    if (!gpu.empty()) j["gpu_ms"] = figures(gpu);
    return j;
}

Profile profileDispatches(const Context& ctx, const Model& model, const std::vector<NamedTensor>& inputs,
                          SessionOptions options, int runs) {
    options.profile = true;
    options.timestamps = true;
    Session session = orDie(Session::create(ctx, model, options));
    orDie(session.run(inputs));  // compiles the plan
    std::vector<std::vector<double>> samples;
    for (int r = 0; r < runs; ++r) {
        RunStats s;
        orDie(session.run(inputs, &s));
        if (s.dispatchMs.empty()) throw CliError("--profile: the device's queue has no timestamp support");
        samples.resize(s.dispatchMs.size());
        for (size_t i = 0; i < s.dispatchMs.size(); ++i) samples[i].push_back(s.dispatchMs[i]);
    }

    // Names from the plan of the same shapes and options (the session's recording order).
    InputShapes shapes;
    for (const auto& in : inputs) shapes.emplace_back(in.name, in.tensor.shape());
    // The session's own plan: its kernels depend on the device (tensor cores, subgroup size).
    nlohmann::json schedule = nlohmann::json::parse(orDie(session.planJson(shapes)))["schedule"];

    Profile p;
    p.runs = runs;
    for (size_t i = 0; i < samples.size(); ++i) {
        DispatchTime d;
        d.index = static_cast<int>(i);
        d.ms = statsOf(samples[i]).median;
        if (i < schedule.size()) {  // (a plan keyed by input values can differ; then indices only)
            const auto& e = schedule[i];
            d.wave = e.value("wave", 0);
            d.op = e.value("op", "");
            d.kernel = e.value("kernel", "");
            if (!e["nodes"].empty()) d.node = e["nodes"][0].get<std::string>();
        }
        p.totalMs += d.ms;
        p.dispatches.push_back(std::move(d));
    }
    return p;
}

namespace {

struct OpTotal {
    std::string op;
    int dispatches = 0;
    double ms = 0;
};

std::vector<OpTotal> totalsByOp(const Profile& p) {
    std::map<std::string, OpTotal> byOp;
    for (const auto& d : p.dispatches) {
        OpTotal& t = byOp[d.op];
        t.op = d.op.empty() ? "?" : d.op;
        ++t.dispatches;
        t.ms += d.ms;
    }
    std::vector<OpTotal> v;
    for (auto& [_, t] : byOp) v.push_back(t);
    std::sort(v.begin(), v.end(), [](const OpTotal& a, const OpTotal& b) { return a.ms > b.ms; });
    return v;
}

}  // namespace

void printProfile(const Profile& p, int top, SyncMode sync) {
    fmt::print("  profile: median of {} runs, {} dispatches, {:.3f} ms in all{}\n", p.runs, p.dispatches.size(),
               p.totalMs,
               sync == SyncMode::Minimal ? " (minimal sync: dispatches of a wave overlap, each charged from the previous "
                                           "one's end; --sync conservative separates them)"
                                         : "");
    fmt::print("  {:<28} {:>10} {:>10} {:>7}\n", "op", "dispatches", "ms", "share");
    for (const auto& t : totalsByOp(p))
        fmt::print("  {:<28} {:>10} {:>10.3f} {:>6.1f}%\n", t.op, t.dispatches, t.ms,
                   p.totalMs > 0 ? 100.0 * t.ms / p.totalMs : 0.0);
    std::vector<DispatchTime> slowest = p.dispatches;
    std::sort(slowest.begin(), slowest.end(), [](const DispatchTime& a, const DispatchTime& b) { return a.ms > b.ms; });
    if (static_cast<int>(slowest.size()) > top) slowest.resize(top);
    fmt::print("  slowest {} dispatches:\n", slowest.size());
    fmt::print("  {:>5} {:>5} {:<24} {:<22} {:>8}  {}\n", "#", "wave", "op", "kernel", "ms", "node");
    for (const auto& d : slowest)
        fmt::print("  {:>5} {:>5} {:<24} {:<22} {:>8.3f}  {}\n", d.index, d.wave, d.op, d.kernel, d.ms, d.node);
}

nlohmann::json profileJson(const Profile& p) {
    nlohmann::json byOp = nlohmann::json::array();
    for (const auto& t : totalsByOp(p)) byOp.push_back({{"op", t.op}, {"dispatches", t.dispatches}, {"ms", t.ms}});
    nlohmann::json dispatches = nlohmann::json::array();
    for (const auto& d : p.dispatches)
        dispatches.push_back({{"index", d.index}, {"wave", d.wave}, {"op", d.op}, {"kernel", d.kernel},
                              {"node", d.node}, {"ms", d.ms}});
    return {{"runs", p.runs}, {"total_ms", p.totalMs}, {"by_op", byOp}, {"dispatches", dispatches}};
}

}  // namespace vkinfer::cli
