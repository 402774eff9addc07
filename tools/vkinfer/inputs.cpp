#include "inputs.h"

#include <fmt/format.h>
#include <sys/sysinfo.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <new>
#include <optional>
#include <random>
#include <stdexcept>

namespace vkinfer::cli {

namespace fs = std::filesystem;

namespace {

// "'a', 'b'": the model's inputs, for messages.
std::string inputList(const Model& model) {
    std::string names;
    for (const auto& d : model.inputs()) names += (names.empty() ? "'" : ", '") + d.name + "'";
    return names.empty() ? "none" : names;
}

// The input a lone `-i FILE` feeds: the model's only input not given elsewhere, counting
// inputs with a default only when every input has one. Null when there are several.
const TensorDesc* onlyInputLeft(const Model& model, const std::map<std::string, std::string>& givenElsewhere) {
    std::vector<const TensorDesc*> open, required;
    for (const auto& d : model.inputs()) {
        if (givenElsewhere.count(d.name)) continue;
        open.push_back(&d);
        if (!d.hasDefault) required.push_back(&d);
    }
    if (required.size() == 1) return required[0];
    if (required.empty() && open.size() == 1) return open[0];
    if (model.inputs().size() == 1) return &model.inputs()[0];  // given twice: reported by the caller
    return nullptr;
}

// Says (on stderr) which inputs a run leaves to their defaults, so that a run on a model
// exported with its weights as inputs is not mistaken for one fed by files.
void noteDefaults(const std::vector<std::string>& names) {
    if (names.empty()) return;
    std::string list;
    for (size_t i = 0; i < names.size() && i < 4; ++i) list += (i ? ", '" : "'") + names[i] + "'";
    if (names.size() > 4) list += fmt::format(" and {} more", names.size() - 4);
    std::fprintf(stderr, "note: %s %s %s the model's default (its initializer); -i NAME=FILE overrides it\n",
                 names.size() == 1 ? "input" : "inputs", list.c_str(), names.size() == 1 ? "takes" : "take");
}

const TensorDesc* findInput(const Model& model, const std::string& name) {
    for (const auto& d : model.inputs())
        if (d.name == name) return &d;
    return nullptr;
}

// Bytes of a dense tensor, or nothing when that does not fit in 63 bits.
std::optional<int64_t> tensorBytes(DataType type, const std::vector<int64_t>& shape) {
    int64_t bytes = static_cast<int64_t>(std::max<size_t>(dataTypeSize(type), 1));
    for (int64_t d : shape) {
        if (d < 0 || (d != 0 && bytes > std::numeric_limits<int64_t>::max() / d)) return std::nullopt;
        bytes *= d;
    }
    return bytes;
}

std::vector<int64_t> parseDims(const std::string& text, const std::string& spec) {
    std::vector<int64_t> dims;
    if (text == "scalar") return dims;
    auto bad = [&](const std::string& why) {
        return CliError(fmt::format("--shape '{}': {} (expected dimensions like 1x3x224x224, or 'scalar')", spec, why), 2);
    };
    if (text.empty()) throw bad("no dimensions");
    size_t start = 0;
    for (;;) {
        size_t x = text.find_first_of("x,", start);
        std::string part = text.substr(start, x == std::string::npos ? std::string::npos : x - start);
        // Digits only: std::stoll took " 3", "+3" and "3.5" (as 3) and threw out_of_range.
        if (part.empty()) throw bad("an empty dimension");
        if (part[0] == '-' || part[0] == '+') throw bad(fmt::format("dimension '{}' is not a number >= 0", part));
        int64_t v = 0;
        auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
        if (ec == std::errc::result_out_of_range) throw bad(fmt::format("dimension {} is too large", part));
        if (ec != std::errc() || end != part.data() + part.size())
            throw bad(fmt::format("dimension '{}' is not a number", part));
        dims.push_back(v);
        if (x == std::string::npos) break;
        start = x + 1;
    }
    return dims;
}

// Splits "NAME=VALUE"; a lone VALUE is allowed when the model has exactly one input (then
// the name is empty).
std::pair<std::string, std::string> splitNamed(const std::string& spec, const char* option, const char* valueName) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos) return {"", spec};
    std::string name = spec.substr(0, eq), value = spec.substr(eq + 1);
    if (name.empty()) throw CliError(fmt::format("{} '{}': no input name before '='", option, spec), 2);
    if (value.empty()) throw CliError(fmt::format("{} '{}': no {} after '='", option, spec, valueName), 2);
    return {name, value};
}

