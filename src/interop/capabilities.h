// What the interop entry points query of a context's device, apart from the public
// queryInteropCapabilities: the synchronization and buffer capabilities alone (cheap, asked
// at every export and import), and the image-sharing table.
#pragma once

#include <vector>

#include "vkinfer/interop.h"

namespace vkinfer::interop {

// queryInteropCapabilities without InteropCapabilities::images.
InteropCapabilities syncAndMemoryCapabilities(const Context& context);
// InteropCapabilities::images: every shared format, both tilings, each enabled handle type,
// an input's and an output's usage.
std::vector<ImageSharingSupport> imageSharingTable(const Context& context);

}  // namespace vkinfer::interop
