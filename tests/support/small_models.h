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

}  // namespace vkinfer::testing
