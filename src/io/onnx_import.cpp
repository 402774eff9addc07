#include "io/onnx_import.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <limits>
#include <set>

#include "core/error.h"
#include "io/external_data.h"
#include "io/onnx_tensor.h"

namespace vkinfer::io {

using graph::AttrValue;
using graph::Graph;
using graph::Node;
using graph::Value;

namespace {

AttrValue convertAttribute(const onnx::AttributeProto& a, const std::string& where, ExternalData& external) {
    using A = onnx::AttributeProto;
    switch (a.type()) {
        case A::FLOAT: return a.f();
        case A::INT: return static_cast<int64_t>(a.i());
        case A::STRING: return a.s();
        case A::TENSOR: return tensorFromProto(a.t(), where + " attribute '" + a.name() + "'", &external);
        case A::FLOATS: return std::vector<float>(a.floats().begin(), a.floats().end());
        case A::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
        case A::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
        default: break;
    }
    // Subgraphs (If/Loop bodies) and sparse tensors: kept out of the IR; the op that needs
    // them is reported as unsupported by the op table.
    return std::string("<unsupported attribute type>");
}

// The Constant op's value in whichever attribute form it uses.
Tensor constantNodeValue(const onnx::NodeProto& n, const std::string& where, ExternalData& external) {
    for (const auto& a : n.attribute()) {
        const std::string& k = a.name();
        if (k == "value") return tensorFromProto(a.t(), where, &external);
        if (k == "value_float") return Tensor::fromVector<float>(DataType::Float32, {}, {a.f()});
        if (k == "value_floats")
            return Tensor::fromVector<float>(DataType::Float32, {a.floats_size()},
                                             std::vector<float>(a.floats().begin(), a.floats().end()));
        if (k == "value_int") return Tensor::fromVector<int64_t>(DataType::Int64, {}, {a.i()});
        if (k == "value_ints")
            return Tensor::fromVector<int64_t>(DataType::Int64, {a.ints_size()},
                                               std::vector<int64_t>(a.ints().begin(), a.ints().end()));
    }
    fail(ErrorCode::Unsupported, "{}: Constant without a supported value attribute (value, value_float(s), value_int(s))",
         where);
}

// Reads dtype and declared dims; returns false when no shape is declared (unknown rank).
// Sequences, maps, optionals and sparse tensors are reported as unsupported.
bool readType(const onnx::ValueInfoProto& vi, Value& v, std::vector<int64_t>* dims, std::vector<std::string>* names) {
    if (vi.has_type()) {
        const auto& t = vi.type();
        const char* kind = t.has_sequence_type() ? "a sequence" : t.has_map_type() ? "a map"
                           : t.has_optional_type() ? "an optional" : t.has_sparse_tensor_type() ? "a sparse tensor" : nullptr;
        if (kind) fail(ErrorCode::Unsupported, "'{}' is {}; vkinfer runs dense tensors only", vi.name(), kind);
    }
    if (!vi.has_type() || !vi.type().has_tensor_type()) return false;
    const auto& tt = vi.type().tensor_type();
    if (tt.elem_type() != 0) v.dtype = static_cast<DataType>(tt.elem_type());
    if (!tt.has_shape()) return false;
    for (const auto& d : tt.shape().dim()) {
        // A size is >= 0; a negative one is no name for "dynamic" (that is a dim_param or no
        // value), and was shown as "?" and planned as dynamic.
        if (d.has_dim_value() && d.dim_value() < 0)
            fail(ErrorCode::ParseError, "'{}' declares dimension {} as {}: a dimension is a size >= 0 or a name",
                 vi.name(), dims->size(), d.dim_value());
        if (d.has_dim_value()) {
            dims->push_back(d.dim_value());
            names->push_back("");
        } else {
            dims->push_back(-1);
            names->push_back(d.has_dim_param() ? d.dim_param() : std::string("?"));
        }
    }
    return true;
}

}  // namespace

std::vector<std::string> listOnnxOperators(const void* data, size_t size, const std::string& label) {
    onnx::ModelProto model;
    if (size == 0 || size > static_cast<size_t>(std::numeric_limits<int>::max()) ||
        !model.ParseFromArray(data, static_cast<int>(size)))
        fail(ErrorCode::ParseError, "{}: not a valid ONNX model", label);
    std::vector<std::string> ops;
    for (const auto& n : model.graph().node()) ops.push_back(n.op_type());
    return ops;
}

Graph importOnnx(const void* data, size_t size, const std::string& label, const std::string& externalDataFolder) {
    // Protobuf parses at most 2 GiB: larger models keep their weights in external data.
    if (size > static_cast<size_t>(std::numeric_limits<int>::max()))
        fail(ErrorCode::Unsupported,
             "{}: the model is {} bytes; an ONNX file over 2 GiB cannot be parsed (models that large keep their "
             "weights in external data files)",
             label, size);
    onnx::ModelProto model;
    if (size == 0 || !model.ParseFromArray(data, static_cast<int>(size)))
        fail(ErrorCode::ParseError, "{}: not a valid ONNX model (the protobuf does not parse; truncated or not ONNX?)",
             label);
    if (!model.has_graph() || model.graph().node_size() == 0)
        fail(ErrorCode::ParseError, "{}: the ONNX model has no graph nodes", label);

    Graph g;
    g.label = label;
    // "" and "ai.onnx" name the same domain; a model importing both at different versions is
    // held to the newer (checkSupported refuses opsets vkinfer does not implement).
    for (const auto& op : model.opset_import())
        if (op.domain().empty() || op.domain() == "ai.onnx") g.opset = std::max<int64_t>(g.opset, op.version());
    // opset_import is required since IR version 3. It is the last field PyTorch writes, so a
    // file cut right before it still parses as a protobuf; defaulting to opset 1 then loaded
    // the truncated model (and ran it with opset-1 semantics) instead of failing.
    if (model.opset_import_size() == 0 && model.ir_version() >= 3)
        fail(ErrorCode::ParseError, "{}: the model imports no opset (opset_import is empty: truncated file?)", label);
    if (g.opset == 0) g.opset = model.opset_import_size() == 0 ? 1 : 0;
    // A model importing only other domains (ai.onnx.preview.training, com.microsoft) is
    // valid ONNX: its nodes are then reported as unsupported by domain, not as malformed.
    bool defaultDomainNode = std::any_of(model.graph().node().begin(), model.graph().node().end(),
                                         [](const onnx::NodeProto& n) { return n.domain().empty() || n.domain() == "ai.onnx"; });
    if (g.opset == 0 && defaultDomainNode)
        fail(ErrorCode::ParseError, "{}: the model imports no default-domain opset", label);

    const auto& gp = model.graph();
    ExternalData external(externalDataFolder);
    auto valueFor = [&](const std::string& name) {
        int id = g.findValue(name);
        if (id >= 0) return id;
        Value v;
        v.name = name;
        v.dtype = DataType::Undefined;
        return g.addValue(std::move(v));
    };

    std::set<std::string> initializerNames;
    for (const auto& init : gp.initializer()) {
        if (init.name().empty()) fail(ErrorCode::ParseError, "{}: an initializer has no name", label);
        initializerNames.insert(init.name());
        int id = valueFor(init.name());
        Tensor t = tensorFromProto(init, init.name(), &external);
        g.values[id].dtype = t.dtype();
        g.values[id].shape = t.shape();
        g.values[id].hasShape = true;
        g.values[id].constant = std::move(t);
    }
    std::set<std::string> inputNames;
    for (const auto& in : gp.input()) {
        // (Twice, an input with an initializer would take a default already taken.)
        if (!inputNames.insert(in.name()).second)
            fail(ErrorCode::ParseError, "{}: the graph lists input '{}' twice", label, in.name());
        graph::InputDecl decl;
        decl.value = valueFor(in.name());
        Value& v = g.values[decl.value];
        if (initializerNames.count(in.name())) {
            // IR < 4 lists every initializer as an input too, and they are constants (as ONNX
            // Runtime takes them); from IR 4 on an initializer that is also an input is that
            // input's default, which the caller may override.
            if (model.ir_version() < 4) continue;
            decl.defaultValue = std::move(*v.constant);
            v.constant.reset();
            const DataType initializerType = decl.defaultValue->dtype();
            decl.rankKnown = readType(in, v, &decl.dims, &decl.dimNames);
            if (v.dtype != initializerType)
                fail(ErrorCode::ParseError, "{}: input '{}' is declared {} but its initializer (its default) is {}",
                     label, in.name(), dataTypeName(v.dtype), dataTypeName(initializerType));
            const auto& shape = decl.defaultValue->shape();
            bool fits = !decl.rankKnown || decl.dims.size() == shape.size();
            for (size_t i = 0; fits && decl.rankKnown && i < shape.size(); ++i)
                fits = decl.dims[i] < 0 || decl.dims[i] == shape[i];
            if (!fits)
                fail(ErrorCode::ParseError,
                     "{}: input '{}' is declared with shape {} but its initializer (its default) has shape {}", label,
                     in.name(), shapeToString(decl.dims), shapeToString(shape));
            if (!decl.rankKnown) {  // no declared shape: the default's
                decl.rankKnown = true;
                decl.dims = shape;
                decl.dimNames.assign(shape.size(), "");
            }
            v.hasShape = false;
            g.inputs.push_back(std::move(decl));
            continue;
        }
        v.dtype = DataType::Float32;
        decl.rankKnown = readType(in, v, &decl.dims, &decl.dimNames);
        g.inputs.push_back(std::move(decl));
    }

    // Tensors that already have a value: initializers, graph inputs, then node outputs.
    std::set<std::string> written = initializerNames;
    for (const auto& in : gp.input()) written.insert(in.name());
    for (int i = 0; i < gp.node_size(); ++i) {
        const auto& np = gp.node(i);
        if (np.op_type().empty())
            fail(ErrorCode::ParseError, "{}: node {} ('{}') has no operator type", label, i, np.name());
        std::string name = np.name().empty() ? np.op_type() + "_" + std::to_string(i) : np.name();
        std::string where = "node '" + name + "' (" + np.op_type() + ")";
        if (np.op_type() == "Constant" && (np.domain().empty() || np.domain() == "ai.onnx")) {
            if (np.output_size() != 1) fail(ErrorCode::ParseError, "{}: Constant must have one output", where);
            if (!written.insert(np.output(0)).second)
                fail(ErrorCode::ParseError, "{}: {} writes tensor '{}', which already has a value", label, where,
                     np.output(0));
            int id = valueFor(np.output(0));
            Tensor t = constantNodeValue(np, where, external);
            g.values[id].dtype = t.dtype();
            g.values[id].shape = t.shape();
            g.values[id].hasShape = true;
            g.values[id].constant = std::move(t);
            continue;
        }
        // Each tensor has one writer (ONNX graphs are SSA). A second writer, or a node
        // overwriting a graph input or initializer, used to be accepted with the last
        // writer silently winning.
        for (const auto& out : np.output()) {
            if (out.empty()) continue;
            if (!written.insert(out).second)
                fail(ErrorCode::ParseError, "{}: {} writes tensor '{}', which is already a graph input, an initializer "
                     "or another node's output", label, where, out);
        }
        Node n;
        n.name = std::move(name);
        n.opType = np.op_type();
        n.domain = np.domain() == "ai.onnx" ? "" : np.domain();
        for (const auto& in : np.input()) n.inputs.push_back(in.empty() ? -1 : valueFor(in));
        for (const auto& out : np.output()) n.outputs.push_back(out.empty() ? -1 : valueFor(out));
        for (const auto& a : np.attribute()) n.attrs[a.name()] = convertAttribute(a, where, external);
        g.nodes.push_back(std::move(n));
    }

    std::set<std::string> outputNames;
    for (const auto& out : gp.output()) {
        // Two outputs of one name would be one tensor written to two files (y.npy, y_2.npy).
        if (!outputNames.insert(out.name()).second)
            fail(ErrorCode::ParseError, "{}: the graph lists output '{}' twice", label, out.name());
        int id = g.findValue(out.name());
        if (id < 0) fail(ErrorCode::ParseError, "{}: graph output '{}' is not produced by any node", label, out.name());
        std::vector<int64_t> dims;
        std::vector<std::string> names;
        Value tmp;
        readType(out, tmp, &dims, &names);
        if (g.values[id].dtype == DataType::Undefined) g.values[id].dtype = tmp.dtype;
        g.outputs.push_back(id);
        g.outputDimNames.push_back(names);
    }
    if (g.outputs.empty()) fail(ErrorCode::ParseError, "{}: the graph declares no outputs", label);
    // An element type the engine has no representation for (bfloat16, string, complex, the
    // float8 types) is reported up front, naming the tensor, rather than failing later as a
    // type mismatch.
    auto checkType = [&](int id, const char* what) {
        DataType t = g.values[id].dtype;
        if (t != DataType::Undefined && dataTypeSize(t) == 0)
            fail(ErrorCode::Unsupported, "{}: {} '{}' has element type {} ({}), which vkinfer does not support", label,
                 what, g.values[id].name, dataTypeName(t), static_cast<int>(t));
    };
    for (const auto& in : g.inputs) checkType(in.value, "input");
    for (int o : g.outputs) checkType(o, "output");

    g.relinkProducers();
    for (size_t id = 0; id < g.values.size(); ++id) {
        const Value& v = g.values[id];
        if (v.producer < 0 && !v.constant && !g.isGraphInput(static_cast<int>(id)))
            fail(ErrorCode::ParseError, "{}: tensor '{}' is read but never produced, initialized or declared as input",
                 label, v.name);
    }
    // Node order need not be topological (passes::sortTopologically orders nodes later),
    // but a cycle is malformed: fail now, naming it, rather than when a plan is compiled.
    std::vector<int> order, cycle;
    if (!g.topologicalOrder(&order, &cycle))
        fail(ErrorCode::ParseError, "{}: the graph has a cycle: {}", label, g.describeCycle(cycle));
    return g;
}

}  // namespace vkinfer::io
