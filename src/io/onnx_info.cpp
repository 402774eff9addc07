#include "io/onnx_info.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <limits>
#include <map>

#include "core/error.h"

namespace vkinfer::io {

namespace {

// Bytes per element of every ONNX element type, vkinfer's or not (weights of a bfloat16
// model still have a size); 0 where unknown or variable (strings).
double onnxElementBytes(int32_t type) {
    switch (type) {
        case 1: case 6: case 12: return 4;          // float, int32, uint32
        case 2: case 3: case 9: return 1;           // uint8, int8, bool
        case 4: case 5: case 10: case 16: return 2;  // uint16, int16, float16, bfloat16
        case 7: case 11: case 13: case 14: return 8;  // int64, double, uint64, complex64
        case 15: return 16;                          // complex128
        case 17: case 18: case 19: case 20: return 1;  // float8 variants
        case 21: case 22: return 0.5;               // uint4, int4
        default: return 0;
    }
}

// Element count of declared dims, or 0 when a dim is negative or the product overflows.
uint64_t elementsOf(const google::protobuf::RepeatedField<int64_t>& dims) {
    uint64_t n = 1;
    for (int64_t d : dims) {
        if (d < 0) return 0;
        if (d != 0 && n > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(d)) return 0;
        n *= static_cast<uint64_t>(d);
    }
    return n;
}

void addWeights(ModelInfo& info, const onnx::TensorProto& t) {
    const uint64_t n = elementsOf(t.dims());
    const auto bytes = static_cast<uint64_t>(static_cast<double>(n) * onnxElementBytes(t.data_type()) + 0.5);
    info.parameters += n;
    info.weightBytes += bytes;
    if (t.data_location() == onnx::TensorProto::EXTERNAL) info.externalWeightBytes += bytes;
}

bool representable(int32_t type) { return type != 0 && dataTypeSize(static_cast<DataType>(type)) != 0; }

std::string typeText(int32_t type) { return fmt::format("{} ({})", dataTypeName(static_cast<DataType>(type)), type); }

// A graph input or output as a TensorDesc; what vkinfer cannot take becomes an unsupported item.
TensorDesc describeValue(const onnx::ValueInfoProto& vi, const char* what, ModelInfo& info) {
    TensorDesc d;
    d.name = vi.name();
    d.dtype = DataType::Undefined;
    d.rankKnown = false;
    const auto& t = vi.type();
    const char* kind = t.has_sequence_type() ? "a sequence" : t.has_map_type() ? "a map"
                       : t.has_optional_type() ? "an optional" : t.has_sparse_tensor_type() ? "a sparse tensor" : nullptr;
    if (kind) {
        info.unsupported.push_back({"", "", fmt::format("{} '{}' is {}; vkinfer runs dense tensors only", what, vi.name(), kind)});
        return d;
    }
    if (!t.has_tensor_type()) return d;
    const auto& tt = t.tensor_type();
    d.dtype = static_cast<DataType>(tt.elem_type());
    if (tt.elem_type() != 0 && !representable(tt.elem_type()))
        info.unsupported.push_back({"", "", fmt::format("{} '{}' has element type {}, which vkinfer does not support",
                                                        what, vi.name(), typeText(tt.elem_type()))});
    if (!tt.has_shape()) return d;
    d.rankKnown = true;
    for (const auto& dim : tt.shape().dim()) {
        const bool fixed = dim.has_dim_value() && dim.dim_value() >= 0;
        d.shape.push_back(fixed ? dim.dim_value() : -1);
        d.dimNames.push_back(fixed ? "" : dim.has_dim_param() ? dim.dim_param() : "?");
    }
    return d;
}

// Why the op table refuses a node, with the words of ops::checkSupported; empty if it does not.
std::string nodeReason(const onnx::NodeProto& n, const std::string& domain, int64_t opset,
                       const OperatorSupport& support) {
    if (n.op_type() == "Constant" && domain.empty()) {
        // The importer folds Constant nodes itself, from these attributes.
        for (const auto& a : n.attribute())
            if (a.name() == "value" || a.name() == "value_float" || a.name() == "value_floats" ||
                a.name() == "value_int" || a.name() == "value_ints") {
                if (a.name() == "value" && !representable(a.t().data_type()))
                    return fmt::format("its value has element type {}, which vkinfer does not support",
                                       typeText(a.t().data_type()));
                return {};
            }
        std::string attrs;
        for (const auto& a : n.attribute()) attrs += (attrs.empty() ? "" : ", ") + a.name();
        return fmt::format("Constant without a supported value attribute (value, value_float(s), value_int(s)); it has "
                           "{}",
                           attrs.empty() ? "none" : attrs);
    }
    if (n.op_type().empty()) return "it has no operator type";
    if (!domain.empty()) return fmt::format("domain '{}' is not supported (only the default ONNX domain)", domain);
    if (support.atOpset(n.op_type(), opset)) return {};
    if (support.atAnyOpset(n.op_type())) return fmt::format("operator {} is not supported at opset {}", n.op_type(), opset);
    return fmt::format("operator {} (opset {}) is not supported", n.op_type(), opset);
}

}  // namespace

ModelInfo inspectOnnx(const void* data, size_t size, const std::string& label, const OperatorSupport& support) {
    if (size > static_cast<size_t>(std::numeric_limits<int>::max()))
        fail(ErrorCode::Unsupported, "{}: the model is {} bytes; an ONNX file over 2 GiB cannot be parsed", label, size);
    onnx::ModelProto model;
    if (size == 0 || !model.ParseFromArray(data, static_cast<int>(size)))
        fail(ErrorCode::ParseError, "{}: not a valid ONNX model (the protobuf does not parse; truncated or not ONNX?)",
             label);
    ModelInfo info;
    info.irVersion = model.ir_version();
    info.producerName = model.producer_name();
    info.producerVersion = model.producer_version();
    info.domain = model.domain();
    info.modelVersion = model.model_version();
    info.docString = model.doc_string();
    for (const auto& op : model.opset_import()) {
        info.opsetImports.emplace_back(op.domain(), op.version());
        if (op.domain().empty() || op.domain() == "ai.onnx") info.opset = std::max<int64_t>(info.opset, op.version());
    }
    if (info.opset > Model::kNewestOpset)
        info.unsupported.push_back({"", "", fmt::format("the model imports opset {} of the default ONNX domain; vkinfer "
                                                        "implements opsets up to {}",
                                                        info.opset, Model::kNewestOpset)});
    const auto& g = model.graph();
    info.graphName = g.name();
    if (g.node_size() == 0) info.unsupported.push_back({"", "", "the graph has no nodes"});

    std::map<std::string, const onnx::TensorProto*> initializers;
    for (const auto& init : g.initializer()) {
        initializers[init.name()] = &init;
        addWeights(info, init);
        if (!representable(init.data_type()))
            info.unsupported.push_back({"", "", fmt::format("initializer '{}' has element type {}, which vkinfer does not "
                                                            "support",
                                                            init.name(), typeText(init.data_type()))});
    }
    info.initializerCount = static_cast<size_t>(g.initializer_size());
    for (const auto& sp : g.sparse_initializer()) {
        addWeights(info, sp.values());
        info.unsupported.push_back({"", "", fmt::format("sparse initializer '{}' is not supported", sp.values().name())});
    }
    info.initializerCount += static_cast<size_t>(g.sparse_initializer_size());
    // An input with an initializer is an input with a default from IR 4 on; before, IR 3
    // listed every initializer among the inputs, so there it is a weight (as onnx_import.cpp).
    for (const auto& in : g.input()) {
        auto init = initializers.find(in.name());
        if (init != initializers.end() && info.irVersion < 4) continue;
        TensorDesc d = describeValue(in, "input", info);
        if (init != initializers.end()) {
            d.hasDefault = true;
            if (!d.rankKnown) {
                d.rankKnown = true;
                d.shape.assign(init->second->dims().begin(), init->second->dims().end());
                d.dimNames.assign(d.shape.size(), "");
            }
            if (d.dtype == DataType::Undefined) d.dtype = static_cast<DataType>(init->second->data_type());
        }
        info.inputs.push_back(std::move(d));
    }
    for (const auto& out : g.output()) info.outputs.push_back(describeValue(out, "output", info));

    std::map<std::pair<std::string, std::string>, size_t> counts;
    info.nodeCount = static_cast<size_t>(g.node_size());
    for (int i = 0; i < g.node_size(); ++i) {
        const auto& n = g.node(i);
        const std::string domain = n.domain() == "ai.onnx" ? "" : n.domain();
        ++counts[{domain, n.op_type()}];
        if (n.op_type() == "Constant" && domain.empty())
            for (const auto& a : n.attribute())
                if (a.name() == "value") addWeights(info, a.t());
        std::string reason = nodeReason(n, domain, info.opset, support);
        if (!reason.empty())
            info.unsupported.push_back({n.name().empty() ? n.op_type() + "_" + std::to_string(i) : n.name(), n.op_type(),
                                        std::move(reason)});
    }
    for (const auto& [key, count] : counts) info.opCounts.push_back({key.first, key.second, count});
    std::stable_sort(info.opCounts.begin(), info.opCounts.end(),
                     [](const OpCount& a, const OpCount& b) { return a.count > b.count; });
    return info;
}

}  // namespace vkinfer::io
