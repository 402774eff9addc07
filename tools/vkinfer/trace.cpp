#include "trace.h"

#include <fmt/format.h>

#include <algorithm>

namespace vkinfer::cli {

namespace {

constexpr int kPid = 1;

std::string sliceName(const nlohmann::json& entry) {
    std::string nodes;
    for (const auto& n : entry["nodes"]) nodes += (nodes.empty() ? "" : ", ") + n.get<std::string>();
    const std::string op = entry.value("op", "");
    return nodes.empty() ? op : op + " " + nodes;
}

}  // namespace

nlohmann::json chromeTrace(const nlohmann::json& plan, const RunStats& stats, const std::string& deviceName) {
    const auto& schedule = plan["schedule"];
    const size_t n = stats.dispatchStartMs.size();
    if (n == 0 || stats.dispatchEndMs.size() != n)
        throw CliError("--trace: the run recorded no per-dispatch timestamps (the device's queue has no timestamp "
                       "support)");
    if (schedule.size() != n)
        throw CliError(fmt::format("--trace: the plan has {} dispatches but the run timed {}", schedule.size(), n));

    nlohmann::json events = nlohmann::json::array();
    events.push_back({{"ph", "M"}, {"pid", kPid}, {"name", "process_name"}, {"args", {{"name", "GPU: " + deviceName}}}});
    std::vector<double> laneEnd;  // per lane, when its last slice ends (µs)
    for (size_t i = 0; i < n; ++i) {
        const auto& e = schedule[i];
        const double ts = stats.dispatchStartMs[i] * 1000.0;
        const double dur = std::max(0.0, stats.dispatchEndMs[i] * 1000.0 - ts);
        size_t lane = 0;
        while (lane < laneEnd.size() && laneEnd[lane] > ts) ++lane;
        if (lane == laneEnd.size()) laneEnd.push_back(0);
        laneEnd[lane] = ts + dur;
        if (!e["barrier"].is_null()) {
            const auto& b = e["barrier"];
            const bool memory = b.value("memory_dependency", false);
            events.push_back({{"ph", "i"},
                              {"cat", "barrier"},
                              {"name", memory ? "barrier (memory)" : "barrier (execution)"},
                              {"pid", kPid},
                              {"tid", lane + 1},
                              {"ts", ts},
                              {"s", "p"},
                              {"args", {{"before_dispatch", i}, {"hazards", b["hazards"]}}}});
        }
        events.push_back({{"ph", "X"},
                          {"cat", "dispatch"},
                          {"name", sliceName(e)},
                          {"pid", kPid},
                          {"tid", lane + 1},
                          {"ts", ts},
                          {"dur", dur},
                          {"args",
                           {{"index", i},
                            {"wave", e.value("wave", 0)},
                            {"op", e.value("op", "")},
                            {"kernel", e.value("kernel", "")},
                            {"nodes", e["nodes"]},
                            {"groups", e["groups"]}}}});
    }
    for (size_t lane = 0; lane < laneEnd.size(); ++lane) {
        events.push_back({{"ph", "M"}, {"pid", kPid}, {"tid", lane + 1}, {"name", "thread_name"},
                          {"args", {{"name", fmt::format("lane {}", lane + 1)}}}});
        events.push_back({{"ph", "M"}, {"pid", kPid}, {"tid", lane + 1}, {"name", "thread_sort_index"},
                          {"args", {{"sort_index", lane + 1}}}});
    }
    return {{"traceEvents", events},
            {"displayTimeUnit", "ms"},
            {"otherData",
             {{"model", plan.value("model", "")},
              {"device", deviceName},
              {"sync", plan.value("sync", "")},
              {"precision", plan.value("precision", "")},
              {"inputs", plan["inputs"]},
              {"dispatches", n},
              {"gpu_ms", stats.gpuMs}}}};
}

}  // namespace vkinfer::cli
