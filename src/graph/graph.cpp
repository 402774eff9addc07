#include "graph/graph.h"

#include <algorithm>
#include <functional>
#include <queue>

#include "core/error.h"

namespace vkinfer::graph {

const char* actKindName(ActKind kind) {
    switch (kind) {
        case ActKind::None: return "";
        case ActKind::Relu: return "Relu";
        case ActKind::Clip: return "Clip";
        case ActKind::Sigmoid: return "Sigmoid";
        case ActKind::Tanh: return "Tanh";
        case ActKind::LeakyRelu: return "LeakyRelu";
        case ActKind::Silu: return "Silu";
        case ActKind::Gelu: return "Gelu";
        case ActKind::GeluTanh: return "GeluTanh";
        case ActKind::HardSigmoid: return "HardSigmoid";
        case ActKind::HardSwish: return "HardSwish";
        case ActKind::PRelu: return "PRelu";
    }
    return "?";
}

namespace {

// ONNX's names of AttrValue's alternatives, in its order.
const char* attrTypeName(const AttrValue& v) {
    static const char* kNames[] = {"INT", "FLOAT", "STRING", "INTS", "FLOATS", "STRINGS", "TENSOR"};
    return kNames[v.index()];
}

// The attribute `key` of `n` as a T (ONNX type `expected`), null when absent; a present
// attribute of another type is the model's error (ONNX Runtime refuses it too), never a
// silent default: Conv strides given as FLOATS once ran with stride 1.
template <class T>
const T* typedAttr(const Node& n, const std::string& key, const char* expected) {
    auto it = n.attrs.find(key);
    if (it == n.attrs.end()) return nullptr;
    if (const T* v = std::get_if<T>(&it->second)) return v;
    fail(ErrorCode::ParseError, "{}: attribute '{}' must be {}, the model gives {}", n.describe(), key, expected,
         attrTypeName(it->second));
}

}  // namespace

int64_t Node::attrInt(const std::string& key, int64_t fallback) const {
    const int64_t* v = typedAttr<int64_t>(*this, key, "INT");
    return v ? *v : fallback;
}

float Node::attrFloat(const std::string& key, float fallback) const {
    const float* v = typedAttr<float>(*this, key, "FLOAT");
    return v ? *v : fallback;
}

std::string Node::attrString(const std::string& key, const std::string& fallback) const {
    const std::string* v = typedAttr<std::string>(*this, key, "STRING");
    return v ? *v : fallback;
}

std::vector<int64_t> Node::attrInts(const std::string& key, std::vector<int64_t> fallback) const {
    const auto* v = typedAttr<std::vector<int64_t>>(*this, key, "INTS");
    return v ? *v : fallback;
}

std::vector<float> Node::attrFloats(const std::string& key, std::vector<float> fallback) const {
    const auto* v = typedAttr<std::vector<float>>(*this, key, "FLOATS");
    return v ? *v : fallback;
}

const Tensor* Node::attrTensor(const std::string& key) const { return typedAttr<Tensor>(*this, key, "TENSOR"); }

std::string Node::describe() const { return "node '" + name + "' (" + opType + ")"; }

const StridedView& Node::inputView(size_t i) const {
    static const StridedView kNone;
    return i < inputViews.size() ? inputViews[i] : kNone;
}

void Node::setInputView(size_t i, StridedView view) {
    if (inputViews.size() <= i) inputViews.resize(i + 1);
    inputViews[i] = std::move(view);
}

bool Node::hasInputViews() const {
    return std::any_of(inputViews.begin(), inputViews.end(), [](const StridedView& v) { return !v.empty(); });
}

int Graph::addValue(Value v) {
    int id = static_cast<int>(values.size());
    index_[v.name] = id;
    values.push_back(std::move(v));
    return id;
}

std::string Graph::uniqueName(const std::string& hint) {
    if (!index_.count(hint)) return hint;
    for (int k = 1;; ++k) {
        std::string n = hint + "_" + std::to_string(k);
        if (!index_.count(n)) return n;
    }
}

int Graph::addConstant(const std::string& hint, Tensor t) {
    Value v;
    v.name = uniqueName(hint);
    v.dtype = t.dtype();
    v.shape = t.shape();
    v.hasShape = true;
    v.constant = std::move(t);
    return addValue(std::move(v));
}

int Graph::addIntermediate(const std::string& hint, DataType type, Shape shape) {
    Value v;
    v.name = uniqueName(hint);
    v.dtype = type;
    v.shape = std::move(shape);
    v.hasShape = true;
    return addValue(std::move(v));
}

int Graph::findValue(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? -1 : it->second;
}

bool Graph::isGraphInput(int value) const {
    return std::any_of(inputs.begin(), inputs.end(), [&](const InputDecl& d) { return d.value == value; });
}

bool Graph::isGraphOutput(int value) const {
    return std::find(outputs.begin(), outputs.end(), value) != outputs.end();
}

Readers::Readers(const Graph& g) : g_(g), readers_(g.values.size()) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        if (g.nodes[i].removed) continue;
        for (int in : g.nodes[i].inputs)
            if (in >= 0 && (readers_[in].empty() || readers_[in].back() != static_cast<int>(i)))
                readers_[in].push_back(static_cast<int>(i));
    }
}

