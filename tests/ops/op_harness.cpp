#include "ops/op_harness.h"

#include <cmath>
#include <cstring>
#include <random>

#include "core/half.h"

#include "passes/cpu_reference.h"
#include "runtime/model_data.h"

namespace vkinfer::testing {

void expectGpuMatchesCpu(const OnnxBuilder& builder, const std::vector<NamedTensor>& inputs, const std::string& what,
                         Tolerance tol, Precision precision) {
    SessionOptions opts;
    opts.precision = precision;
    expectGpuMatchesCpuWith(builder, inputs, what, tol, opts);
}

void expectGpuMatchesCpuWith(const OnnxBuilder& builder, const std::vector<NamedTensor>& inputs,
                             const std::string& what, Tolerance tol, const SessionOptions& options) {
    auto model = builder.build();
    ASSERT_TRUE(model.ok()) << what << ": " << model.status().toString();
    std::vector<Tensor> expected;
    try {
        expected = passes::runOnCpu(model->data()->graph, inputs);
    } catch (const std::exception& e) {
        FAIL() << what << ": CPU reference failed: " << e.what();
    }
    std::vector<std::vector<NamedTensor>> results;
    for (SyncMode mode : {SyncMode::Minimal, SyncMode::Conservative}) {
        SessionOptions opts = options;
        opts.sync = mode;
        auto session = Session::create(gpuContext(), *model, opts);
        ASSERT_TRUE(session.ok()) << what << ": " << session.status().toString();
        auto out = session->run(inputs);
        ASSERT_TRUE(out.ok()) << what << " (" << syncModeName(mode) << "): " << out.status().toString();
        ASSERT_EQ(out->size(), expected.size()) << what;
        for (size_t i = 0; i < expected.size(); ++i) {
            EXPECT_EQ((*out)[i].tensor.dtype(), expected[i].dtype()) << what << " output " << i;
            Comparison c = compareTensors((*out)[i].tensor, expected[i], tol);
            EXPECT_TRUE(c.pass) << what << " (" << syncModeName(mode) << ") output " << i << ": "
                                << (c.problem.empty() ? "" : c.problem + "; ") << c.mismatches << " mismatches, max error "
                                << c.maxAbsError << " (max |ref| " << c.maxAbsExpected << ", worst index " << c.worstIndex
                                << ")";
        }
        results.push_back(std::move(out).value());
    }
    for (size_t i = 0; i < expected.size(); ++i) {
        const Tensor& a = results[0][i].tensor;
        const Tensor& b = results[1][i].tensor;
        ASSERT_EQ(a.byteSize(), b.byteSize());
        EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.byteSize()))
            << what << ": minimal and conservative sync differ in output " << i;
    }
}

std::vector<Tensor> cpuReference(const OnnxBuilder& builder, const std::vector<NamedTensor>& inputs,
                                 const std::string& what) {
    auto model = builder.build();
    if (!model.ok()) {
        ADD_FAILURE() << what << ": " << model.status().toString();
        return {};
    }
    try {
        return passes::runOnCpu(model->data()->graph, inputs);
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": CPU reference failed: " << e.what();
        return {};
    }
}

void expectTensorNear(const Tensor& actual, const Tensor& expected, const std::string& what, Tolerance tol) {
    Comparison c = compareTensors(actual, expected, tol);
    EXPECT_TRUE(c.pass) << what << ": " << (c.problem.empty() ? "" : c.problem + "; ") << c.mismatches
                        << " mismatches, max error " << c.maxAbsError << " (worst index " << c.worstIndex << ", got "
                        << (c.worstIndex >= 0 && actual.dtype() == DataType::Float32 ? actual.as<float>()[c.worstIndex] : 0.0f)
                        << ", want "
                        << (c.worstIndex >= 0 && expected.dtype() == DataType::Float32 ? expected.as<float>()[c.worstIndex]
                                                                                        : 0.0f)
                        << ")";
}

void expectReferenceEquals(const OnnxBuilder& builder, const std::vector<NamedTensor>& inputs,
                           const std::vector<Tensor>& expected, const std::string& what, Tolerance tol) {
    std::vector<Tensor> cpu = cpuReference(builder, inputs, what);
    ASSERT_EQ(cpu.size(), expected.size()) << what;
    for (size_t i = 0; i < cpu.size(); ++i)
        expectTensorNear(cpu[i], expected[i], what + " (CPU reference vs hand-computed, output " + std::to_string(i) + ")",
                         tol);
    if (gpuAvailable()) expectGpuMatchesCpu(builder, inputs, what);
}

int64_t planDispatches(const OnnxBuilder& builder, const std::vector<NamedTensor>& inputs, const PlanOptions& options) {
    auto model = builder.build();
    if (!model.ok()) {
        ADD_FAILURE() << model.status().toString();
        return -1;
    }
    InputShapes shapes;
    for (const auto& in : inputs) shapes.emplace_back(in.name, in.tensor.shape());
    auto summary = planSummary(*model, shapes, options);
    if (!summary.ok()) {
        ADD_FAILURE() << summary.status().toString();
        return -1;
    }
    return static_cast<int64_t>(summary->dispatches);
}

