// vkinfer bench --trace: one profiled run as a Chrome trace (the JSON "Trace Event Format"
// that ui.perfetto.dev and chrome://tracing open).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "common.h"

namespace vkinfer::cli {

// From the plan (Session::planJson: names, waves, barriers) and the per-dispatch timestamps
// of one profiled run (RunStats::dispatchStartMs/EndMs): every dispatch an "X" slice of
// category "dispatch" named by its op and ONNX nodes; each barrier an "i" instant of category
// "barrier" at the start of the dispatch it precedes; dispatches that overlap in time on
// separate lanes (tids), the lowest free one first; metadata naming the process (the GPU)
// and the lanes. Fails when the plan and the timestamps do not have the same dispatches.
nlohmann::json chromeTrace(const nlohmann::json& plan, const RunStats& stats, const std::string& deviceName);

}  // namespace vkinfer::cli
