// The error a peer framework makes in float16 on a data set, as the project's export script
// records it beside the data (test_data_set_<k>/reference_fp16.json), so that `vkinfer check
// --precision fp16` can hold vkinfer to a multiple of it instead of a tolerance set by hand.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "vkinfer/status.h"

namespace vkinfer::cli {

struct PeerErrors {
    std::string source;                      // who measured it ("PyTorch 2.11.0 CUDA float16 on ...")
    std::map<std::string, double> maxError;  // per output name: max |peer - reference|
};

// The name of the file in a data set folder.
inline constexpr const char* kPeerErrorFile = "reference_fp16.json";

// Reads `set`/reference_fp16.json: {"source": "...", "outputs": {"<name>": {"max_abs_error": e}}}.
// None when the file does not exist; ParseError naming the file and what is wrong otherwise
// (not JSON, no outputs, an error that is not a finite number >= 0).
Result<std::optional<PeerErrors>> readPeerErrors(const std::filesystem::path& set);

}  // namespace vkinfer::cli