void expectUnsupported(const OnnxBuilder& builder, const std::vector<NamedTensor>& inputs, const std::string& what) {
    auto model = builder.build();
    if (!model.ok()) {
        EXPECT_EQ(model.status().code(), ErrorCode::Unsupported) << what << ": " << model.status().toString();
        return;
    }
    InputShapes shapes;
    for (const auto& in : inputs) shapes.emplace_back(in.name, in.tensor.shape());
    auto summary = planSummary(*model, shapes);
    ASSERT_FALSE(summary.ok()) << what << ": expected an Unsupported error";
    EXPECT_EQ(summary.status().code(), ErrorCode::Unsupported) << what << ": " << summary.status().toString();
}

Tensor runInBothSyncModes(const OnnxBuilder& builder, const std::vector<NamedTensor>& inputs, SessionOptions options) {
    auto model = builder.build();
    EXPECT_TRUE(model.ok()) << model.status().toString();
    if (!model.ok()) return {};
    Tensor first;
    for (SyncMode sync : {SyncMode::Minimal, SyncMode::Conservative}) {
        options.sync = sync;
        auto session = Session::create(gpuContext(), *model, options);
        EXPECT_TRUE(session.ok()) << session.status().toString();
        if (!session.ok()) return {};
        auto out = session->run(inputs);
        EXPECT_TRUE(out.ok()) << out.status().toString();
        if (!out.ok()) return {};
        if (sync == SyncMode::Minimal) {
            first = (*out)[0].tensor;
        } else {
            EXPECT_EQ(std::memcmp(first.data(), (*out)[0].tensor.data(), first.byteSize()), 0)
                << "the sync modes differ";
        }
    }
    return first;
}

Tensor iotaTensor(const std::vector<int64_t>& shape, float start, float step) {
    Tensor t(DataType::Float32, shape);
    for (int64_t i = 0; i < t.elementCount(); ++i) t.as<float>()[i] = start + step * static_cast<float>(i);
    return t;
}

uint32_t seedOf(const std::string& what) {
    uint32_t h = 2166136261u;  // FNV-1a: stable across platforms, unlike std::hash
    for (unsigned char c : what) h = (h ^ c) * 16777619u;
    return h;
}

namespace {

template <class T>
void storeAs(Tensor& t, int64_t i, double v) {
    t.as<T>()[i] = static_cast<T>(v);
}

// Element i of `t` set from a double by the Cast rules.
void storeElement(Tensor& t, int64_t i, double v) {
    if (t.dtype() != DataType::Float32 && t.dtype() != DataType::Float64 && t.dtype() != DataType::Float16)
        v = t.dtype() == DataType::Bool ? (v != 0 ? 1 : 0) : std::trunc(v);
    switch (t.dtype()) {
        case DataType::Float32: storeAs<float>(t, i, v); break;
        case DataType::Float64: storeAs<double>(t, i, v); break;
        case DataType::Float16: t.as<uint16_t>()[i] = floatToHalf(static_cast<float>(v)); break;
        case DataType::Int8: storeAs<int8_t>(t, i, v); break;
        case DataType::UInt8:
        case DataType::Bool: storeAs<uint8_t>(t, i, v); break;
        case DataType::Int16: storeAs<int16_t>(t, i, v); break;
        case DataType::UInt16: storeAs<uint16_t>(t, i, v); break;
        case DataType::Int32: storeAs<int32_t>(t, i, v); break;
        case DataType::UInt32: storeAs<uint32_t>(t, i, v); break;
        case DataType::Int64: storeAs<int64_t>(t, i, v); break;
        case DataType::UInt64: storeAs<uint64_t>(t, i, v); break;
        default: ADD_FAILURE() << "storeElement: unsupported type " << dataTypeName(t.dtype());
    }
}

}  // namespace

Tensor randomIntTensor(const std::vector<int64_t>& shape, DataType type, uint32_t seed, int64_t lo, int64_t hi) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int64_t> dist(lo, hi);
    Tensor t(type, shape);
    for (int64_t i = 0; i < t.elementCount(); ++i) storeElement(t, i, static_cast<double>(dist(rng)));
    return t;
}

Tensor convertTensor(const Tensor& f32, DataType type) {
    Tensor t(type, f32.shape());
    for (int64_t i = 0; i < t.elementCount(); ++i) storeElement(t, i, f32.getDouble(i));
    return t;
}

Tensor typedTensor(DataType type, const std::vector<int64_t>& shape, const std::vector<double>& values) {
    Tensor t(type, shape);
    for (int64_t i = 0; i < t.elementCount() && i < static_cast<int64_t>(values.size()); ++i) storeElement(t, i, values[i]);
    return t;
}

}  // namespace vkinfer::testing
