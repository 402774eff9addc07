#include "upscale_image.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "progress.h"
#include "tiling.h"

namespace vkinfer::cli {

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Device bytes of one tile per input pixel, from the plan for a 64x64 tile: the largest tensor
// (bound as one storage buffer range) and everything a frame slot allocates (arena, input and
// output buffers and their staging). Both grow with the pixel count.
struct TileCost {
    double tensorBytesPerPixel = 0;
    double memoryBytesPerPixel = 0;
};

TileCost tileCost(const Model& model, const ImageModel& m, const PlanOptions& options) {
    const int64_t ref = 64;
    const int64_t h = m.fixedHeight >= 0 ? m.fixedHeight : ref, w = m.fixedWidth >= 0 ? m.fixedWidth : ref;
    auto text = planJson(model, {{m.input, {1, m.inChannels, h, w}}}, options);
    if (!text.ok()) throw CliError(text.status());
    auto j = nlohmann::json::parse(*text);
    double largest = 0, io = 0;
    for (const auto& e : j["schedule"])
        for (const char* key : {"reads", "writes"})
            for (const auto& a : e[key])
                if (a["allocation"] != "weights") largest = std::max(largest, a["bytes"].get<double>());
    for (const auto& a : j["allocations"])
        if (a["kind"] == "input" || a["kind"] == "output") io += a["bytes"].get<double>();
    const double pixels = static_cast<double>(h * w);
    return {largest / pixels, (j["arena_bytes"].get<double>() + 2 * io) / pixels};
}

struct TileChoice {
    int64_t width = 0, height = 0;
    std::string why;
};

TileChoice chooseTiles(const UpscaleSettings& a, const Model& model, const ImageModel& m, const DeviceInfo& device,
                       const PlanOptions& options, const Image& image, int64_t overlap, int64_t alignment) {
    const int64_t W = image.width, H = image.height;
    if (m.fixedHeight >= 0 || m.fixedWidth >= 0) {
        const int64_t tw = m.fixedWidth >= 0 ? m.fixedWidth : W, th = m.fixedHeight >= 0 ? m.fixedHeight : H;
        if (tw > W || th > H)
            throw CliError(fmt::format("input '{}' takes {}x{} images (width x height); the image is {}x{}, smaller",
                                       m.input, tw, th, W, H));
        if (a.tile > 0) warn("--tile is ignored: the model's input has a fixed size, which is the tile size");
        return {tw, th, "the model's fixed input size"};
    }
    if (a.tile == 0) return {W, H, "--tile 0: the whole image"};
    if (a.tile > 0) return {std::min<int64_t>(a.tile, W), std::min<int64_t>(a.tile, H), "--tile"};

    const TileCost cost = tileCost(model, m, options);
    const uint64_t tensorLimit = device.maxStorageBufferRange ? device.maxStorageBufferRange : (uint64_t(128) << 20);
    const uint64_t budget =
        device.deviceLocalBytes ? std::min<uint64_t>(device.deviceLocalBytes / 4, uint64_t(2) << 30) : uint64_t(1) << 30;
    const auto fits = [&](double pixels) {
        return pixels * cost.tensorBytesPerPixel <= 0.9 * static_cast<double>(tensorLimit) &&
               pixels * cost.memoryBytesPerPixel <= static_cast<double>(budget);
    };
    const std::string limits = fmt::format("storage buffer range {} MiB, memory budget {} MiB", tensorLimit >> 20,
                                           budget >> 20);
    if (fits(static_cast<double>(W * H))) return {W, H, "the whole image fits (" + limits + ")"};
    // The smallest tile worth running: twice the context (rounded up to the alignment) and a
    // core of 16 pixels.
    const int64_t context = (overlap + alignment - 1) / alignment * alignment;
    const int64_t minimum = (2 * context + std::max<int64_t>(alignment, 16) + 7) / 8 * 8;
    int64_t edge = std::min(largestTileEdge(cost.tensorBytesPerPixel, tensorLimit / 10 * 9, minimum),
                            largestTileEdge(cost.memoryBytesPerPixel, budget, minimum));
    if (edge == 0)
        throw CliError(fmt::format("even a {}x{} tile exceeds the device's limits ({}); the model needs {:.0f} bytes per "
                                   "input pixel",
                                   minimum, minimum, limits, cost.memoryBytesPerPixel));
    edge = std::min<int64_t>(edge, 2048);
    return {std::min(edge, W), std::min(edge, H), "the largest tile that fits (" + limits + ")"};
}

// Input pixels [x0, x0 + w) x [y0, y0 + h) of a [1, C, H, W] tensor.
Tensor window(const Tensor& full, int64_t x0, int64_t y0, int64_t w, int64_t h) {
    const auto& s = full.shape();
    const int64_t channels = s[1], H = s[2], W = s[3];
    Tensor t(DataType::Float32, {1, channels, h, w});
    for (int64_t c = 0; c < channels; ++c)
        for (int64_t y = 0; y < h; ++y)
            std::memcpy(t.as<float>() + (c * h + y) * w, full.as<float>() + (c * H + y0 + y) * W + x0,
                        size_t(w) * sizeof(float));
    return t;
}

// The input's alpha, resized by `scale` (bilinear, pixel centres aligned), into channel 3.
void resizeAlpha(const Image& in, int64_t scale, Image& out) {
    const int64_t W = in.width, H = in.height;
    for (int64_t oy = 0; oy < int64_t(out.height); ++oy) {
        const double sy = std::clamp((oy + 0.5) / double(scale) - 0.5, 0.0, double(H - 1));
        const int64_t y0 = static_cast<int64_t>(sy), y1 = std::min(y0 + 1, H - 1);
        const double fy = sy - double(y0);
        for (int64_t ox = 0; ox < int64_t(out.width); ++ox) {
            const double sx = std::clamp((ox + 0.5) / double(scale) - 0.5, 0.0, double(W - 1));
            const int64_t x0 = static_cast<int64_t>(sx), x1 = std::min(x0 + 1, W - 1);
            const double fx = sx - double(x0);
            auto a = [&](int64_t x, int64_t y) { return double(in.pixels[size_t((y * W + x) * 4 + 3)]); };
            const double v = (a(x0, y0) * (1 - fx) + a(x1, y0) * fx) * (1 - fy) + (a(x0, y1) * (1 - fx) + a(x1, y1) * fx) * fy;
            out.pixels[size_t((oy * int64_t(out.width) + ox) * 4 + 3)] = static_cast<uint8_t>(std::lround(v));
        }
    }
}

// `image` padded on the right and bottom to multiples of `q` by repeating its last column and
// row: the edge continues as it is, so the model sees no artificial border in what is kept.
Image padToMultiple(const Image& image, int64_t q) {
    Image p;
    p.width = static_cast<uint32_t>((image.width + q - 1) / q * q);
    p.height = static_cast<uint32_t>((image.height + q - 1) / q * q);
    p.channels = image.channels;
    p.pixels.resize(size_t(p.width) * p.height * p.channels);
    const size_t c = image.channels;
    for (uint32_t y = 0; y < p.height; ++y)
        for (uint32_t x = 0; x < p.width; ++x)
            std::memcpy(&p.pixels[(size_t(y) * p.width + x) * c],
                        &image.pixels[(size_t(std::min(y, image.height - 1)) * image.width + std::min(x, image.width - 1)) * c], c);
    return p;
}

// The top-left `width` x `height` pixels of `image`.
Image crop(const Image& image, uint32_t width, uint32_t height) {
    Image c;
    c.width = width;
    c.height = height;
    c.channels = image.channels;
    c.pixels.resize(size_t(width) * height * c.channels);
    for (uint32_t y = 0; y < height; ++y)
        std::memcpy(&c.pixels[size_t(y) * width * c.channels], &image.pixels[size_t(y) * image.width * c.channels],
                    size_t(width) * c.channels);
    return c;
}

// RGB as gray (BT.601 luma, as for a gray model input): a gray photo upscaled by an RGB model
// comes back gray, not as three equal channels in an RGB file.
Image toGray(const Image& rgb) {
    Image g;
    g.width = rgb.width;
    g.height = rgb.height;
    g.channels = 1;
    g.pixels.resize(size_t(rgb.width) * rgb.height);
    for (size_t i = 0; i < g.pixels.size(); ++i) {
        const uint8_t* p = &rgb.pixels[i * 3];
        g.pixels[i] = static_cast<uint8_t>(std::lround(0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]));
    }
    return g;
}

}  // namespace