[[noreturn]] void needsName(const std::string& spec, const Model& model, const char* option) {
    throw CliError(fmt::format("{} '{}': the model has {} inputs ({}); write {} NAME=...", option, spec,
                               model.inputs().size(), inputList(model), option),
                   2);
}

void requireInput(const Model& model, const std::string& name, const std::string& spec, const char* option) {
    if (!findInput(model, name))
        throw CliError(fmt::format("{} '{}': the model has no input '{}' (its inputs: {})", option, spec, name,
                                   inputList(model)),
                       2);
}

// Total host memory (RAM and swap). A tensor larger than this can never be filled, whatever
// malloc says: with overcommit it may succeed and the process be killed while writing.
uint64_t hostMemoryBytes() {
    struct sysinfo si {};
    if (sysinfo(&si) != 0) return std::numeric_limits<uint64_t>::max();
    return (static_cast<uint64_t>(si.totalram) + static_cast<uint64_t>(si.totalswap)) * si.mem_unit;
}

Tensor allocateInput(const std::string& name, DataType type, const std::vector<int64_t>& shape) {
    auto bytes = tensorBytes(type, shape);
    if (!bytes)
        throw CliError(fmt::format("input '{}': {} {} is too large to address", name, dataTypeName(type),
                                   shapeToString(shape)));
    const uint64_t have = hostMemoryBytes();
    if (static_cast<uint64_t>(*bytes) > have)
        throw CliError(fmt::format("input '{}': {} {} needs {} bytes of host memory, more than this machine has ({} "
                                   "bytes)",
                                   name, dataTypeName(type), shapeToString(shape), *bytes, have));
    try {
        return Tensor(type, shape);
    } catch (const std::bad_alloc&) {
    } catch (const std::length_error&) {
    }
    throw CliError(fmt::format("input '{}': {} {} needs {} bytes of host memory, which could not be allocated", name,
                               dataTypeName(type), shapeToString(shape), *bytes));
}

}  // namespace

InputShapes parseShapes(const std::vector<std::string>& specs, const Model& model) {
    InputShapes shapes;
    std::map<std::string, std::string> seen;  // input -> the spec that gave it
    for (const auto& s : specs) {
        auto [name, dims] = splitNamed(s, "--shape", "dimensions");
        if (name.empty()) {
            if (model.inputs().size() != 1) needsName(s, model, "--shape");
            name = model.inputs()[0].name;
        }
        requireInput(model, name, s, "--shape");
        if (auto [it, fresh] = seen.emplace(name, s); !fresh)
            throw CliError(fmt::format("input '{}' has two shapes: --shape '{}' and --shape '{}'", name, it->second, s), 2);
        std::vector<int64_t> shape = parseDims(dims, s);
        if (!tensorBytes(findInput(model, name)->dtype, shape))
            throw CliError(fmt::format("--shape '{}': {} tensor of this shape has more than 2^63 bytes", s,
                                       withArticle(dataTypeName(findInput(model, name)->dtype))),
                           2);
        shapes.emplace_back(name, std::move(shape));
    }
    return shapes;
}

namespace {

// `resolved` without the inputs that take their defaults (those `given` does not name), so
// that planning takes them as left out, as a run does.
InputShapes withoutDefaulted(const Model& model, InputShapes resolved, const InputShapes& given) {
    std::erase_if(resolved, [&](const auto& r) {
        const TensorDesc* d = findInput(model, r.first);
        return d && d->hasDefault &&
               std::none_of(given.begin(), given.end(), [&](const auto& g) { return g.first == r.first; });
    });
    return resolved;
}

}  // namespace

InputShapes resolveShapesWithDefaults(const Model& model, const std::string& modelPath, const InputShapes& given) {
    auto direct = model.resolveShapes(given);
    if (direct.ok()) return withoutDefaulted(model, std::move(direct).value(), given);
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
            if (r.ok()) return withoutDefaulted(model, std::move(r).value(), given);
        }
    }
    throw CliError(direct.status());
}