std::vector<int> Readers::of(int value) const {
    std::vector<int> out;
    if (value < 0 || static_cast<size_t>(value) >= readers_.size()) return out;
    for (int n : readers_[value]) {
        const Node& node = g_.nodes[n];
        if (node.removed || std::find(node.inputs.begin(), node.inputs.end(), value) == node.inputs.end()) continue;
        if (out.empty() || out.back() != n) out.push_back(n);
    }
    return out;
}

void Readers::add(int value, int node) {
    if (value < 0) return;
    if (static_cast<size_t>(value) >= readers_.size()) readers_.resize(value + 1);
    auto& r = readers_[value];
    r.insert(std::upper_bound(r.begin(), r.end(), node), node);
}

void Graph::relinkProducers() {
    for (auto& v : values) v.producer = -1;
    for (size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].removed) continue;
        for (int o : nodes[i].outputs)
            if (o >= 0) values[o].producer = static_cast<int>(i);
    }
}

bool Graph::topologicalOrder(std::vector<int>* order, std::vector<int>* cycle) const {
    const size_t n = nodes.size();
    std::vector<int> missing(n, 0);
    std::vector<std::vector<int>> users(n);
    // The producer a node waits for through input `in`, or -1 (constants never wait).
    auto waitsFor = [&](int in) { return in >= 0 && !values[in].constant ? values[in].producer : -1; };
    for (size_t i = 0; i < n; ++i) {
        if (nodes[i].removed) continue;
        for (int in : nodes[i].inputs)
            if (int p = waitsFor(in); p >= 0) {
                ++missing[i];
                users[p].push_back(static_cast<int>(i));
            }
    }
    std::priority_queue<int, std::vector<int>, std::greater<>> ready;
    for (size_t i = 0; i < n; ++i)
        if (!nodes[i].removed && missing[i] == 0) ready.push(static_cast<int>(i));
    order->clear();
    while (!ready.empty()) {
        int i = ready.top();
        ready.pop();
        order->push_back(i);
        for (int u : users[i])
            if (--missing[u] == 0) ready.push(u);
    }
    size_t live = static_cast<size_t>(std::count_if(nodes.begin(), nodes.end(), [](const Node& x) { return !x.removed; }));
    if (order->size() == live) return true;
    if (!cycle) return false;
    // Every node left waits for another node left: walk back through such producers until a
    // node repeats; that node lies on a cycle.
    auto blockedProducer = [&](int k) {
        for (int in : nodes[k].inputs)
            if (int p = waitsFor(in); p >= 0 && missing[p] > 0) return p;
        return -1;
    };
    int at = 0;
    while (nodes[at].removed || missing[at] == 0) ++at;
    std::vector<char> seen(n, 0);
    while (!seen[at]) {
        seen[at] = 1;
        at = blockedProducer(at);
    }
    cycle->assign({at});
    for (int k = blockedProducer(at); k != at; k = blockedProducer(k)) cycle->push_back(k);
    std::reverse(cycle->begin(), cycle->end());  // producers first
    return false;
}

std::string Graph::describeCycle(const std::vector<int>& cycle) const {
    std::string path;
    for (int k : cycle) path += nodes[k].describe() + " -> ";
    return path + (cycle.empty() ? std::string() : nodes[cycle.front()].describe());
}

}  // namespace vkinfer::graph
