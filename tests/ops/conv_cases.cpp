#include "ops/conv_cases.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/half.h"

namespace vkinfer::testing {

using nlohmann::json;

Tolerance coopmatTolerance() { return Tolerance{1e-2, 2e-3, true}; }

Tensor rnd(const Shape& s, const std::string& what) {
    Tensor t = randomTensor(s, seedOf(what), -1.0f, 1.0f);
    for (int64_t i = 0; i < t.elementCount(); ++i) t.as<float>()[i] = halfToFloat(floatToHalf(t.as<float>()[i]));
    return t;
}

OnnxBuilder convModel(const ConvCase& c) {
    OnnxBuilder b;
    b.input("x", c.x).output("y");
    b.initializer("w", rnd({c.m, c.x[1] / c.group, c.k, c.k}, c.what + "w"));
    std::vector<std::string> ins{"x", "w"};
    if (c.bias) {
        b.initializer("b", rnd({c.m}, c.what + "b"));
        ins.push_back("b");
    }
    const std::string last = c.toChannelsLast ? "nchw" : "y";
    std::string out = c.residual || c.relu ? "c" : last;
    auto& n = b.node("Conv", ins, {out}, "conv");
    int64_t pad = c.pad < 0 ? c.k / 2 : c.pad;
    attr(n, "pads", std::vector<int64_t>{pad, pad, pad, pad});
    attr(n, "strides", std::vector<int64_t>{c.stride, c.stride});
    if (c.group != 1) attr(n, "group", c.group);
    if (c.residual) {
        int64_t oh = (c.x[2] + 2 * pad - c.k) / c.stride + 1, ow = (c.x[3] + 2 * pad - c.k) / c.stride + 1;
        b.input("r", {c.x[0], c.m, oh, ow});
        b.node("Add", {"c", "r"}, {c.relu ? "s" : last});
        if (c.relu) b.node("Relu", {"s"}, {last});
    } else if (c.relu) {
        b.node("Relu", {"c"}, {last});
    }
    if (c.toChannelsLast) attr(b.node("Transpose", {"nchw"}, {"y"}), "perm", std::vector<int64_t>{0, 2, 3, 1});
    return b;
}

std::vector<NamedTensor> inputsOf(const ConvCase& c, const OnnxBuilder& b) {
    std::vector<NamedTensor> in{{"x", rnd(c.x, c.what + "x")}};
    if (c.residual) {
        auto model = b.build();
        in.push_back({"r", rnd(model->inputs()[1].shape, c.what + "r")});
    }
    return in;
}

json planReport(const OnnxBuilder& b, const InputShapes& shapes, const DeviceDescription& dev, Precision precision) {
    auto model = b.build();
    PlanOptions o;
    o.precision = precision;
    o.device = dev.facts;
    o.kernels = dev.kernels;
    auto j = planJson(*model, shapes, o);
    if (!j.ok()) {
        ADD_FAILURE() << j.status().toString();
        return nullptr;
    }
    return json::parse(*j);
}

std::vector<std::string> planKernels(const OnnxBuilder& b, const InputShapes& shapes, const DeviceDescription& dev,
                                     Precision precision) {
    const json plan = planReport(b, shapes, dev, precision);
    if (plan.is_null()) return {};
    std::vector<std::string> kernels;
    for (const auto& d : plan["schedule"]) kernels.push_back(d["kernel"]);
    return kernels;
}

std::vector<std::string> convKernels(const OnnxBuilder& b, const std::vector<NamedTensor>& inputs,
                                     const DeviceDescription& device, Precision precision) {
    InputShapes shapes;
    for (const auto& in : inputs) shapes.emplace_back(in.name, in.tensor.shape());
    std::vector<std::string> kernels;
    for (const auto& k : planKernels(b, shapes, device, precision))
        if (k.rfind("conv", 0) == 0) kernels.push_back(k);
    if (kernels.empty()) ADD_FAILURE() << "no conv kernel in the plan";
    return kernels;
}

std::vector<ConvRun> inBothPrecisions(size_t cases) {
    std::vector<ConvRun> r;
    for (size_t i = 0; i < cases; ++i)
        for (Precision p : {Precision::Float32, Precision::Float16}) r.push_back({i, p});
    return r;
}

std::string convRunName(const ::testing::TestParamInfo<ConvRun>& info) {
    return "case" + std::to_string(info.param.index) + (info.param.precision == Precision::Float16 ? "_fp16" : "_fp32");
}

namespace {

// The large portable tiles, the tensor cores emulated or not, the direct-conv policy.
SessionOptions largeTileOptions(Precision precision, bool emulateCooperativeMatrix, DirectConv direct) {
    SessionOptions o;
    o.precision = precision;
    o.kernels.convTiles = ConvTiles::Large;
    o.kernels.emulateCooperativeMatrix = emulateCooperativeMatrix;
    o.kernels.directConv = direct;
    return o;
}

Tolerance toleranceFor(Precision precision) {
    return precision == Precision::Float16 ? coopmatTolerance() : opTolerance();
}

}  // namespace

void expectGpuKernelsMatchCpu(const OnnxBuilder& b, const std::vector<NamedTensor>& inputs, const std::string& what,
                              Precision precision, bool emulateCooperativeMatrix, DirectConv direct) {
    expectGpuMatchesCpuWith(b, inputs, what, toleranceFor(precision),
                            largeTileOptions(precision, emulateCooperativeMatrix, direct));
}

void expectConvFamilyMatchesCpu(const OnnxBuilder& b, const std::vector<NamedTensor>& inputs, const std::string& what,
                                Precision precision, bool tensorCores, DirectConv direct, bool smallGrid) {
    SessionOptions o = largeTileOptions(precision, tensorCores, direct);
    o.kernels.smallGridConv = smallGrid ? SmallGridConv::FewTiles : SmallGridConv::Off;
    expectGpuMatchesCpuWith(b, inputs, what, toleranceFor(precision), o);
}

void expectEveryConvFamilyMatchesCpu(const OnnxBuilder& b, const std::vector<NamedTensor>& in,
                                     const std::string& what) {
    const Precision f32 = Precision::Float32, f16 = Precision::Float16;
    expectGpuMatchesCpu(b, in, what + " (portable)");
    expectGpuMatchesCpu(b, in, what + " (portable) fp16", coopmatTolerance(), f16);
    expectConvFamilyMatchesCpu(b, in, what + " (conv2d_small)", f32, false, DirectConv::Off, true);
    expectConvFamilyMatchesCpu(b, in, what + " (GPU tiles)", f32, false, DirectConv::Off, false);
    expectConvFamilyMatchesCpu(b, in, what + " (direct GPU tiles)", f32, false, DirectConv::Always, false);
    expectConvFamilyMatchesCpu(b, in, what + " (tiles) fp16", f16, false, DirectConv::Off, false);
    expectConvFamilyMatchesCpu(b, in, what + " (tensor cores)", f16, true, DirectConv::Off, false);
    expectConvFamilyMatchesCpu(b, in, what + " (direct tensor cores)", f16, true, DirectConv::Always, false);
}

void expectEmulatedAndNativeMatchCpu(const OnnxBuilder& b, const std::vector<NamedTensor>& inputs,
                                     const std::string& what, DirectConv direct) {
    SessionOptions o;
    o.precision = Precision::Float16;
    o.kernels.emulateCooperativeMatrix = true;
    o.kernels.directConv = direct;
    expectGpuMatchesCpuWith(b, inputs, what + " (emulated)", coopmatTolerance(), o);
    const DeviceInfo& dev = gpuContext().device();
    if (dev.cooperativeMatrix16x16x16 && dev.subgroupSize == 32) {
        SessionOptions nv;
        nv.precision = Precision::Float16;
        // Maps narrower than a fragment would go to conv2d_small on a GPU (conv/small_grid.h); the
        // portable tiles keep every case here on the tensor cores.
        nv.kernels.convTiles = ConvTiles::Small;
        nv.kernels.directConv = direct;
        expectGpuMatchesCpuWith(b, inputs, what + " (tensor cores)", coopmatTolerance(), nv);
    }
}

bool hasChannelsLastTensorCoreConv(const std::vector<std::string>& kernels) {
    return std::any_of(kernels.begin(), kernels.end(), [](const std::string& k) {
        return k.rfind("conv2d_cm", 0) == 0 && k.find("_nhwc") != std::string::npos;
    });
}

DeviceDescription h200Description() {
    DeviceDescription d;
    d.facts.gpu = true;
    d.facts.cooperativeMatrix16 = true;
    d.facts.subgroupSize = 32;
    d.facts.sharedMemoryBytes = 48 * 1024;
    d.facts.float16Arithmetic = true;
    return d;
}

}  // namespace vkinfer::testing
