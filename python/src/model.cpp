// vkinfer.Model, vkinfer.TensorDesc and vkinfer.ModelInfo.
#include <fmt/format.h>

#include "binding.h"

namespace vkinfer::python {

namespace {

// The dimensions with None where one is dynamic.
py::list shapeList(const TensorDesc& d) {
    py::list shape;
    for (int64_t v : d.shape) shape.append(v < 0 ? py::object(py::none()) : py::object(py::int_(v)));
    return shape;
}

std::string describe(const TensorDesc& d) {
    std::string dims;
    for (size_t i = 0; i < d.shape.size(); ++i) {
        const std::string dim = d.shape[i] >= 0                                     ? std::to_string(d.shape[i])
                                : i < d.dimNames.size() && !d.dimNames[i].empty() ? "'" + d.dimNames[i] + "'"
                                                                                    : "None";
        dims += (i ? ", " : "") + dim;
    }
    return fmt::format("TensorDesc(name='{}', dtype='{}', shape={})", d.name, dataTypeName(d.dtype),
                       d.rankKnown ? "[" + dims + "]" : "None");
}

}  // namespace

void bindModel(py::module_& m) {
    py::class_<TensorDesc>(m, "TensorDesc", "A model input or output as the model declares it.")
        .def_readonly("name", &TensorDesc::name)
        .def_property_readonly("dtype", [](const TensorDesc& d) { return std::string(dataTypeName(d.dtype)); },
                               "Element type as NumPy names it ('float32', 'int64', ...).")
        .def_property_readonly("shape", [](const TensorDesc& d) { return d.rankKnown ? py::object(shapeList(d)) : py::object(py::none()); },
                               "Declared dimensions, None where dynamic; None when the model declares no shape.")
        .def_property_readonly("dim_names", [](const TensorDesc& d) { return d.dimNames; },
                               "Symbolic name of each dynamic dimension ('N', 'H'), '' for fixed ones.")
        .def_readonly("rank_known", &TensorDesc::rankKnown)
        .def_readonly("has_default", &TensorDesc::hasDefault,
                      "An input with a default value (an initializer of the same name): a run may leave it out.")
        .def("__repr__", &describe);

    py::class_<ModelInfo>(m, "ModelInfo", "What a model file declares (Model.inspect), read without running it.")
        .def_readonly("ir_version", &ModelInfo::irVersion)
        .def_readonly("producer_name", &ModelInfo::producerName)
        .def_readonly("producer_version", &ModelInfo::producerVersion)
        .def_readonly("domain", &ModelInfo::domain)
        .def_readonly("model_version", &ModelInfo::modelVersion)
        .def_readonly("graph_name", &ModelInfo::graphName)
        .def_readonly("doc_string", &ModelInfo::docString)
        .def_readonly("opset", &ModelInfo::opset)
        .def_readonly("opset_imports", &ModelInfo::opsetImports)
        .def_readonly("inputs", &ModelInfo::inputs)
        .def_readonly("outputs", &ModelInfo::outputs)
        .def_readonly("node_count", &ModelInfo::nodeCount)
        .def_property_readonly("op_counts", [](const ModelInfo& i) {
            py::dict d;
            for (const auto& c : i.opCounts) d[py::str(c.domain.empty() ? c.op : c.domain + "." + c.op)] = c.count;
            return d;
        }, "Nodes per operator type, most frequent first.")
        .def_readonly("initializer_count", &ModelInfo::initializerCount)
        .def_readonly("parameters", &ModelInfo::parameters)
        .def_readonly("weight_bytes", &ModelInfo::weightBytes)
        .def_readonly("external_weight_bytes", &ModelInfo::externalWeightBytes)
        .def_property_readonly("unsupported", [](const ModelInfo& i) {
            py::list l;
            for (const auto& u : i.unsupported) l.append(py::make_tuple(u.node, u.op, u.reason));
            return l;
        }, "What vkinfer cannot run, as (node, op, reason); empty when it can run everything.");

    py::class_<Model>(m, "Model", R"(A parsed ONNX model: its graph, weights and declared inputs and outputs.

Load one with Model.load(path) or Model.from_bytes(data); run it with a Session.)")
        .def_static("load", [](py::handle path) {
            const std::string p = pathOf(path);
            py::gil_scoped_release release;
            return unwrap(Model::load(p));
        }, py::arg("path"), R"(Parses an ONNX file (external data next to it is read in place).

Raises NotFoundError for a missing file, ParseError for one that is not ONNX or is truncated,
UnsupportedError for an operator or opset vkinfer cannot run (naming the node).)")
        .def_static("from_bytes", [](py::bytes data, const std::string& label, py::object externalDataFolder) {
            const auto bytes = static_cast<std::string_view>(data);
            const std::string folder = externalDataFolder.is_none() ? std::string() : pathOf(externalDataFolder);
            py::gil_scoped_release release;
            return unwrap(Model::fromBytes(bytes.data(), bytes.size(), label, folder));
        }, py::arg("data"), py::arg("label") = "<memory>", py::arg("external_data_folder") = py::none(),
           "Parses serialized ModelProto bytes; external data is looked up in external_data_folder.")
        .def_static("inspect", [](py::handle path) {
            const std::string p = pathOf(path);
            py::gil_scoped_release release;
            return unwrap(Model::inspect(p));
        }, py::arg("path"), R"(What a model file declares, and what vkinfer does not support in it, without
loading weights: fails only for a file that is not ONNX (ParseError) or cannot be read (NotFoundError).)")
        .def_property_readonly("inputs", &Model::inputs, "Declared inputs (TensorDesc), in order.")
        .def_property_readonly("outputs", &Model::outputs, "Declared outputs (TensorDesc), in order.")
        .def_property_readonly("opset", &Model::opset, "The default-domain opset the model imports.")
        .def_property_readonly("node_count", &Model::nodeCount)
        .def_property_readonly("label", &Model::label, "The file the model came from, or the label given to from_bytes.")
        .def_property_readonly_static("newest_opset", [](py::handle) { return Model::kNewestOpset; },
                                      "The newest default-domain opset vkinfer implements.")
        .def("__repr__", [](const Model& model) {
            return fmt::format("<vkinfer.Model '{}': {} inputs, {} outputs, opset {}>", model.label(), model.inputs().size(),
                               model.outputs().size(), model.opset());
        });
}

}  // namespace vkinfer::python
