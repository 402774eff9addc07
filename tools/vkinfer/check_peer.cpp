#include "check_peer.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace vkinfer::cli {

namespace fs = std::filesystem;

Result<std::optional<PeerErrors>> readPeerErrors(const fs::path& set) {
    const fs::path file = set / kPeerErrorFile;
    std::error_code ec;
    if (!fs::exists(file, ec)) return std::optional<PeerErrors>{};
    auto bad = [&](const std::string& why) {
        return Status(ErrorCode::ParseError, fmt::format("'{}': {}", file.string(), why));
    };
    std::ifstream f(file);
    if (!f || fs::is_directory(file, ec)) return bad("cannot read the file");
    std::stringstream text;
    text << f.rdbuf();
    auto j = nlohmann::json::parse(text.str(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
    PeerErrors p;
    if (auto s = j.find("source"); s != j.end()) {
        if (!s->is_string()) return bad("\"source\" is not a string");
        p.source = s->get<std::string>();
    }
    auto outs = j.find("outputs");
    if (outs == j.end() || !outs->is_object() || outs->empty()) return bad("no \"outputs\" object naming the outputs");
    for (const auto& [name, o] : outs->items()) {
        auto e = o.is_object() ? o.find("max_abs_error") : o.end();
        if (e == o.end() || !e->is_number() || !std::isfinite(e->get<double>()) || e->get<double>() < 0)
            return bad(fmt::format("output '{}': \"max_abs_error\" is not a finite number >= 0", name));
        p.maxError[name] = e->get<double>();
    }
    return std::optional<PeerErrors>{std::move(p)};
}

}  // namespace vkinfer::cli
