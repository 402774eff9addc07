#include "support/onnx_builder.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>

#include "io/onnx_tensor.h"

namespace vkinfer::testing {

OnnxBuilder::OnnxBuilder(int64_t opset) {
    model_.set_ir_version(8);
    auto* op = model_.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    model_.mutable_graph()->set_name("test");
}

OnnxBuilder& OnnxBuilder::input(const std::string& name, const std::vector<int64_t>& shape, DataType type) {
    auto* in = model_.mutable_graph()->add_input();
    in->set_name(name);
    auto* tt = in->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(static_cast<int32_t>(type));
    auto* s = tt->mutable_shape();
    for (size_t i = 0; i < shape.size(); ++i) {
        auto* d = s->add_dim();
        if (shape[i] >= 0) d->set_dim_value(shape[i]);
        else d->set_dim_param("dim" + std::to_string(i));
    }
    return *this;
}

OnnxBuilder& OnnxBuilder::output(const std::string& name, DataType type) {
    auto* out = model_.mutable_graph()->add_output();
    out->set_name(name);
    out->mutable_type()->mutable_tensor_type()->set_elem_type(static_cast<int32_t>(type));
    return *this;
}

OnnxBuilder& OnnxBuilder::initializer(const std::string& name, const Tensor& value) {
    io::tensorToProto(value, name, model_.mutable_graph()->add_initializer());
    return *this;
}

OnnxBuilder& OnnxBuilder::externalInitializer(const std::string& name, DataType type, const std::vector<int64_t>& shape,
                                              const std::string& location, int64_t offset, int64_t length) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(static_cast<int32_t>(type));
    for (int64_t d : shape) t->add_dims(d);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto entry = [&](const char* key, const std::string& value) {
        auto* kv = t->add_external_data();
        kv->set_key(key);
        kv->set_value(value);
    };
    entry("location", location);
    if (offset >= 0) entry("offset", std::to_string(offset));
    if (length >= 0) entry("length", std::to_string(length));
    return *this;
}

onnx::NodeProto& OnnxBuilder::node(const std::string& op, const std::vector<std::string>& inputs,
                                   const std::vector<std::string>& outputs, const std::string& name) {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + "_" + std::to_string(model_.graph().node_size()) : name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
}

std::string OnnxBuilder::serialize() const { return model_.SerializeAsString(); }

Result<Model> OnnxBuilder::build() const {
    std::string bytes = serialize();
    return Model::fromBytes(bytes.data(), bytes.size(), "test model");
}

size_t moveInitializersToExternalData(onnx::ModelProto& model, const std::string& folder, const std::string& location,
                                      size_t minBytes, size_t alignment) {
    std::ofstream out(std::filesystem::path(folder) / location, std::ios::binary | std::ios::trunc);
    size_t moved = 0;
    uint64_t offset = 0;
    for (auto& t : *model.mutable_graph()->mutable_initializer()) {
        if (!t.has_raw_data() || t.raw_data().size() < minBytes) continue;
        const std::string& raw = t.raw_data();
        uint64_t start = (offset + alignment - 1) / alignment * alignment;
        out << std::string(static_cast<size_t>(start - offset), '\0');
        out.write(raw.data(), static_cast<std::streamsize>(raw.size()));
        offset = start + raw.size();
        auto entry = [&](const char* key, const std::string& value) {
            auto* kv = t.add_external_data();
            kv->set_key(key);
            kv->set_value(value);
        };
        entry("location", location);
        entry("offset", std::to_string(start));
        entry("length", std::to_string(raw.size()));
        t.set_data_location(onnx::TensorProto::EXTERNAL);
        t.clear_raw_data();
        ++moved;
    }
    if (!out) throw std::runtime_error("cannot write external data file " + location + " in " + folder);
    return moved;
}

namespace {
onnx::AttributeProto* newAttr(onnx::NodeProto& n, const std::string& name, onnx::AttributeProto::AttributeType t) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(t);
    return a;
}
}  // namespace

void attr(onnx::NodeProto& n, const std::string& name, int64_t v) { newAttr(n, name, onnx::AttributeProto::INT)->set_i(v); }
void attr(onnx::NodeProto& n, const std::string& name, float v) { newAttr(n, name, onnx::AttributeProto::FLOAT)->set_f(v); }
void attr(onnx::NodeProto& n, const std::string& name, const std::string& v) {
    newAttr(n, name, onnx::AttributeProto::STRING)->set_s(v);
}
void attr(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = newAttr(n, name, onnx::AttributeProto::INTS);
    for (auto x : v) a->add_ints(x);
}
void attr(onnx::NodeProto& n, const std::string& name, const std::vector<float>& v) {
    auto* a = newAttr(n, name, onnx::AttributeProto::FLOATS);
    for (auto x : v) a->add_floats(x);
}

Tensor randomTensor(const std::vector<int64_t>& shape, uint32_t seed, float lo, float hi) {
    Tensor t(DataType::Float32, shape);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    for (int64_t i = 0; i < t.elementCount(); ++i) t.as<float>()[i] = dist(rng);
    return t;
}

Tensor int64Tensor(const std::vector<int64_t>& shape, const std::vector<int64_t>& values) {
    return Tensor::fromVector(DataType::Int64, shape, values);
}

Tensor floatTensor(const std::vector<int64_t>& shape, const std::vector<float>& values) {
    return Tensor::fromVector(DataType::Float32, shape, values);
}

}  // namespace vkinfer::testing
