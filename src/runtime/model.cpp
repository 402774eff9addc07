#include "vkinfer/model.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "io/mapped_file.h"
#include "io/onnx_info.h"
#include "io/onnx_import.h"
#include "io/whole_file.h"
#include "ops/registry.h"
#include "runtime/model_data.h"

namespace vkinfer {

bool TensorDesc::isDynamic() const {
    return !rankKnown || std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; });
}

namespace {

std::shared_ptr<detail::ModelData> buildModel(const void* data, size_t size, const std::string& label,
                                              const std::string& externalDataFolder) {
    auto m = std::make_shared<detail::ModelData>();
    m->graph = io::importOnnx(data, size, label, externalDataFolder);
    m->label = label;
    m->nodeCount = m->graph.nodes.size();
    try {
        ops::checkSupported(m->graph);
    } catch (const Error& e) {  // name the file too: a batch of models may be loading
        throw Error(Status(e.status().code(), label + ": " + e.status().message()));
    }
    for (const auto& in : m->graph.inputs) {
        const auto& v = m->graph.values[in.value];
        m->inputs.push_back({v.name, v.dtype, in.dims, in.dimNames, in.rankKnown, in.defaultValue.has_value()});
    }
    for (size_t k = 0; k < m->graph.outputs.size(); ++k) {
        const auto& v = m->graph.values[m->graph.outputs[k]];
        TensorDesc d{v.name, v.dtype, {}, {}, false};
        for (const auto& n : m->graph.outputDimNames[k]) {
            d.shape.push_back(-1);
            d.dimNames.push_back(n);
        }
        m->outputs.push_back(std::move(d));
    }
    return m;
}

// A model file's bytes: mapped (no copy before protobuf's own), or read into memory when the
// path is not a regular file (a pipe, /dev/stdin).
struct ModelBytes {
    std::shared_ptr<const io::MappedFile> file;
    std::string copy;
    const void* data() const { return file ? static_cast<const void*>(file->data()) : copy.data(); }
    size_t size() const { return file ? static_cast<size_t>(file->size()) : copy.size(); }
};

ModelBytes readModel(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        fail(ErrorCode::InvalidArgument, "'{}' is a folder; give the model file (e.g. '{}/model.onnx')", path, path);
    ModelBytes bytes;
    io::MappedFile::Failure why;
    bytes.file = io::MappedFile::open(path, &why);
    if (bytes.file && (bytes.file->data() || bytes.file->size() == 0)) return bytes;
    if (!bytes.file && !why.notRegularFile)
        fail(ErrorCode::NotFound, "cannot open model '{}': {}", path, std::strerror(why.error));
    bytes.file.reset();
    bytes.copy = io::readWholeFile(path, "model");  // a FIFO or device, or a file that cannot be mapped
    return bytes;
}

// The folder a model file's external data locations are relative to.
std::string folderOf(const std::string& path) {
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    return parent.empty() ? std::string(".") : parent.string();
}

}  // namespace

Result<Model> Model::load(const std::string& path) {
    return guardResult<Model>([&] {
        ModelBytes bytes = readModel(path);
        Model model;
        model.data_ = buildModel(bytes.data(), bytes.size(), path, folderOf(path));
        return model;
    });
}

Result<std::vector<std::string>> Model::listOperators(const std::string& path) {
    return guardResult<std::vector<std::string>>([&] {
        ModelBytes bytes = readModel(path);
        return io::listOnnxOperators(bytes.data(), bytes.size(), path);
    });
}

Result<ModelInfo> Model::inspect(const std::string& path) {
    return guardResult<ModelInfo>([&] {
        ModelBytes bytes = readModel(path);
        const io::OperatorSupport support{
            [](std::string_view op, int64_t opset) { return ops::findOp(op, opset) != nullptr; },
            [](std::string_view op) { return ops::findOpAnyOpset(op) != nullptr; }};
        return io::inspectOnnx(bytes.data(), bytes.size(), path, support);
    });
}