UpscaleResult upscaleImage(const Image& original, const Model& model, const std::string& modelPath, const Context& ctx,
                           const SessionOptions& options, const UpscaleSettings& a) {
    UpscaleResult r;
    const PixelArgs& pixels = a.pixels;
    const PixelMapping& mapping = pixels.mapping;
    PlanOptions po;
    po.sync = options.sync;
    po.precision = options.precision;
    const ImageModel m = describeImageModel(model, modelPath, po, original.channels);
    checkPixelChannels(pixels, m.inChannels, "the model's input '" + m.input + "'");
    if (m.outChannels != m.inChannels) checkPixelChannels(pixels, m.outChannels, "the model's output '" + m.output + "'");
    if (m.inChannels == 1 && original.channels != 1)
        warn(fmt::format("the model takes gray images: the {}-channel image is converted to luma", original.channels));
    // A model that downsamples inside takes multiples of its stride: the image is padded to
    // one and the output cropped back, rather than failing inside the first tile.
    const int64_t multiple = requiredSizeMultiple(model, modelPath, m, original.width, original.height, po);
    const Image image = multiple > 1 ? padToMultiple(original, multiple) : original;

    Session session = orDie(Session::create(ctx, model, options));
    int64_t overlap = a.overlap >= 0 ? a.overlap : 0;
    ReceptiveField rf;
    std::string overlapWhy = a.overlap >= 0 ? "--overlap" : "";
    // The tile size first: an image that fits whole needs no overlap, so no measurement.
    TileChoice choice = chooseTiles(a, model, m, ctx.device(), po, image, std::max<int64_t>(overlap, 8), 1);
    const bool tiled = choice.width < int64_t(image.width) || choice.height < int64_t(image.height);
    if (tiled && a.overlap < 0) {
        const auto p0 = std::chrono::steady_clock::now();
        progress::update("upscale: measuring the model's receptive field", false);
        rf = measureReceptiveField(session, m, mapping);
        progress::clear();
        r.probeMs = msSince(p0);
        // One pixel more than measured: a margin against a probe whose change happened to
        // vanish (through a ReLU) at the edge of the field.
        overlap = rf.radius + 1;
        overlapWhy = fmt::format("receptive field +-{} px measured in {} runs on a {}x{} probe, plus 1{}", rf.radius,
                                 rf.runs, rf.probeSize, rf.probeSize,
                                 rf.alignment > 1 ? fmt::format("; tiles start at multiples of {}", rf.alignment) : "");
        if (a.tile < 0) choice = chooseTiles(a, model, m, ctx.device(), po, image, overlap, rf.alignment);
    }
    // Tiles of a padded image are multiples of what the model takes, and start at them.
    const int64_t alignment = std::lcm(rf.alignment, multiple);
    if (multiple > 1) {
        choice.width = std::max(multiple, choice.width / multiple * multiple);
        choice.height = std::max(multiple, choice.height / multiple * multiple);
    }
    TilePlan plan;
    try {
        plan = planTiles(image.width, image.height, choice.width, choice.height, overlap, alignment);
    } catch (const std::invalid_argument& e) {
        throw CliError(fmt::format("--tile {}: {}; give a larger tile", a.tile, e.what()), 2);
    }
    // Overlap is recomputed by every tile: tiles barely larger than it multiply the work.
    double windowPixels = 0;
    for (const Tile& t : plan.tiles) windowPixels += double(t.x.length) * double(t.y.length);
    const double work = windowPixels / (double(image.width) * double(image.height));
    if (work > 2)
        warn(fmt::format("{} tiles of {}x{} with an overlap of {} px compute {:.0f}x the image's pixels; a larger --tile "
                         "(or none) does less work",
                         plan.tiles.size(), choice.width, choice.height, overlap, work));

    const int64_t s = m.scale;
    const uint32_t outChannels = m.outChannels == 3 && image.channels == 4 && m.inChannels != 4 ? 4 : m.outChannels;
    Image out;
    out.width = static_cast<uint32_t>(image.width * s);
    out.height = static_cast<uint32_t>(image.height * s);
    out.channels = outChannels;
    out.pixels.resize(size_t(out.width) * out.height * outChannels);
    const Tensor full = orDie(imageToTensor(image, m.inChannels, mapping));
    const auto r0 = std::chrono::steady_clock::now();
    for (size_t k = 0; k < plan.tiles.size(); ++k) {
        const Tile& t = plan.tiles[k];
        if (plan.tiles.size() > 1) progress::update(fmt::format("upscale: tile {}/{}", k + 1, plan.tiles.size()));
        // The whole image in one run can take long (a CPU device): said so if it does.
        std::optional<progress::SlowNotice> notice;
        if (plan.tiles.size() == 1)
            notice.emplace(fmt::format("upscale: running the model on the whole {}x{} image", t.x.length, t.y.length));
        auto result = session.run({{m.input, window(full, t.x.begin, t.y.begin, t.x.length, t.y.length)}});
        if (!result.ok())
            throw CliError(fmt::format("tile {} of {} ({}x{} at {},{}): {}", k + 1, plan.tiles.size(), t.x.length,
                                       t.y.length, t.x.begin, t.y.begin, result.status().toString()));
        const Tensor* y = nullptr;
        for (const auto& o : *result)
            if (o.name == m.output) y = &o.tensor;
        const std::vector<int64_t> want{1, m.outChannels, s * t.y.length, s * t.x.length};
        if (y->shape() != want)
            throw CliError(fmt::format("output '{}' is {} for a {}x{} tile; expected {}", m.output,
                                       shapeToString(y->shape()), t.x.length, t.y.length, shapeToString(want)));
        const Image tileImage = orDie(tensorToImage(*y, mapping));
        const int64_t c = m.outChannels, tw = s * t.x.length;
        for (int64_t oy = s * t.y.coreBegin; oy < s * t.y.coreEnd; ++oy) {
            const uint8_t* src = tileImage.pixels.data() + size_t(((oy - s * t.y.begin) * tw + s * (t.x.coreBegin - t.x.begin)) * c);
            uint8_t* dst = out.pixels.data() + size_t((oy * int64_t(out.width) + s * t.x.coreBegin) * outChannels);
            const int64_t n = s * (t.x.coreEnd - t.x.coreBegin);
            if (outChannels == c) {
                std::memcpy(dst, src, size_t(n * c));
                continue;
            }
            for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * outChannels, src + i * c, size_t(c));
        }
    }
    progress::clear();
    r.tilesMs = msSince(r0);
    if (multiple > 1) {
        out = crop(out, static_cast<uint32_t>(original.width * s), static_cast<uint32_t>(original.height * s));
        r.note += fmt::format("; padded to {}x{} (the model takes multiples of {}), output cropped", image.width,
                            image.height, multiple);
    }
    if (outChannels == 4 && m.outChannels == 3) resizeAlpha(original, s, out);
    if (original.channels == 1 && out.channels == 3) {
        out = toGray(out);
        r.note += "; gray like the input";
    }
    r.image = std::move(out);
    r.scale = s;
    r.tiles = plan.tiles.size();
    r.tileWidth = choice.width;
    r.tileHeight = choice.height;
    r.tileWhy = choice.why;
    r.tiled = tiled;
    r.overlap = overlap;
    r.overlapWhy = overlapWhy;
    r.plans = plan.shapes().size();
    return r;
}

}  // namespace vkinfer::cli