std::vector<NamedTensor> loadInputs(const std::vector<std::string>& specs, const Model& model,
                                    const std::map<std::string, std::string>& givenElsewhere) {
    // Names given on the command line are checked before any file is read.
    std::vector<std::pair<std::string, std::string>> named;  // (input or "", file)
    for (const auto& s : specs) {
        auto [name, file] = splitNamed(s, "-i", "file");
        if (!name.empty()) requireInput(model, name, s, "-i");
        named.emplace_back(name, file);
    }
    std::vector<NamedTensor> inputs;
    std::map<std::string, std::string> seen = givenElsewhere;  // input -> the file that feeds it
    for (size_t k = 0; k < specs.size(); ++k) {
        auto [name, file] = named[k];
        NamedTensor loaded = orDie(loadNamedTensorFile(file));
        const std::string& own = loaded.name;  // the TensorProto's name; empty for .npy
        if (!name.empty()) {
            if (!own.empty() && own != name)
                warn(fmt::format("-i '{}': the file's tensor is named '{}'; it feeds input '{}' as asked{}", specs[k], own,
                                 name, findInput(model, own) ? fmt::format(" ('{}' is an input too: swapped files?)", own) : ""));
        } else if (!own.empty() && findInput(model, own)) {
            name = own;
        } else if (const TensorDesc* only = onlyInputLeft(model, givenElsewhere)) {
            // The only input, or the only one not given by --image (defaulted ones aside).
            name = only->name;
            if (!own.empty())
                warn(fmt::format("-i '{}': the file's tensor is named '{}'; it feeds the model's only input '{}'", file,
                                 own, name));
        } else if (own.empty()) {
            throw CliError(fmt::format("-i '{}': the file names no tensor{} and the model has {} inputs ({}); write -i "
                                       "NAME=FILE",
                                       file, file.size() >= 4 && file.ends_with(".npy") ? " (.npy files have no names)" : "",
                                       model.inputs().size(), inputList(model)),
                           2);
        } else {
            throw CliError(fmt::format("-i '{}': the file's tensor is named '{}', which is not an input of the model (its "
                                       "inputs: {}); write -i NAME=FILE",
                                       file, own, inputList(model)),
                           2);
        }
        // (Entries are "-i 'FILE'" or, from givenElsewhere, "--image 'SPEC'": quoted once.)
        if (auto [it, fresh] = seen.emplace(name, "-i '" + file + "'"); !fresh)
            throw CliError(fmt::format("input '{}' is given twice: {} and -i '{}'", name, it->second, file), 2);
        inputs.push_back({name, std::move(loaded.tensor)});
    }
    std::string missing;
    size_t missingCount = 0;
    for (const auto& d : model.inputs())
        if (!seen.count(d.name) && !d.hasDefault) {
            missing += fmt::format("\n  {} {} {}", d.name, dataTypeName(d.dtype), shapeToString(d.shape));
            ++missingCount;
        }
    if (!missing.empty())
        throw CliError(fmt::format("no file given for input{}:{}\ngive each with -i NAME=FILE",
                                   missingCount == 1 ? "" : "s", missing),
                       2);
    std::vector<std::string> defaulted;
    for (const auto& d : model.inputs())
        if (!seen.count(d.name)) defaulted.push_back(d.name);
    noteDefaults(defaulted);
    return inputs;
}

std::vector<NamedTensor> syntheticInputs(const Model& model, const InputShapes& shapes) {
    std::vector<NamedTensor> inputs;
    std::mt19937 rng(1234);
    std::uniform_real_distribution<float> dist(0.0f, 1.0f);
    for (const auto& [name, shape] : shapes) {
        const TensorDesc* d = findInput(model, name);
        DataType type = d ? d->dtype : DataType::Float32;
        if (type != DataType::Float32)
            throw CliError(fmt::format("input '{}' is {}; give it with -i NAME=FILE", name, dataTypeName(type)), 2);
        Tensor t = allocateInput(name, type, shape);
        float* v = t.as<float>();
        for (int64_t i = 0; i < t.elementCount(); ++i) v[i] = dist(rng);
        inputs.push_back({name, std::move(t)});
    }
    std::vector<std::string> defaulted;  // left out by resolveShapesWithDefaults
    for (const auto& d : model.inputs())
        if (d.hasDefault && std::none_of(shapes.begin(), shapes.end(), [&](const auto& s) { return s.first == d.name; }))
            defaulted.push_back(d.name);
    noteDefaults(defaulted);
    return inputs;
}

}  // namespace vkinfer::cli
