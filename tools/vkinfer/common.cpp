#include "common.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <random>

namespace vkinfer::cli {

namespace fs = std::filesystem;

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
                                          "else first integrated GPU, else device 0)");
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

namespace {

std::vector<int64_t> parseDims(const std::string& text, const std::string& spec) {
    std::vector<int64_t> dims;
    if (text.empty() || text == "scalar") return dims;
    size_t start = 0;
    while (start <= text.size()) {
        size_t x = text.find_first_of("x,", start);
        std::string part = text.substr(start, x == std::string::npos ? std::string::npos : x - start);
        try {
            size_t used = 0;
            long long v = std::stoll(part, &used);
            if (used != part.size() || v < 0) throw std::invalid_argument(part);
            dims.push_back(v);
        } catch (const std::exception&) {
            throw CliError(fmt::format("bad shape '{}': expected dimensions like 1x3x224x224", spec), 2);
        }
        if (x == std::string::npos) break;
        start = x + 1;
    }
    return dims;
}

// Splits "NAME=VALUE"; a lone VALUE is allowed when the model has exactly one input.
std::pair<std::string, std::string> splitNamed(const std::string& spec, const Model& model, const char* what) {
    size_t eq = spec.find('=');
    if (eq != std::string::npos) return {spec.substr(0, eq), spec.substr(eq + 1)};
    if (model.inputs().size() == 1) return {model.inputs()[0].name, spec};
    std::string names;
    for (const auto& d : model.inputs()) names += (names.empty() ? "" : ", ") + d.name;
    throw CliError(fmt::format("'{}': the model has {} inputs ({}); write {} as NAME=...", spec, model.inputs().size(),
                               names, what),
                   2);
}

}  // namespace

InputShapes parseShapes(const std::vector<std::string>& specs, const Model& model) {
    InputShapes shapes;
    for (const auto& s : specs) {
        auto [name, dims] = splitNamed(s, model, "--shape");
        shapes.emplace_back(name, parseDims(dims, s));
    }
    return shapes;
}

InputShapes resolveShapesWithDefaults(const Model& model, const std::string& modelPath, const InputShapes& given) {
    auto direct = model.resolveShapes(given);
    if (direct.ok()) return std::move(direct).value();
    if (direct.status().code() != ErrorCode::InvalidArgument) throw CliError(direct.status());
    // Dynamic dims not given: take them from test_data_set_0 beside the model, if any.
    auto sets = listTestDataSets(fs::path(modelPath).parent_path().string());
    if (!sets.empty()) {
        auto ds = loadTestDataSet(sets.front(), model);
        if (ds.ok()) {
            InputShapes merged = given;
            for (const auto& in : ds->inputs)
                if (std::none_of(merged.begin(), merged.end(), [&](const auto& s) { return s.first == in.name; }))
                    merged.emplace_back(in.name, in.tensor.shape());
            auto r = model.resolveShapes(merged);
            if (r.ok()) return std::move(r).value();
        }
    }
    throw CliError(direct.status());
}

std::vector<NamedTensor> loadInputs(const std::vector<std::string>& specs, const Model& model) {
    std::vector<NamedTensor> inputs;
    for (const auto& s : specs) {
        auto [name, file] = splitNamed(s, model, "-i");
        inputs.push_back({name, orDie(loadTensorFile(file))});
    }
    return inputs;
}

std::vector<NamedTensor> syntheticInputs(const Model& model, const InputShapes& shapes) {
    std::vector<NamedTensor> inputs;
    std::mt19937 rng(1234);
    std::uniform_real_distribution<float> dist(0.0f, 1.0f);
    for (const auto& [name, shape] : shapes) {
        auto it = std::find_if(model.inputs().begin(), model.inputs().end(),
                               [&](const TensorDesc& d) { return d.name == name; });
        DataType type = it != model.inputs().end() ? it->dtype : DataType::Float32;
        if (type != DataType::Float32)
            throw CliError(fmt::format("input '{}' is {}; give it with -i NAME=FILE", name, dataTypeName(type)), 2);
        Tensor t(type, shape);
        for (int64_t i = 0; i < t.elementCount(); ++i) t.as<float>()[i] = dist(rng);
        inputs.push_back({name, std::move(t)});
    }
    return inputs;
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

}  // namespace vkinfer::cli
