// An image through an image-to-image model (the project's own x2 upscaler by default), in
// tiles that keep the device within its limits and leave no seams: what `vkinfer upscale`
// does between reading and writing its files, and what the Python package's
// vkinfer.upscale() calls.
#pragma once

#include <cstdint>
#include <string>

#include "common.h"
#include "image_model.h"

namespace vkinfer::cli {

struct UpscaleSettings {
    int tile = -1;     // tile edge in input pixels; -1: chosen; 0: the whole image at once
    int overlap = -1;  // context pixels around a tile's core; -1: measured
    PixelArgs pixels;  // --mean and --scale
};

struct UpscaleResult {
    Image image;       // the upscaled image: gray for a gray input, with alpha for an input with alpha
    int64_t scale = 1;
    std::string note;  // how the image was adapted ("; padded to ...", "; gray like the input")
    size_t tiles = 0;
    int64_t tileWidth = 0, tileHeight = 0;
    std::string tileWhy;
    bool tiled = false;
    int64_t overlap = 0;
    std::string overlapWhy;
    size_t plans = 0;       // distinct tile shapes, one plan each
    double probeMs = 0;     // measuring the receptive field (0 when not measured)
    double tilesMs = 0;     // running the tiles
};

// Upscales `original` with `model` (its path `modelPath` names it in messages) on `ctx` with
// the session options' precision and sync. Throws CliError naming what failed (a model that
// is not image-to-image, a tile too small for the overlap, a failed run naming its tile).
UpscaleResult upscaleImage(const Image& original, const Model& model, const std::string& modelPath, const Context& ctx,
                           const SessionOptions& options, const UpscaleSettings& settings);

}  // namespace vkinfer::cli