Result<Model> Model::fromBytes(const void* data, size_t size, const std::string& label,
                               const std::string& externalDataFolder) {
    return guardResult<Model>([&] {
        Model model;
        model.data_ = buildModel(data, size, label, externalDataFolder);
        return model;
    });
}

const std::vector<TensorDesc>& Model::inputs() const { return data_->inputs; }

const Tensor* Model::defaultInput(const std::string& name) const {
    for (size_t i = 0; i < data_->inputs.size(); ++i)
        if (data_->inputs[i].name == name) return data_->defaultOf(i);
    return nullptr;
}

namespace detail {

std::vector<NamedTensor> defaultValues(const ModelData& model, const std::vector<bool>& leftOut) {
    std::vector<NamedTensor> values;
    for (size_t i = 0; i < leftOut.size() && i < model.inputs.size(); ++i)
        if (const Tensor* d = leftOut[i] ? model.defaultOf(i) : nullptr) values.push_back({model.inputs[i].name, *d});
    return values;
}

std::vector<bool> defaultedUnlessNamed(const ModelData& model, const InputShapes& given) {
    std::vector<bool> defaulted(model.inputs.size());
    for (size_t i = 0; i < defaulted.size(); ++i)
        defaulted[i] = model.defaultOf(i) && std::none_of(given.begin(), given.end(), [&](const auto& g) {
                           return g.first == model.inputs[i].name;
                       });
    return defaulted;
}

}  // namespace detail

const std::vector<TensorDesc>& Model::outputs() const { return data_->outputs; }
int64_t Model::opset() const { return data_->graph.opset; }
size_t Model::nodeCount() const { return data_->nodeCount; }
const std::string& Model::label() const { return data_->label; }

Result<InputShapes> Model::resolveShapes(const InputShapes& given) const {
    return guardResult<InputShapes>([&] {
        for (const auto& [name, shape] : given) {
            bool known = std::any_of(data_->inputs.begin(), data_->inputs.end(),
                                     [&, &name = name](const TensorDesc& d) { return d.name == name; });
            if (!known) {
                std::string names;
                for (const auto& d : data_->inputs) names += (names.empty() ? "'" : ", '") + d.name + "'";
                fail(ErrorCode::InvalidArgument, "the model has no input named '{}' (its inputs: {})", name, names);
            }
        }
        InputShapes out;
        for (const auto& d : data_->inputs) {
            auto it = std::find_if(given.begin(), given.end(), [&](const auto& g) { return g.first == d.name; });
            if (it != given.end()) {
                const auto& s = it->second;
                if (d.rankKnown && s.size() != d.shape.size())
                    fail(ErrorCode::InvalidArgument, "input '{}' has rank {} but the model declares rank {} ({})", d.name,
                         s.size(), d.shape.size(), shapeToString(d.shape));
                for (size_t i = 0; i < s.size(); ++i) {
                    if (s[i] < 0) fail(ErrorCode::InvalidArgument, "input '{}': negative dimension {}", d.name, i);
                    if (i < d.shape.size() && d.shape[i] >= 0 && d.shape[i] != s[i])
                        fail(ErrorCode::InvalidArgument, "input '{}' has shape {} but the model declares {} (dimension {})",
                             d.name, shapeToString(s), shapeToString(d.shape), i);
                }
                out.emplace_back(d.name, s);
                continue;
            }
            if (const Tensor* value = data_->defaultOf(out.size())) {
                out.emplace_back(d.name, value->shape());
                continue;
            }
            if (!d.rankKnown)
                fail(ErrorCode::InvalidArgument, "input '{}' has no declared shape; give it (CLI: --shape {}=...)", d.name,
                     d.name);
            for (size_t i = 0; i < d.shape.size(); ++i)
                if (d.shape[i] < 0)
                    fail(ErrorCode::InvalidArgument,
                         "input '{}' has a dynamic dimension {} ('{}'); give its shape (CLI: --shape {}=...)", d.name, i,
                         d.dimNames[i], d.name);
            out.emplace_back(d.name, d.shape);
        }
        return out;
    });
}

}  // namespace vkinfer
