// Small models shared by several test binaries.
#pragma once

#include <gtest/gtest.h>
#include <vkinfer/vkinfer.h>

#include "support/onnx_builder.h"

namespace vkinfer::testing {

// y = relu(x * 2 + 1) on [1, 4, 8, 8]: small, but every frame's output is distinct and exact.
inline Model affineModel() {
    OnnxBuilder b;
    b.input("x", {1, 4, 8, 8}).output("y");
    b.initializer("two", floatTensor({}, {2.0f})).initializer("one", floatTensor({}, {1.0f}));
    b.node("Mul", {"x", "two"}, {"m"});
    b.node("Add", {"m", "one"}, {"a"});
    b.node("Relu", {"a"}, {"y"});
    auto m = b.build();
    EXPECT_TRUE(m.ok()) << m.status().toString();
    return *m;
}

// A LayerNorm written out op by op as exporters write it: ReduceMean -> Sub -> Pow(2) ->
// ReduceMean -> Add(eps) -> Sqrt -> Div [-> Mul(gamma) -> Add(beta)], output "y". The means
// are over `axis` (-1: what a LayerNormalization does; 1 on [N, C, spatial...]: NAFNet's
// LayerNorm2d), their axes an attribute before opset 18 and an input from 18 on. gamma and
// beta: random, of x's last dim for the last axis, per channel [C, 1, ...] otherwise.
struct LayerNormSpec {
    std::vector<int64_t> x{2, 5, 24};
    int64_t opset = 17;
    int64_t axis = -1;
    bool affine = true;
    bool weightFirst = false;  // Mul(gamma, normalized), per-channel gamma [1, C, 1, ...]
    bool subTwice = false;     // `x - mu` written twice (NAFNet's code; exporters keep both)
    uint32_t seed = 15;
};

inline OnnxBuilder layerNormAsWritten(const LayerNormSpec& s) {
    OnnxBuilder b(s.opset);
    b.input("x", s.x).output("y");
    b.initializer("eps", floatTensor({}, {1e-5f})).initializer("two", floatTensor({}, {2.0f}));
    std::vector<int64_t> param{s.x.back()};
    if (s.axis != -1) {
        param.assign(s.x.size() - 1, 1);
        param[0] = s.x[1];
        if (s.weightFirst) param.insert(param.begin(), 1);
    }
    b.initializer("gamma", randomTensor(param, s.seed, 0.5f, 1.5f)).initializer("beta", randomTensor(param, s.seed + 1));
    auto mean = [&](const std::string& in, const std::string& out) {
        if (s.opset >= 18) {
            b.initializer(out + "_axes", Tensor::fromVector<int64_t>(DataType::Int64, {1}, {s.axis}));
            b.node("ReduceMean", {in, out + "_axes"}, {out});
        } else {
            attr(b.node("ReduceMean", {in}, {out}), "axes", std::vector<int64_t>{s.axis});
        }
    };
    mean("x", "mu");
    b.node("Sub", {"x", "mu"}, {"d"});
    if (s.subTwice) b.node("Sub", {"x", "mu"}, {"d_again"});
    b.node("Pow", {s.subTwice ? "d_again" : "d", "two"}, {"d2"});
    mean("d2", "var");
    b.node("Add", {"var", "eps"}, {"ve"});
    b.node("Sqrt", {"ve"}, {"sd"});
    b.node("Div", {"d", "sd"}, {s.affine ? "n" : "y"});
    if (s.affine) {
        b.node("Mul", s.weightFirst ? std::vector<std::string>{"gamma", "n"} : std::vector<std::string>{"n", "gamma"},
               {"ng"});
        b.node("Add", {"ng", "beta"}, {"y"});
    }
    return b;
}

// GroupNorm as torchlib exports it at opset 18: Reshape [N, G, -1] -> InstanceNormalization
// (scale `instanceScale` per group, zero bias) -> Reshape back [-> Mul(gamma) -> Add(beta)]
// [-> SiLU as Sigmoid and Mul], gamma and beta [C, 1, ...] (random, fixed seeds).
inline OnnxBuilder groupNormAsExported(const std::vector<int64_t>& xs, int64_t groups, bool affine, bool silu,
                                float instanceScale = 1.0f) {
    OnnxBuilder b(18);
    b.input("x", xs).output("y");
    const int64_t C = xs[1];
    b.initializer("grouped_shape", Tensor::fromVector<int64_t>(DataType::Int64, {3}, {xs[0], groups, -1}));
    std::vector<int64_t> back(xs.begin(), xs.end());
    b.initializer("shape", Tensor::fromVector<int64_t>(DataType::Int64, {int64_t(xs.size())}, back));
    b.initializer("ones", Tensor::fromVector<float>(DataType::Float32, {groups},
                                                    std::vector<float>(size_t(groups), instanceScale)));
    b.initializer("zeros", Tensor::fromVector<float>(DataType::Float32, {groups}, std::vector<float>(size_t(groups), 0.0f)));
    std::vector<int64_t> param(xs.size() - 1, 1);
    param[0] = C;
    b.initializer("gamma", randomTensor(param, 40, 0.5f, 1.5f)).initializer("beta", randomTensor(param, 41));
    b.node("Reshape", {"x", "grouped_shape"}, {"g"});
    attr(b.node("InstanceNormalization", {"g", "ones", "zeros"}, {"gn"}), "epsilon", 1e-5f);
    b.node("Reshape", {"gn", "shape"}, {affine || silu ? "n" : "y"});
    std::string last = "n";
    if (affine) {
        b.node("Mul", {"n", "gamma"}, {"ng"});
        b.node("Add", {"ng", "beta"}, {silu ? "a" : "y"});
        last = "a";
    }
    if (silu) {
        b.node("Sigmoid", {last}, {"s"});
        b.node("Mul", {last, "s"}, {"y"});
    }
    return b;
}

}  // namespace vkinfer::testing
