// Images in and out: PNG and JPEG files (read through libpng and libjpeg-turbo) as model
// tensors, and model outputs as images.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "vkinfer/status.h"
#include "vkinfer/tensor.h"

namespace vkinfer {

// 8-bit pixels, rows top to bottom, channels interleaved (1: gray, 3: RGB, 4: RGBA).
struct Image {
    uint32_t width = 0;
    uint32_t height = 0;
    uint32_t channels = 0;
    std::vector<uint8_t> pixels;  // width * height * channels bytes
};

// PNG (gray, gray+alpha, RGB, RGBA, palette; 1 to 16 bits: 16-bit samples scaled to 8 with
// rounding, low depths widened) or JPEG (gray, RGB, CMYK/YCCK converted to RGB), chosen by
// the file's signature, not its name. Gray+alpha comes back as RGBA, a palette as RGB or RGBA
// (RGBA when it has transparency, as does a tRNS chunk). No colour management: gamma and ICC
// chunks are ignored and pixels come back as stored. Fails naming the file: missing
// (NotFound), not a PNG or JPEG, truncated, corrupt (libjpeg's corrupt-data warnings count as
// failures, since it would otherwise return gray blocks), or more than 2^30 pixels.
Result<Image> loadImage(const std::string& path);

// PNG (8-bit, gray/RGB/RGBA by the channel count) or JPEG (gray or RGB at `jpegQuality`, 1 to
// 100; alpha is dropped) by the extension: .png, .jpg or .jpeg, in any case. Fails naming the
// file: another extension, a folder that does not exist, a write error (the partial file is
// removed), or an image whose pixels do not match its size.
Status saveImage(const std::string& path, const Image& image, int jpegQuality = 95);

// How pixel values map to tensor values: tensor = (pixel / 255 - mean[c]) * scale[c], per
// channel in RGB(A) order; and back: pixel = 255 * (tensor / scale[c] + mean[c]).
struct PixelMapping {
    std::array<float, 4> mean{0, 0, 0, 0};
    std::array<float, 4> scale{1, 1, 1, 1};
};

// [1, channels, H, W] float32 (planar, rows top to bottom) from an image; `channels` 1 (luma,
// BT.601: 0.299 R + 0.587 G + 0.114 B), 3 (RGB) or 4 (RGBA): an image with fewer channels is
// expanded (gray to RGB, alpha 1), alpha is dropped when not asked for.
Result<Tensor> imageToTensor(const Image& image, uint32_t channels, const PixelMapping& mapping = {});

// An image from a [1, C, H, W] (or [C, H, W]) float32 or float16 tensor with C = 1, 3 or 4:
// values mapped back through `mapping`, clamped to [0, 255] and rounded to nearest (NaN: 0).
Result<Image> tensorToImage(const Tensor& tensor, const PixelMapping& mapping = {});

}  // namespace vkinfer
