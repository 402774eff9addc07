// A parsed ONNX model: its graph, weights and declared inputs/outputs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vkinfer/status.h"
#include "vkinfer/tensor.h"

namespace vkinfer {

namespace detail {
struct ModelData;
}

// A graph input or output as the model declares it.
struct TensorDesc {
    std::string name;
    DataType dtype = DataType::Float32;
    // Declared dimensions; -1 where the dimension is dynamic (named in dimNames).
    std::vector<int64_t> shape;
    // The symbolic name of each dynamic dimension ("N", "H"), empty for fixed ones.
    std::vector<std::string> dimNames;
    // False when the model declares no shape for an input at all (any rank is accepted and
    // the shape must be given).
    bool rankKnown = true;
    // An input with a default value (ONNX IR 4 and later: a graph input that also has an
    // initializer). A run may leave it out; it then takes Model::defaultInput(name). Always
    // false for outputs.
    bool hasDefault = false;
    bool isDynamic() const;
};

// What Model::inspect reads from a model file without running it.
struct OpCount {
    std::string domain;  // "" for the default ONNX domain
    std::string op;
    size_t count = 0;
};
// Something in the model that vkinfer cannot run. `node` is empty for what concerns the whole
// model (its opset, an input's type, a sparse initializer).
struct UnsupportedItem {
    std::string node;    // the node's name (ONNX name, else "<op>_<index>" as in other messages)
    std::string op;      // its op type ("" for a model-level item)
    std::string reason;  // as Model::load would report it
};
struct ModelInfo {
    int64_t irVersion = 0;
    std::string producerName, producerVersion;  // e.g. "pytorch", "2.1.0"
    std::string domain;                          // the model's own domain field
    int64_t modelVersion = 0;
    std::string graphName;
    std::string docString;
    int64_t opset = 0;  // of the default domain
    std::vector<std::pair<std::string, int64_t>> opsetImports;  // (domain, version) as declared
    // Declared inputs and outputs, fixed and symbolic dims alike. Inputs with a default
    // (IR 4+: an initializer of the same name) are listed with hasDefault; IR 3's inputs that
    // are initializers are weights and not listed.
    // Non-tensor values (sequences, maps) have rankKnown false and are listed as unsupported.
    std::vector<TensorDesc> inputs, outputs;
    size_t nodeCount = 0;          // nodes of the main graph, Constant included
    std::vector<OpCount> opCounts;  // per op type, most frequent first (ties by name)
    size_t initializerCount = 0;
    uint64_t parameters = 0;           // elements of all initializers and Constant nodes' tensors
    uint64_t weightBytes = 0;          // their bytes (from type and shape)
    uint64_t externalWeightBytes = 0;  // of which in external data files
    // Everything vkinfer's operator table and importer refuse before planning, not only the
    // first: unknown ops, ops not at this opset, other domains, unsupported element types.
    // (Attribute values some lowerings refuse, such as Resize's antialias, show when a plan is
    // compiled.)
    std::vector<UnsupportedItem> unsupported;
};

// Concrete shapes for a model's inputs, by input name. Inputs not listed take
// their declared (static) shape.
using InputShapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;

class Model {
public:
    // Parses an ONNX file. Fails with ParseError on a malformed or truncated file,
    // NotFound if it does not exist, Unsupported for an operator the engine cannot run
    // (naming the node, op type and opset) or a default-domain opset newer than
    // kNewestOpset (ONNX defines an operator's semantics per opset, and vkinfer only claims
    // the ones it implements).
    //
    // External data (ONNX docs/ExternalData.md; what PyTorch writes as `model.onnx.data`):
    // a tensor with data_location EXTERNAL is read from the file its `location` names,
    // relative to the model file's folder, at `offset` (default 0) for `length` bytes
    // (default: what its shape and type need); `checksum` is not verified. Files are
    // memory-mapped, once each, and weights are read in place from the mapping where their
    // offset is aligned to their element size, so the file must not be truncated or
    // rewritten while the Model or a Session made from it is alive. Offsets and sizes are
    // 64-bit: weights may total more than 2 GiB (the .onnx file itself cannot: protobuf's
    // limit). Refused with InvalidArgument, naming the tensor and the path: an empty or
    // absolute location, one whose normalized form leaves the folder (`../w.bin`), one
    // that resolves outside it through a symbolic link (of the file or of a folder on the
    // way), one that is a folder or not a regular file. A missing file is NotFound; a file
    // too short for the tensor, or a `length` other than the tensor's size, ParseError
    // naming the tensor, the file and the sizes.
    static Result<Model> load(const std::string& path);
    // Same, from serialized ModelProto bytes; label names the source in messages. Tensors in
    // external files are looked up in `externalDataFolder` (the folder the model file would
    // be in, same rules as load); without it they fail, naming the tensor and its location.
    static Result<Model> fromBytes(const void* data, size_t size, const std::string& label = "<memory>",
                                   const std::string& externalDataFolder = "");
    // The operator types of an ONNX file's nodes in graph order (Constant included), read
    // without checking whether vkinfer supports them.
    static Result<std::vector<std::string>> listOperators(const std::string& path);
    // Reads what the file declares (inputs, outputs, opsets, producer, op histogram, weights)
    // and lists what vkinfer does not support, without loading weights or external data and
    // without failing for unsupported content: only a file that is not ONNX (ParseError) or
    // cannot be read (NotFound) fails.
    static Result<ModelInfo> inspect(const std::string& path);

    // The newest opset of the default ONNX domain ("" / "ai.onnx") whose operator semantics
    // vkinfer implements. A model importing a newer one fails to load (Unsupported).
    static constexpr int64_t kNewestOpset = 27;

    const std::vector<TensorDesc>& inputs() const;
    const std::vector<TensorDesc>& outputs() const;
    // The default-domain opset the model imports.
    int64_t opset() const;
    // Number of nodes in the ONNX graph as loaded.
    size_t nodeCount() const;
    const std::string& label() const;

    // The default of an input with TensorDesc::hasDefault (its initializer), or null for an
    // input without one or a name that is not an input. Valid while the Model (or a copy of
    // it) lives.
    //
    // A run that leaves the input out plans it as the constant it is (folded and uploaded
    // with the weights, as if it were a plain initializer: a model exported with every
    // weight as an input still runs at full speed); a run that gives it treats it as any
    // other input (a plan of its own, compiled at first use). IR 3 and older list every
    // initializer among the inputs by convention: there they are constants, not inputs (as
    // ONNX Runtime takes them).
    const Tensor* defaultInput(const std::string& name) const;

    // Shapes of all inputs, from `given`, the defaults' shapes (inputs with a default) and
    // the declared static dims; fails naming the input and dimension that is still unknown,
    // or an unknown input name.
    Result<InputShapes> resolveShapes(const InputShapes& given) const;

    std::shared_ptr<const detail::ModelData> data() const { return data_; }

private:
    std::shared_ptr<const detail::ModelData> data_;
};

}  // namespace vkinfer
