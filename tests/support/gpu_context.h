// The Vulkan context shared by the GPU tests of one binary: created once, with validation
// when VKINFER_VALIDATE=1 (ctest sets it for every GPU test). Any validation message fails
// the test that provoked it: sessions report it as a ValidationError status.
#pragma once

#include <gtest/gtest.h>
#include <vkinfer/vkinfer.h>

#include <string>

namespace vkinfer::testing {

// True when a Vulkan device exists (the context is created on first call). Requesting
// validation where the layer is missing records a test failure.
bool gpuAvailable();
Context& gpuContext();

// Models directory (../shared/models by default, made by scripts/make_models.py; the
// VKINFER_MODELS_DIR environment variable overrides it at run time); empty if absent, so that
// the tests needing it skip instead of failing on a clone without the models.
std::string modelsDir();

}  // namespace vkinfer::testing

#define VKINFER_REQUIRE_GPU()                                                                  \
    do {                                                                                       \
        if (!::vkinfer::testing::gpuAvailable()) GTEST_SKIP() << "no Vulkan device available"; \
    } while (0)
