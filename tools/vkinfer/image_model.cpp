#include "image_model.h"

#include <fmt/format.h>

#include <cmath>
#include <random>

namespace vkinfer::cli {

namespace {

std::vector<float> parseValues(const std::string& text, const char* option) {
    std::vector<float> values;
    size_t start = 0;
    for (;;) {
        size_t comma = text.find(',', start);
        std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        double v = 0;
        if (part.empty() || !CLI::detail::lexical_cast(part, v) || !std::isfinite(v))
            throw CliError(fmt::format("{} '{}': '{}' is not a finite number (expected R,G,B or one value)", option, text,
                                       part),
                           2);
        values.push_back(static_cast<float>(v));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (values.size() > 4)
        throw CliError(fmt::format("{} '{}': {} values; give one, or one per channel (at most 4)", option, text,
                                   values.size()),
                       2);
    return values;
}

// One value for all channels, or per channel (missing trailing channels keep the default).
void fill(std::array<float, 4>& target, const std::vector<float>& values) {
    if (values.size() == 1) target.fill(values[0]);
    for (size_t c = 0; c < values.size() && values.size() > 1; ++c) target[c] = values[c];
}

std::string describeShape(const TensorDesc& d) {
    if (!d.rankKnown) return "no declared shape";
    std::string s;
    for (size_t i = 0; i < d.shape.size(); ++i)
        s += (i ? "x" : "") + (d.shape[i] >= 0 ? std::to_string(d.shape[i]) : d.dimNames[i]);
    return s.empty() ? "scalar" : s;
}

std::vector<int64_t> plannedOutputShape(const Model& model, const std::string& path, const ImageModel& m, int64_t h,
                                        int64_t w, const PlanOptions& options) {
    InputShapes shapes{{m.input, {1, m.inChannels, h, w}}};
    auto json = planJson(model, shapes, options);
    if (!json.ok())
        throw CliError(fmt::format("planning '{}' for a {}x{} image: {}", path, w, h, json.status().toString()));
    auto j = nlohmann::json::parse(*json);
    return j["outputs"][m.output].get<std::vector<int64_t>>();
}

Tensor probeImage(uint32_t channels, int64_t size, const PixelMapping& mapping, uint32_t seed) {
    Tensor t(DataType::Float32, {1, channels, size, size});
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
    const int64_t plane = size * size;
    for (uint32_t c = 0; c < channels; ++c)
        for (int64_t i = 0; i < plane; ++i)
            t.as<float>()[c * plane + i] = (pixel(rng) - mapping.mean[c]) * mapping.scale[c];
    return t;
}

struct ProbeOutput {
    std::vector<float> values;
    int64_t channels = 0, height = 0, width = 0;
    float at(int64_t c, int64_t y, int64_t x) const { return values[size_t((c * height + y) * width + x)]; }
};

ProbeOutput runProbe(Session& session, const ImageModel& m, const Tensor& input, int& runs) {
    auto out = session.run({{m.input, input}});
    if (!out.ok()) throw CliError(fmt::format("measuring the receptive field: {}", out.status().toString()));
    ++runs;
    const Tensor* t = nullptr;
    for (const auto& o : *out)
        if (o.name == m.output) t = &o.tensor;
    const auto& s = t->shape();
    ProbeOutput p;
    p.channels = s[1];
    p.height = s[2];
    p.width = s[3];
    p.values.resize(size_t(t->elementCount()));
    for (int64_t i = 0; i < t->elementCount(); ++i) p.values[size_t(i)] = static_cast<float>(t->getDouble(i));
    return p;
}

bool sameBits(float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace

PixelArgs parsePixelMapping(const PixelOptions& o) {
    PixelArgs a;
    if (o.meanGiven) {
        const auto values = parseValues(o.mean, "--mean");
        fill(a.mapping.mean, values);
        a.meanValues = values.size();
    }
    if (o.scaleGiven) {
        const auto values = parseValues(o.scale, "--scale");
        for (float v : values)
            if (v == 0) throw CliError(fmt::format("--scale '{}': a scale of 0 maps every pixel to one value", o.scale), 2);
        fill(a.mapping.scale, values);
        a.scaleValues = values.size();
    }
    return a;
}

void checkPixelChannels(const PixelArgs& a, uint32_t channels, const std::string& tensor) {
    for (auto [option, count] : {std::pair{"--mean", a.meanValues}, std::pair{"--scale", a.scaleValues}})
        if (count > 1 && count != channels)
            throw CliError(fmt::format("{} gives {} values for {} of {} channel{}: give one value, or one per channel",
                                       option, count, tensor, channels, channels == 1 ? "" : "s"),
                           2);
}

uint32_t imageInputChannels(const TensorDesc& input, uint32_t imageChannels) {
    const auto& s = input.shape;
    if (input.dtype != DataType::Float32)
        throw CliError(fmt::format("input '{}' is {}; an image becomes a float32 tensor", input.name,
                                   dataTypeName(input.dtype)));
    if (!input.rankKnown) return imageChannels;  // any shape is accepted: [1, C, H, W] it is
    const bool nchw = s.size() == 4 && (s[0] == 1 || s[0] < 0) && (s[1] < 0 || s[1] == 1 || s[1] == 3 || s[1] == 4);
    if (!nchw)
        throw CliError(fmt::format("input '{}' ({}) does not take an image: an image input is [N, C, H, W] with N 1 or "
                                   "dynamic and C 1, 3 or 4",
                                   input.name, describeShape(input)));
    return s[1] < 0 ? imageChannels : static_cast<uint32_t>(s[1]);
}

std::vector<int64_t> imageInputShape(const TensorDesc& input, const Image& image, uint32_t channels) {
    const bool fixedH = input.rankKnown && input.shape[2] >= 0, fixedW = input.rankKnown && input.shape[3] >= 0;
    if ((fixedH && input.shape[2] != image.height) || (fixedW && input.shape[3] != image.width))
        throw CliError(fmt::format("input '{}' takes {}x{} images (width x height); the image is {}x{} (resize it first)",
                                   input.name, fixedW ? std::to_string(input.shape[3]) : "any",
                                   fixedH ? std::to_string(input.shape[2]) : "any", image.width, image.height));
    return {1, channels, image.height, image.width};
}

ImageModel describeImageModel(const Model& model, const std::string& path, const PlanOptions& options,
                              uint32_t imageChannels) {
    if (model.inputs().size() != 1) {
        std::string names;
        for (const auto& d : model.inputs()) names += (names.empty() ? "'" : ", '") + d.name + "'";
        throw CliError(fmt::format("'{}' has {} inputs ({}); an image-to-image model has one", path,
                                   model.inputs().size(), names));
    }
    ImageModel m;
    const TensorDesc& in = model.inputs()[0];
    m.input = in.name;
    m.output = model.outputs()[0].name;
    if (model.outputs().size() > 1)
        warn(fmt::format("'{}' has {} outputs; the image is output '{}', the first", path, model.outputs().size(),
                         m.output));
    m.inChannels = imageInputChannels(in, imageChannels);
    if (in.rankKnown) {
        m.fixedHeight = in.shape[2];
        m.fixedWidth = in.shape[3];
    }
    // Sizes unequal in H and W, so that a factor that differs between the axes, is not an
    // integer (out % in != 0) or does not hold at every size shows. Models that downsample
    // inside need multiples of their stride: the first sizes that plan are taken, two of them.
    const int64_t sizes[][2] = {{30, 31}, {26, 35}, {48, 80}, {64, 96}, {128, 192}, {256, 384}};
    int planned = 0;
    std::string firstFailure;
    for (const auto& hw : sizes) {
        const int64_t h = m.fixedHeight >= 0 ? m.fixedHeight : hw[0], w = m.fixedWidth >= 0 ? m.fixedWidth : hw[1];
        std::vector<int64_t> out;
        try {
            out = plannedOutputShape(model, path, m, h, w, options);
        } catch (const CliError& e) {
            if (firstFailure.empty()) firstFailure = e.what();
            if (m.fixedHeight >= 0 && m.fixedWidth >= 0) break;
            continue;
        }
        if (out.size() != 4 || out[0] != 1 || (out[1] != 1 && out[1] != 3 && out[1] != 4))
            throw CliError(fmt::format("output '{}' of '{}' is {} for a {}x{} input: not an image ([1, C, H, W] with C 1, "
                                       "3 or 4)",
                                       m.output, path, shapeToString(out), w, h));
        m.outChannels = static_cast<uint32_t>(out[1]);
        if (out[2] % h != 0 || out[3] % w != 0 || out[2] / h != out[3] / w || out[2] == 0)
            throw CliError(fmt::format("'{}' turns a {}x{} input into {}x{} (width x height): not one integer scale "
                                       "factor for both axes",
                                       path, w, h, out[3], out[2]));
        if (planned > 0 && m.scale != out[2] / h)
            throw CliError(fmt::format("'{}' scales by {} at one size and by {} at another", path, m.scale, out[2] / h));
        m.scale = out[2] / h;
        if (++planned == 2 || (m.fixedHeight >= 0 && m.fixedWidth >= 0)) break;
    }
    if (planned == 0) throw CliError(firstFailure);
    return m;
}

int64_t requiredSizeMultiple(const Model& model, const std::string& path, const ImageModel& m, int64_t width,
                             int64_t height, const PlanOptions& options) {
    if (m.fixedHeight >= 0 || m.fixedWidth >= 0) return 1;
    const auto plansAt = [&](int64_t h, int64_t w) {
        try {
            const auto out = plannedOutputShape(model, path, m, h, w, options);
            return out.size() == 4 && out[2] == m.scale * h && out[3] == m.scale * w;
        } catch (const CliError&) {
            return false;
        }
    };
    if (plansAt(height, width)) return 1;
    for (int64_t q = 2; q <= 64; q *= 2) {
        const int64_t h = (height + q - 1) / q * q, w = (width + q - 1) / q * q;
        if ((h != height || w != width) && plansAt(h, w)) return q;
    }
    const auto out = plannedOutputShape(model, path, m, height, width, options);  // throws the planner's error
    throw CliError(fmt::format("'{}' turns a {}x{} image into {} (expected {}x{}), and no padding to a multiple of 2 "
                               "to 64 helps",
                               path, width, height, shapeToString(out), m.scale * width, m.scale * height));
}

namespace {

// `base` moved up and left by `shift` pixels, cyclically.
Tensor shifted(const Tensor& base, int64_t shift) {
    const auto& shape = base.shape();
    const int64_t channels = shape[1], size = shape[2], plane = size * size;
    Tensor moved(DataType::Float32, shape);
    for (int64_t c = 0; c < channels; ++c)
        for (int64_t y = 0; y < size; ++y)
            for (int64_t x = 0; x < size; ++x)
                moved.as<float>()[c * plane + y * size + x] =
                    base.as<float>()[c * plane + ((y + shift) % size) * size + (x + shift) % size];
    return moved;
}

// The smallest shift of 1, 2, 4, ... 32 (at most size / 4) that moves the output with the
// input, compared at least size / 4 pixels from every edge (valid for a receptive field below
// that); 0 when none does.
int64_t measureAlignment(Session& session, const ImageModel& m, const Tensor& base, const ProbeOutput& out, int& runs) {
    const int64_t s = m.scale, size = base.shape()[2], margin = size / 4;
    float largest = 0;
    for (float v : out.values) largest = std::max(largest, std::isfinite(v) ? std::abs(v) : 0.0f);
    const float tolerance = 1e-5f * std::max(1.0f, largest);
    for (int64_t shift = 1; shift <= 32 && shift <= margin; shift *= 2) {
        const ProbeOutput other = runProbe(session, m, shifted(base, shift), runs);
        bool equal = true;
        for (int64_t c = 0; c < out.channels && equal; ++c)
            for (int64_t y = s * margin; y < s * (size - shift - margin) && equal; ++y)
                for (int64_t x = s * margin; x < s * (size - shift - margin); ++x)
                    if (!(std::abs(other.at(c, y, x) - out.at(c, y + s * shift, x + s * shift)) <= tolerance)) {
                        equal = false;
                        break;
                    }
        if (equal) return shift;
    }
    return 0;
}

// How far the output changes when the input pixel (p, p) moves to the far end of [0, 1] in
// every channel: the largest distance, in input pixels, between p and floor(q / scale) of a
// changed output pixel q.
int64_t reachOfPixel(Session& session, const ImageModel& m, const PixelMapping& mapping, const Tensor& base,
                     const ProbeOutput& out, int64_t p, int& runs) {
    const int64_t s = m.scale, size = base.shape()[2], plane = size * size;
    Tensor changed = base;
    for (uint32_t c = 0; c < m.inChannels; ++c) {
        float& v = changed.as<float>()[c * plane + p * size + p];
        const float pixel = v / mapping.scale[c] + mapping.mean[c];
        v = ((pixel < 0.5f ? 1.0f : 0.0f) - mapping.mean[c]) * mapping.scale[c];
    }
    const ProbeOutput other = runProbe(session, m, changed, runs);
    int64_t reach = 0;
    for (int64_t c = 0; c < out.channels; ++c)
        for (int64_t y = 0; y < out.height; ++y)
            for (int64_t x = 0; x < out.width; ++x)
                if (!sameBits(out.at(c, y, x), other.at(c, y, x)))
                    reach = std::max({reach, std::abs(y / s - p), std::abs(x / s - p)});
    return reach;
}

}  // namespace

ReceptiveField measureReceptiveField(Session& session, const ImageModel& m, const PixelMapping& mapping) {
    const bool fixed = m.fixedHeight >= 0 || m.fixedWidth >= 0;
    if (fixed && m.fixedHeight != m.fixedWidth)
        throw CliError(fmt::format("input '{}' has a fixed non-square size; give --overlap", m.input));
    ReceptiveField rf;
    for (int64_t size = fixed ? m.fixedHeight : 32;; size *= 2) {
        const bool last = fixed || size * 2 > 512;
        rf.probeSize = size;
        const Tensor base = probeImage(m.inChannels, size, mapping, 7);
        const ProbeOutput out = runProbe(session, m, base, rf.runs);
        // The alignment first: a model that downsamples by A reaches differently from input
        // pixels of different phases mod A, so the radius is the largest over A neighbours.
        const int64_t alignment = measureAlignment(session, m, base, out, rf.runs);
        if (alignment == 0 && !last) continue;  // a receptive field of size / 4 or more hides the shift
        const int64_t phases = alignment > 0 ? alignment : 1;
        int64_t radius = 0;
        for (int64_t d = 0; d < phases; ++d)
            radius = std::max(radius, reachOfPixel(session, m, mapping, base, out, size / 2 + d, rf.runs));
        if (radius >= size / 2 - phases) {
            if (!last) continue;
            throw CliError(fmt::format(
                "one input pixel changes output pixels {} or more pixels away (measured on a {}x{} probe): the model "
                "looks at the whole image (e.g. a normalization over it), so tiles would show seams; give --tile 0 to "
                "run the image whole, or --overlap N to tile anyway",
                radius, size, size));
        }
        if (alignment == 0) {
            throw CliError(fmt::format("the model's output does not move with its input (probed with shifts of 1 to 32 "
                                       "pixels on a {}x{} probe), so tiles would show seams; give --tile 0 to run the "
                                       "image whole, or --overlap N to tile anyway",
                                       size, size));
        }
        rf.radius = radius;
        rf.alignment = alignment;
        return rf;
    }
}

}  // namespace vkinfer::cli
