// vkinfer: neural-network inference on Vulkan compute. Umbrella header.
#pragma once

#include "vkinfer/compare.h"
#include "vkinfer/context.h"
#include "vkinfer/image_io.h"
#include "vkinfer/model.h"
#include "vkinfer/plan.h"
#include "vkinfer/session.h"
#include "vkinfer/status.h"
#include "vkinfer/tensor.h"
#include "vkinfer/tensor_io.h"

#define VKINFER_VERSION_MAJOR 0
#define VKINFER_VERSION_MINOR 1
#define VKINFER_VERSION_PATCH 0

namespace vkinfer {
const char* versionString();
}
