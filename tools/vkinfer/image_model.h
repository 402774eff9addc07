// Models that take or make images: which input is an image and how pixels map to its
// values (`run --image`, `--save-image`), and what an image-to-image model does to the size
// of its input and how far each output pixel looks (`upscale`).
#pragma once

#include <string>
#include <vector>

#include "common.h"

namespace vkinfer::cli {

// --mean and --scale as given: the text and whether the option was on the command line (an
// empty value is a usage error, not the default).
struct PixelOptions {
    std::string mean, scale;
    bool meanGiven = false, scaleGiven = false;
};
// The mapping with how many values each option gave (0: not given).
struct PixelArgs {
    PixelMapping mapping;
    size_t meanValues = 0, scaleValues = 0;
};
// --mean and --scale: one value for every channel, or one per channel ("0.485,0.456,0.406").
// Empty, not finite, a zero scale, or more than 4 values: a usage error naming the option.
PixelArgs parsePixelMapping(const PixelOptions& options);
// A usage error unless each option gave one value or one per channel of `tensor` (an image
// input or output of `channels` channels): --mean 0.1,0.2 for RGB left the blue mean 0.
void checkPixelChannels(const PixelArgs& args, uint32_t channels, const std::string& tensor);

// The channel count of a model input that takes an image: [N, C, H, W] with N 1 or dynamic
// and C 1, 3 or 4 (a dynamic C takes the image's own channels, `imageChannels`). Anything
// else is an error naming the input and its declared shape.
uint32_t imageInputChannels(const TensorDesc& input, uint32_t imageChannels);

// [1, C, H, W] for `image` fed to `input`: its declared fixed H or W must be the image's
// (an error naming both sizes otherwise; images are not resized).
std::vector<int64_t> imageInputShape(const TensorDesc& input, const Image& image, uint32_t channels);

// An image-to-image model as `upscale` uses it.
struct ImageModel {
    std::string input, output;
    uint32_t inChannels = 3, outChannels = 3;
    int64_t scale = 1;                      // output H / input H = output W / input W
    int64_t fixedHeight = -1, fixedWidth = -1;  // the input's declared H and W, -1 if dynamic
};

// One image input and one image output, with an integer scale factor equal in H and W,
// found by planning the model (on the CPU) at two sizes unequal in H and W (30x31 and 26x35,
// or the first that plan of 48x80 ... 256x384 for models that need multiples of a stride; or
// its fixed size).
ImageModel describeImageModel(const Model& model, const std::string& modelPath, const PlanOptions& options,
                              uint32_t imageChannels);

// What the model needs an image's width and height to be a multiple of (models that
// downsample inside, such as a U-Net): 1 when a `width` x `height` image plans as it is, else
// the smallest of 2, 4, ... 64 for which the image padded up to a multiple plans and scales by
// m.scale. When none does, the planner's error for the image as given (naming the node).
// Models of a fixed size: 1 (their size is checked where the tiles are chosen).
int64_t requiredSizeMultiple(const Model& model, const std::string& path, const ImageModel& m, int64_t width,
                             int64_t height, const PlanOptions& options);

// How far an output pixel depends on input pixels: output pixel q depends only on input
// pixels within `radius` (in both axes) of input pixel floor(q / scale). Windows may start
// only at multiples of `alignment` for the output to equal the untiled one (models that
// downsample inside; 1 for plain convolutional models).
struct ReceptiveField {
    int64_t radius = 0;
    int64_t alignment = 1;
    int64_t probeSize = 0;  // the input edge it was measured on
    int runs = 0;           // inferences the measurement took
};

// Measures it on the device on a random probe image: first the alignment (the smallest shift
// of 1, 2, 4, ... 32 pixels that moves the output with the input, away from the edges), then
// the radius: how far the output changes when one pixel changes (to the far end of [0, 1] in
// every channel), for `alignment` neighbouring pixels, since a model that downsamples reaches
// differently from pixels of each phase. Probes grow from 32 to 512 pixels until both are
// found. Fails when the change does not stay inside (a global operation such as an image-wide
// normalization: such a model cannot be tiled without seams) or when no shift reproduces the
// output.
ReceptiveField measureReceptiveField(Session& session, const ImageModel& m, const PixelMapping& mapping);

}  // namespace vkinfer::cli
