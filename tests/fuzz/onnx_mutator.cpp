#include "fuzz/onnx_mutator.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "ops/registry.h"

namespace vkinfer::fuzz {

namespace {

using Rng = std::mt19937;  // (minstd_rand's first draws from small seeds are all alike)

size_t below(Rng& rng, size_t n) { return n ? std::uniform_int_distribution<size_t>(0, n - 1)(rng) : 0; }
bool oneIn(Rng& rng, size_t n) { return below(rng, n) == 0; }

template <class T, size_t N>
const T& pick(Rng& rng, const T (&values)[N]) {
    return values[below(rng, N)];
}

// Values that sit on the edges exporters and the planner's checks care about.
int64_t interestingInt(Rng& rng) {
    static constexpr int64_t kInts[] = {0, 1, 2, 3, 4, 7, 8, 16, 64, 255, 256, 1000, -1, -2, -3, -8,
                                        int64_t{1} << 20, int64_t{1} << 31, (int64_t{1} << 32) + 1,
                                        std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
    if (oneIn(rng, 3)) return static_cast<int64_t>(below(rng, 9)) - 2;
    return pick(rng, kInts);
}

float interestingFloat(Rng& rng) {
    static constexpr float kFloats[] = {0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 1e-5f, 1e30f, -1e30f, 3.4e38f,
                                        std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                                        1.0f / 3.0f, 6.0f, 0.2f};
    return pick(rng, kFloats);
}

// The string values ONNX attributes take (modes, reductions, padding, directions).
const std::string& interestingString(Rng& rng) {
    static const std::string kStrings[] = {"none", "add", "mul", "max", "min", "constant", "reflect", "edge",
                                           "wrap", "nearest", "linear", "cubic", "half_pixel", "asymmetric",
                                           "align_corners", "pytorch_half_pixel", "tf_crop_and_resize",
                                           "round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "NOTSET",
                                           "SAME_UPPER", "SAME_LOWER", "VALID", "DCR", "CRD", "tanh", "", "bogus"};
    return pick(rng, kStrings);
}

// Attribute names the supported ops read, with the type they usually have.
struct KnownAttribute {
    const char* name;
    onnx::AttributeProto::AttributeType type;
};
constexpr KnownAttribute kKnownAttributes[] = {
    {"axis", onnx::AttributeProto::INT},           {"axes", onnx::AttributeProto::INTS},
    {"keepdims", onnx::AttributeProto::INT},       {"perm", onnx::AttributeProto::INTS},
    {"pads", onnx::AttributeProto::INTS},          {"strides", onnx::AttributeProto::INTS},
    {"kernel_shape", onnx::AttributeProto::INTS},  {"dilations", onnx::AttributeProto::INTS},
    {"group", onnx::AttributeProto::INT},          {"transA", onnx::AttributeProto::INT},
    {"transB", onnx::AttributeProto::INT},         {"alpha", onnx::AttributeProto::FLOAT},
    {"beta", onnx::AttributeProto::FLOAT},         {"epsilon", onnx::AttributeProto::FLOAT},
    {"mode", onnx::AttributeProto::STRING},        {"to", onnx::AttributeProto::INT},
    {"auto_pad", onnx::AttributeProto::STRING},    {"ceil_mode", onnx::AttributeProto::INT},
    {"blocksize", onnx::AttributeProto::INT},      {"split", onnx::AttributeProto::INTS},
    {"num_outputs", onnx::AttributeProto::INT},    {"reduction", onnx::AttributeProto::STRING},
    {"noop_with_empty_axes", onnx::AttributeProto::INT}, {"output_padding", onnx::AttributeProto::INTS},
    {"count_include_pad", onnx::AttributeProto::INT}, {"coordinate_transformation_mode", onnx::AttributeProto::STRING},
    {"starts", onnx::AttributeProto::INTS},        {"ends", onnx::AttributeProto::INTS},
    {"value", onnx::AttributeProto::TENSOR},       {"min", onnx::AttributeProto::FLOAT},
    {"max", onnx::AttributeProto::FLOAT},          {"shape", onnx::AttributeProto::INTS},
};

void setInterestingValue(onnx::AttributeProto& a, Rng& rng) {
    switch (a.type()) {
        case onnx::AttributeProto::INT: a.set_i(interestingInt(rng)); break;
        case onnx::AttributeProto::FLOAT: a.set_f(interestingFloat(rng)); break;
        case onnx::AttributeProto::STRING: a.set_s(interestingString(rng)); break;
        case onnx::AttributeProto::INTS:
            if (a.ints_size() == 0 || oneIn(rng, 4)) {
                a.clear_ints();
                for (size_t k = below(rng, 7); k-- > 0;) a.add_ints(interestingInt(rng));
            } else {
                a.set_ints(static_cast<int>(below(rng, a.ints_size())), interestingInt(rng));
            }
            break;
        case onnx::AttributeProto::FLOATS:
            if (a.floats_size() == 0)
                a.add_floats(interestingFloat(rng));
            else
                a.set_floats(static_cast<int>(below(rng, a.floats_size())), interestingFloat(rng));
            break;
        default: break;
    }
}

// Every value name a node may read: graph inputs, initializers, node outputs.
std::vector<std::string> valueNames(const onnx::GraphProto& g) {
    std::vector<std::string> names;
    for (const auto& in : g.input()) names.push_back(in.name());
    for (const auto& t : g.initializer()) names.push_back(t.name());
    for (const auto& n : g.node())
        for (const auto& o : n.output()) names.push_back(o);
    return names;
}

std::string freshName(const onnx::GraphProto& g, Rng& rng) {
    return "fz" + std::to_string(below(rng, 1000000)) + "_" + std::to_string(g.node_size());
}

// The element's int64 values of an integer initializer (shapes, axes, indices, pads), or a
// float tensor's values; other types are left alone.
bool mutateInitializer(onnx::TensorProto& t, Rng& rng) {
    switch (below(rng, 4)) {
        case 0: {  // a dimension
            if (t.dims_size() == 0) {
                t.add_dims(static_cast<int64_t>(below(rng, 4)));
            } else {
                t.set_dims(static_cast<int>(below(rng, t.dims_size())), static_cast<int64_t>(below(rng, 9)));
            }
            return true;
        }
        case 1: {  // the element type (the data stays: the importer must check sizes)
            static constexpr int kTypes[] = {onnx::TensorProto::FLOAT, onnx::TensorProto::INT64, onnx::TensorProto::INT32,
                                             onnx::TensorProto::FLOAT16, onnx::TensorProto::BOOL, onnx::TensorProto::UINT8,
                                             onnx::TensorProto::DOUBLE, onnx::TensorProto::INT8};
            t.set_data_type(pick(rng, kTypes));
            return true;
        }
        default: break;
    }
    if (t.data_type() == onnx::TensorProto::INT64) {
        if (t.int64_data_size() > 0) {
            t.set_int64_data(static_cast<int>(below(rng, t.int64_data_size())), interestingInt(rng));
            return true;
        }
        if (t.raw_data().size() >= 8) {
            std::string raw = t.raw_data();
            int64_t v = interestingInt(rng);
            std::memcpy(&raw[8 * below(rng, raw.size() / 8)], &v, 8);
            t.set_raw_data(raw);
            return true;
        }
    }
    if (t.data_type() == onnx::TensorProto::FLOAT) {
        if (t.float_data_size() > 0) {
            t.set_float_data(static_cast<int>(below(rng, t.float_data_size())), interestingFloat(rng));
            return true;
        }
        if (t.raw_data().size() >= 4) {
            std::string raw = t.raw_data();
            float v = interestingFloat(rng);
            std::memcpy(&raw[4 * below(rng, raw.size() / 4)], &v, 4);
            t.set_raw_data(raw);
            return true;
        }
    }
    return false;
}

bool mutateGraphInput(onnx::ValueInfoProto& v, Rng& rng) {
    auto* type = v.mutable_type()->mutable_tensor_type();
    if (oneIn(rng, 4)) {
        static constexpr int kTypes[] = {onnx::TensorProto::FLOAT, onnx::TensorProto::FLOAT16, onnx::TensorProto::INT64,
                                         onnx::TensorProto::INT32, onnx::TensorProto::BOOL, onnx::TensorProto::UINT8,
                                         onnx::TensorProto::DOUBLE};
        type->set_elem_type(pick(rng, kTypes));
        return true;
    }
    auto* shape = type->mutable_shape();
    if (shape->dim_size() == 0 || oneIn(rng, 6)) {
        shape->add_dim()->set_dim_value(static_cast<int64_t>(1 + below(rng, 4)));
        return true;
    }
    if (oneIn(rng, 6)) {
        shape->mutable_dim()->RemoveLast();
        return true;
    }
    auto* dim = shape->mutable_dim(static_cast<int>(below(rng, shape->dim_size())));
    if (oneIn(rng, 4))
        dim->set_dim_param(oneIn(rng, 2) ? "batch" : "n");
    else
        dim->set_dim_value(oneIn(rng, 8) ? 0 : static_cast<int64_t>(1 + below(rng, 16)));
    return true;
}

}  // namespace

bool mutateModel(onnx::ModelProto& model, Rng& rng) {
    onnx::GraphProto& g = *model.mutable_graph();
    const int nodes = g.node_size();
    onnx::NodeProto* node = nodes ? g.mutable_node(static_cast<int>(below(rng, nodes))) : nullptr;
    switch (below(rng, 14)) {
        case 0:  // an attribute's value
            if (!node || node->attribute_size() == 0) return false;
            setInterestingValue(*node->mutable_attribute(static_cast<int>(below(rng, node->attribute_size()))), rng);
            return true;
        case 1: {  // an attribute more (or one replaced)
            if (!node) return false;
            const KnownAttribute& k = pick(rng, kKnownAttributes);
            if (k.type == onnx::AttributeProto::TENSOR) return false;
            onnx::AttributeProto* a = nullptr;
            for (auto& existing : *node->mutable_attribute())
                if (existing.name() == k.name) a = &existing;
            if (!a) a = node->add_attribute();
            a->Clear();
            a->set_name(k.name);
            a->set_type(k.type);
            setInterestingValue(*a, rng);
            return true;
        }
        case 2:  // an attribute less
            if (!node || node->attribute_size() == 0) return false;
            node->mutable_attribute()->DeleteSubrange(static_cast<int>(below(rng, node->attribute_size())), 1);
            return true;
        case 3: {  // another op type, the same inputs and attributes
            if (!node) return false;
            const auto& table = ops::opTable();
            node->set_op_type(std::string(table[below(rng, table.size())].type));
            return true;
        }
        case 4: {  // an input rewired to another value, or omitted
            if (!node || node->input_size() == 0) return false;
            auto names = valueNames(g);
            int k = static_cast<int>(below(rng, node->input_size()));
            node->set_input(k, oneIn(rng, 8) || names.empty() ? std::string() : names[below(rng, names.size())]);
            return true;
        }
        case 5: {  // an input more or less
            if (!node) return false;
            auto names = valueNames(g);
            if (node->input_size() > 0 && oneIn(rng, 2))
                node->mutable_input()->RemoveLast();
            else if (!names.empty())
                node->add_input(names[below(rng, names.size())]);
            return true;
        }
        case 6:  // a graph input's dims or element type
            if (g.input_size() == 0) return false;
            return mutateGraphInput(*g.mutable_input(static_cast<int>(below(rng, g.input_size()))), rng);
        case 7:  // an initializer's dims, type or values
            if (g.initializer_size() == 0) return false;
            return mutateInitializer(*g.mutable_initializer(static_cast<int>(below(rng, g.initializer_size()))), rng);
        case 8: {  // a node duplicated with fresh outputs, read by a later node or made an output
            if (!node) return false;
            onnx::NodeProto copy = *node;
            copy.set_name(freshName(g, rng));
            for (auto& o : *copy.mutable_output()) o = freshName(g, rng) + o;
            std::string out = copy.output_size() ? copy.output(0) : std::string();
            *g.add_node() = std::move(copy);
            if (!out.empty()) g.add_output()->set_name(out);
            return true;
        }
        case 9:  // a node removed (its readers then read nothing)
            if (!node) return false;
            g.mutable_node()->DeleteSubrange(static_cast<int>(below(rng, nodes)), 1);
            return true;
        case 10: {  // two nodes swapped (out of topological order)
            if (nodes < 2) return false;
            g.mutable_node()->SwapElements(static_cast<int>(below(rng, nodes)), static_cast<int>(below(rng, nodes)));
            return true;
        }
        case 11: {  // the default domain's opset
            static constexpr int64_t kOpsets[] = {1, 6, 7, 9, 10, 11, 12, 13, 14, 16, 17, 18, 19, 20, 21, 22, 23, 30};
            for (auto& o : *model.mutable_opset_import())
                if (o.domain().empty() || o.domain() == "ai.onnx") {
                    o.set_version(pick(rng, kOpsets));
                    return true;
                }
            return false;
        }
        case 12: {  // a new node of any supported op on existing values, made an output
            auto names = valueNames(g);
            if (names.empty()) return false;
            const auto& table = ops::opTable();
            onnx::NodeProto* n = g.add_node();
            n->set_op_type(std::string(table[below(rng, table.size())].type));
            n->set_name(freshName(g, rng));
            for (size_t k = 1 + below(rng, 3); k-- > 0;) n->add_input(names[below(rng, names.size())]);
            n->add_output(freshName(g, rng) + "_out");
            g.add_output()->set_name(n->output(0));
            return true;
        }
        default: {  // a graph output replaced by another value
            auto names = valueNames(g);
            if (g.output_size() == 0 || names.empty()) return false;
            auto* o = g.mutable_output(static_cast<int>(below(rng, g.output_size())));
            o->Clear();
            o->set_name(names[below(rng, names.size())]);
            return true;
        }
    }
}

size_t mutateOnnxBytes(uint8_t* data, size_t size, size_t maxSize, unsigned seed, ByteMutator byteMutate) {
    Rng rng(seed ? seed : 1);
    onnx::ModelProto model;
    // A fifth of the steps, and inputs that are not a model, exercise the parser instead.
    if (oneIn(rng, 5) || !model.ParseFromArray(data, static_cast<int>(size))) return byteMutate(data, size, maxSize);
    bool changed = false;
    for (size_t k = 1 + below(rng, 3); k-- > 0;) changed = mutateModel(model, rng) || changed;
    std::string bytes;
    if (!changed || !model.SerializeToString(&bytes) || bytes.size() > maxSize) return byteMutate(data, size, maxSize);
    std::memcpy(data, bytes.data(), bytes.size());
    return bytes.size();
}

}  // namespace vkinfer::fuzz
