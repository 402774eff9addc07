// Resize (opset 10+) and Upsample over the two innermost dimensions: nearest with every
// nearest_mode, bilinear or bicubic (cubic_coeff_a, exclude_outside); coordinate
// transformation modes half_pixel, pytorch_half_pixel, align_corners, asymmetric,
// tf_half_pixel_for_nn, tf_crop_and_resize (roi, extrapolation_value) and opset 19's
// half_pixel_symmetric; opset 18's axes and keep_aspect_ratio_policy. resize.comp runs the
// common nearest/bilinear cases; resize_general.comp the rest (ResizeSpec::general).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>

#include "kernels/families/resize.h"
#include "kernels/families/resize_general.h"
#include "ops/activation.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

// Match COORD_MODE and NEAREST_MODE in shaders/resize.comp.
enum class CoordMode : uint32_t {
    HalfPixel = 0,
    PytorchHalfPixel = 1,
    AlignCorners = 2,
    Asymmetric = 3,
    TfHalfPixelForNn = 4,
    TfCropAndResize = 5,     // resize_general.comp only
    HalfPixelSymmetric = 6,  // resize_general.comp only (opset 19)
};
enum class NearestMode : uint32_t { RoundPreferFloor = 0, RoundPreferCeil = 1, Floor = 2, Ceil = 3 };

struct ResizeSpec {
    Shape out;
    float scaleH = 1, scaleW = 1;
    bool linear = false;
    bool cubic = false;
    CoordMode coord = CoordMode::HalfPixel;
    NearestMode nearest = NearestMode::RoundPreferFloor;
    // For resize_general.comp: the resized lengths as real numbers (scale * input length
    // when scales are given, as the ONNX reference computes align_corners), the roi of the
    // two axes (tf_crop_and_resize), cubic parameters, the extrapolation value.
    float lenH = 1, lenW = 1;
    float roiH0 = 0, roiH1 = 1, roiW0 = 0, roiW1 = 1;
    float cubicA = -0.75f, extrapolation = 0;
    bool excludeOutside = false;
    // Opset 18 antialias, downsampling with linear or cubic: the filter stretched by 1/scale
    // (resize_general.comp's weighted tap table).
    bool antialias = false;
    bool general = false;  // needs resize_general.comp
};

// `constant(i)` returns input i's constant value (throwing if it is not constant) or null
// when the input is omitted.
template <class ConstantFn>
ResizeSpec resizeSpec(const Node& n, const Shape& in, ConstantFn constant) {
    if (in.size() < 2) shapeError(n, "input must have rank >= 2, got {}", shapeToString(in));
    const size_t r = in.size();
    ResizeSpec s;
    std::vector<float> scales;
    std::vector<int64_t> sizes;
    // Opset-10 Resize (inputs X, scales) behaves like Upsample; later ones take X, roi, scales, sizes.
    const bool legacy = n.opType == "Upsample" || n.inputs.size() <= 2;
    if (n.opType == "Upsample" && n.hasAttr("scales")) {
        scales = n.attrFloats("scales");
    } else {
        if (const Tensor* t = constant(legacy ? 1 : 2))
            for (int64_t i = 0; i < t->elementCount(); ++i) scales.push_back(static_cast<float>(t->getDouble(i)));
        if (!legacy)
            if (const Tensor* t = constant(3)) sizes = tensorInts(*t);
    }
    // Opset 18: scales, sizes and roi may list only `axes`; the others keep their size.
    std::vector<size_t> axes;
    if (n.hasAttr("axes")) {
        for (int64_t a : n.attrInts("axes")) {
            const auto d = static_cast<size_t>(normalizeAxis(n, a, static_cast<int64_t>(r)));
            if (std::find(axes.begin(), axes.end(), d) != axes.end()) shapeError(n, "axis {} is listed twice in axes", a);
            axes.push_back(d);
        }
        // The listed entries into a full-rank list that keeps the other dims (`full`).
        auto spread = [&](auto& listed, auto full, const char* what) {
            if (listed.empty()) return;
            if (listed.size() != axes.size()) shapeError(n, "{} has {} entries for {} axes", what, listed.size(), axes.size());
            for (size_t i = 0; i < axes.size(); ++i) full[axes[i]] = listed[i];
            listed = full;
        };
        spread(scales, std::vector<float>(r, 1.0f), "scales");
        spread(sizes, std::vector<int64_t>(in.begin(), in.end()), "sizes");
    } else {
        for (size_t i = 0; i < r; ++i) axes.push_back(i);
    }
    // Opset 18: sizes as a bound keeping the aspect ratio: one scale for every listed axis,
    // the smallest (not_larger) or largest (not_smaller) of sizes / input, the sizes rounded
    // from it half up (as the ONNX reference does).
    const std::string policy = n.attrString("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
        shapeError(n, "keep_aspect_ratio_policy '{}' is not one of stretch, not_larger, not_smaller", policy);
    std::optional<double> commonScale;
    if (policy != "stretch" && !sizes.empty() && sizes.size() == r) {
        double sc = 0;
        for (size_t k = 0; k < axes.size(); ++k) {
            const size_t d = axes[k];
            if (in[d] <= 0 || sizes[d] <= 0)
                shapeError(n, "keep_aspect_ratio_policy '{}' needs positive sizes and input dims, got {} and {} at {}",
                           policy, sizes[d], in[d], d);
            const double ratio = static_cast<double>(sizes[d]) / static_cast<double>(in[d]);
            sc = k == 0 ? ratio : policy == "not_larger" ? std::min(sc, ratio) : std::max(sc, ratio);
        }
        for (size_t d : axes) {
            // (Converting a length past int64 to an integer is undefined.)
            const double len = sc * static_cast<double>(in[d]) + 0.5;
            if (!(len < 0x1p62)) shapeError(n, "keep_aspect_ratio_policy '{}' gives dimension {} no plannable size", policy, d);
            sizes[d] = static_cast<int64_t>(len);
        }
        commonScale = sc;
    }
    auto isListed = [&](size_t i) { return std::find(axes.begin(), axes.end(), i) != axes.end(); };
    if (!sizes.empty()) {
        if (sizes.size() != r) shapeError(n, "sizes has {} entries for rank {}", sizes.size(), r);
        s.out = sizes;
    } else if (scales.size() == r) {
        for (size_t i = 0; i < r; ++i) {
            // (Converting a NaN or a length past int64 to an integer is undefined.)
            double len = std::floor(static_cast<double>(in[i]) * static_cast<double>(scales[i]));
            if (!(scales[i] > 0) || !std::isfinite(scales[i]) || !(len < 0x1p62))
                shapeError(n, "scale {} of dimension {} is not a positive number giving a plannable size", scales[i], i);
            s.out.push_back(static_cast<int64_t>(len));
        }
    } else {
        shapeError(n, "needs scales or sizes with one entry per dimension ({})", r);
    }
    for (size_t i = 0; i + 2 < r; ++i)
        if (s.out[i] != in[i]) unsupported(n, "resizing dimension {} (only the two innermost dimensions resize)", i);
    for (size_t i = r - 2; i < r; ++i)
        if (in[i] == 0 && s.out[i] > 0) shapeError(n, "dimension {} is empty: nothing to resize to {}", i, s.out[i]);
    auto scaleOf = [&](size_t i) {
        if (commonScale && isListed(i)) return static_cast<float>(*commonScale);
        return sizes.empty() ? scales[i] : static_cast<float>(static_cast<double>(s.out[i]) / static_cast<double>(in[i]));
    };
    s.scaleH = r >= 2 ? scaleOf(r - 2) : 1.0f;
    s.scaleW = scaleOf(r - 1);

    std::string mode = n.attrString("mode", "nearest");
    if (mode == "linear" || mode == "bilinear") s.linear = true;
    else if (mode == "cubic") s.cubic = true;
    else if (mode != "nearest") unsupported(n, "mode '{}' is not supported (nearest, linear, cubic)", mode);
    auto realLength = [&](size_t i) {
        if (commonScale && isListed(i)) return static_cast<float>(*commonScale * static_cast<double>(in[i]));
        return static_cast<float>(sizes.empty() ? static_cast<double>(in[i]) * scales[i] : static_cast<double>(s.out[i]));
    };
    s.lenH = realLength(r - 2);
    s.lenW = realLength(r - 1);
    s.cubicA = n.attrFloat("cubic_coeff_a", -0.75f);
    s.excludeOutside = n.attrInt("exclude_outside", 0) != 0;
    s.extrapolation = n.attrFloat("extrapolation_value", 0.0f);
    // Opset 18 antialias widens the linear or cubic filter when downsampling (it does nothing
    // for nearest or when upsampling).
    s.antialias = (s.linear || s.cubic) && n.attrInt("antialias", 0) != 0 && (s.scaleH < 1.0f || s.scaleW < 1.0f);
    if (legacy) {
        s.coord = CoordMode::Asymmetric;
        s.nearest = NearestMode::Floor;
        s.general = s.cubic || s.antialias;
        return s;
    }
    std::string ct = n.attrString("coordinate_transformation_mode", "half_pixel");
    if (ct == "half_pixel") s.coord = CoordMode::HalfPixel;
    else if (ct == "pytorch_half_pixel") s.coord = CoordMode::PytorchHalfPixel;
    else if (ct == "align_corners") s.coord = CoordMode::AlignCorners;
    else if (ct == "asymmetric") s.coord = CoordMode::Asymmetric;
    else if (ct == "tf_half_pixel_for_nn") s.coord = CoordMode::TfHalfPixelForNn;
    else if (ct == "tf_crop_and_resize") s.coord = CoordMode::TfCropAndResize;
    else if (ct == "half_pixel_symmetric") s.coord = CoordMode::HalfPixelSymmetric;
    else unsupported(n, "coordinate_transformation_mode '{}' is not supported", ct);
    if (s.coord == CoordMode::TfCropAndResize) {
        const Tensor* roiT = constant(1);
        const size_t na = axes.size();
        if (!roiT || roiT->elementCount() != static_cast<int64_t>(2 * na))
            shapeError(n, "tf_crop_and_resize needs a roi of {} values", 2 * na);
        // Starts then ends, of the listed axes; the others are not cropped.
        std::vector<double> roi(r, 0.0);
        roi.resize(2 * r, 1.0);
        for (size_t k = 0; k < na; ++k) {
            roi[axes[k]] = roiT->getDouble(static_cast<int64_t>(k));
            roi[r + axes[k]] = roiT->getDouble(static_cast<int64_t>(na + k));
        }
        for (size_t i = 0; i + 2 < r; ++i)
            if (roi[i] != 0.0 || roi[i + r] != 1.0)
                unsupported(n, "a roi that crops dimension {} (only the two innermost dimensions resize)", i);
        s.roiH0 = static_cast<float>(roi[r - 2]);
        s.roiH1 = static_cast<float>(roi[2 * r - 2]);
        s.roiW0 = static_cast<float>(roi[r - 1]);
        s.roiW1 = static_cast<float>(roi[2 * r - 1]);
    }
    // resize.comp divides align_corners by the integer output size - 1: exact only when the
    // real resized length is that integer.
    bool fractional = static_cast<float>(s.out[r - 2]) != s.lenH || static_cast<float>(s.out[r - 1]) != s.lenW;
    s.general = s.cubic || s.antialias || s.coord == CoordMode::TfCropAndResize || s.coord == CoordMode::HalfPixelSymmetric ||
                (s.coord == CoordMode::AlignCorners && fractional);
    std::string nm = n.attrString("nearest_mode", "round_prefer_floor");
    if (nm == "round_prefer_floor") s.nearest = NearestMode::RoundPreferFloor;
    else if (nm == "round_prefer_ceil") s.nearest = NearestMode::RoundPreferCeil;
    else if (nm == "floor") s.nearest = NearestMode::Floor;
    else if (nm == "ceil") s.nearest = NearestMode::Ceil;
    else unsupported(n, "nearest_mode '{}' is not supported", nm);
    return s;
}

ResizeSpec resizeSpecOf(const Graph& g, const Node& n) {
    return resizeSpec(n, inputShape(g, n, 0), [&](size_t i) -> const Tensor* {
        if (n.input(i) < 0) return nullptr;
        // An empty tensor stands for "not given" in opset 11-12 models.
        const bool legacy = n.opType == "Upsample" || n.inputs.size() <= 2;
        const Tensor& t = constantInput(g, n, i, i == 3 ? "sizes" : i == 1 && !legacy ? "roi" : "scales");
        return t.elementCount() ? &t : nullptr;
    });
}

void inferResize(Graph& g, const Node& n) {
    requireFloat(g, n, 0);
    setOutput(g, n, 0, DataType::Float32, resizeSpecOf(g, n).out);
}

// The coordinate arithmetic of shaders/resize.comp (sourceCoord; nearest taps come from here,
// nearestTapTable).
float sourceCoord(CoordMode m, int64_t o, float scale, int64_t inLen, int64_t outLen) {
    float xo = static_cast<float>(o);
    switch (m) {
        case CoordMode::HalfPixel: return (xo + 0.5f) / scale - 0.5f;
        case CoordMode::PytorchHalfPixel: return outLen > 1 ? (xo + 0.5f) / scale - 0.5f : 0.0f;
        case CoordMode::AlignCorners:
            return outLen > 1 ? xo * static_cast<float>(inLen - 1) / static_cast<float>(outLen - 1) : 0.0f;
        case CoordMode::Asymmetric: return xo / scale;
        case CoordMode::TfHalfPixelForNn: return (xo + 0.5f) / scale;
        case CoordMode::TfCropAndResize:
        case CoordMode::HalfPixelSymmetric: break;  // resize_general only
    }
    return 0;
}

int64_t nearestIndex(NearestMode m, float c, int64_t inLen) {
    float r;
    bool half = c == std::floor(c) + 0.5f;
    switch (m) {
        case NearestMode::RoundPreferFloor: r = half ? std::floor(c) : std::round(c); break;
        case NearestMode::RoundPreferCeil: r = half ? std::ceil(c) : std::round(c); break;
        case NearestMode::Floor: r = std::floor(c); break;
        default: r = std::ceil(c); break;
    }
    return std::clamp<int64_t>(static_cast<int64_t>(r), 0, inLen - 1);
}

// CPU twin of resize_general.comp: the source coordinate (tf_crop_and_resize: nullopt
// outside the input) and the taps along one axis.
std::optional<float> generalCoord(const ResizeSpec& s, int64_t o, float scale, int64_t inLen, int64_t outLen,
                                  float len, float r0, float r1) {
    float xo = static_cast<float>(o), last = static_cast<float>(inLen - 1);
    switch (s.coord) {
        case CoordMode::HalfPixelSymmetric: {
            // The implicit roi's centre maps to the output's: differs from half_pixel only where
            // the integer output size is not the real resized length.
            const float offset = 0.5f * static_cast<float>(inLen) * (1.0f - static_cast<float>(outLen) / len);
            return offset + (xo + 0.5f) / scale - 0.5f;
        }
        case CoordMode::HalfPixel: return (xo + 0.5f) / scale - 0.5f;
        case CoordMode::PytorchHalfPixel: return len > 1.0f ? (xo + 0.5f) / scale - 0.5f : -0.5f;
        case CoordMode::AlignCorners: return len > 1.0f ? xo * last / (len - 1.0f) : 0.0f;
        case CoordMode::Asymmetric: return xo / scale;
        case CoordMode::TfHalfPixelForNn: return (xo + 0.5f) / scale;
        case CoordMode::TfCropAndResize: {
            float c = len > 1.0f ? r0 * last + xo * (r1 - r0) * last / (len - 1.0f) : 0.5f * (r0 + r1) * last;
            if (c < 0.0f || c > last) return std::nullopt;
            return c;
        }
    }
    return 0.0f;
}

struct Taps {
    int64_t first = 0;
    float w[4] = {0, 0, 0, 0};
};

Taps generalTaps(const ResizeSpec& s, float c, int64_t inLen) {
    Taps t;
    if (!s.linear && !s.cubic) {
        bool half = c == std::floor(c) + 0.5f;
        float r;
        switch (s.nearest) {
            case NearestMode::RoundPreferFloor: r = half ? std::floor(c) : std::round(c); break;
            case NearestMode::RoundPreferCeil: r = half ? std::ceil(c) : std::round(c); break;
            case NearestMode::Floor: r = std::floor(c); break;
            default: r = std::ceil(c); break;
        }
        t.first = static_cast<int64_t>(r);
        t.w[0] = 1;
        return t;
    }
    float f = std::floor(c), r = c - f;
    if (s.linear) {
        t.first = static_cast<int64_t>(f);
        t.w[0] = 1 - r;
        t.w[1] = r;
        return t;
    }
    // Keys' cubic convolution with parameter A, taps at floor(c) - 1 ... floor(c) + 2.
    const float A = s.cubicA;
    auto near = [&](float d) { return ((A + 2) * d - (A + 3)) * d * d + 1; };       // |d| <= 1
    auto far = [&](float d) { return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A; };  // 1 < |d| < 2
    t.first = static_cast<int64_t>(f) - 1;
    t.w[0] = far(r + 1);
    t.w[1] = near(r);
    t.w[2] = near(1 - r);
    t.w[3] = far(2 - r);
    if (s.excludeOutside) {
        float sum = 0;
        for (int k = 0; k < 4; ++k) {
            if (t.first + k < 0 || t.first + k >= inLen) t.w[k] = 0;
            sum += t.w[k];
        }
        for (float& w : t.w) w /= sum;
    }
    return t;
}

// Taps of any count along one axis, as the CPU reference and resize_general.comp's table
// (MODE 3) take them: source indices (clamped to the input) and their weights; `outside` beyond
// a tf_crop_and_resize roi.
struct WideTaps {
    std::vector<int64_t> index;
    std::vector<float> weight;
    bool outside = false;
};

// The ONNX reference's antialiased filter (opset 18): the linear (triangle) or cubic filter
// stretched by 1/scale when downsampling, normalized to sum 1, its taps the n input positions
// nearest to c in the input padded by ceil(n/2) edge values (ties to the lower index), as the
// reference's _get_neighbor picks them; exclude_outside zeroes taps outside the input and
// renormalizes.
WideTaps antialiasTaps(const ResizeSpec& s, float c, float scale, int64_t inLen) {
    const double sc = std::min(static_cast<double>(scale), 1.0);
    const double ratio = c == std::floor(c) ? 1.0 : c - std::floor(c);  // the left neighbour's share, in (0, 1]
    std::vector<double> coeffs;
    if (s.linear) {
        const auto start = static_cast<int64_t>(std::floor(-1.0 / sc)) + 1;
        for (int64_t i = start; i < 2 - start; ++i)
            coeffs.push_back(std::clamp(1.0 - std::abs((static_cast<double>(i) - ratio) * sc), 0.0, 1.0));
    } else {
        const double A = s.cubicA;
        auto cubic = [&](double d) {
            d = std::abs(d);
            if (d <= 1) return ((A + 2) * d - (A + 3)) * d * d + 1;
            if (d < 2) return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A;
            return 0.0;
        };
        const auto start = static_cast<int64_t>(std::floor(-2.0 / sc)) + 1;
        for (int64_t i = start; i < 2 - start; ++i) coeffs.push_back(cubic(sc * (static_cast<double>(i) - ratio)));
    }
    const auto n = static_cast<int64_t>(coeffs.size());  // even
    const int64_t pad = (n + 1) / 2, padded = inLen + 2 * pad;
    const double xp = static_cast<double>(c) + static_cast<double>(pad);
    // The window of n consecutive positions whose centre is nearest xp (ties: the lower one).
    auto lo = static_cast<int64_t>(std::floor(xp - static_cast<double>(n - 1) / 2));
    const double centre = static_cast<double>(lo) + static_cast<double>(n - 1) / 2;
    if (centre + 1 - xp < xp - centre) ++lo;
    lo = std::clamp<int64_t>(lo, 0, std::max<int64_t>(padded - n, 0));
    WideTaps t;
    double sum = 0;
    for (int64_t k = 0; k < n; ++k) {
        const int64_t i = lo + k - pad;
        if (s.excludeOutside && (i < 0 || i >= inLen)) coeffs[static_cast<size_t>(k)] = 0;
        sum += coeffs[static_cast<size_t>(k)];
        t.index.push_back(std::clamp<int64_t>(i, 0, inLen - 1));
    }
    for (double w : coeffs) t.weight.push_back(static_cast<float>(w / sum));
    return t;
}

// Output index o's taps along one axis (antialiased, linear or cubic).
WideTaps axisTaps(const ResizeSpec& s, int64_t o, float scale, int64_t inLen, int64_t outLen, float len, float r0,
                  float r1) {
    const std::optional<float> c = generalCoord(s, o, scale, inLen, outLen, len, r0, r1);
    if (!c) return {{}, {}, true};
    if (s.antialias) return antialiasTaps(s, *c, scale, inLen);
    const Taps taps = generalTaps(s, *c, inLen);
    WideTaps t;
    for (int k = 0; k < 4; ++k) {
        t.index.push_back(std::clamp<int64_t>(taps.first + k, 0, inLen - 1));
        t.weight.push_back(taps.w[k]);
    }
    return t;
}

void evalResizeGeneral(const Node& n, const ResizeSpec& s, const Tensor& x, Tensor& y) {
    const Shape& in = x.shape();
    const size_t r = in.size();
    int64_t IH = in[r - 2], IW = in[r - 1], OH = s.out[r - 2], OW = s.out[r - 1];
    int64_t planes = x.elementCount() / std::max<int64_t>(IH * IW, 1);
    const float* px = x.as<float>();
    float* py = y.as<float>();
    std::vector<WideTaps> rows, cols;
    for (int64_t oy = 0; oy < OH; ++oy) rows.push_back(axisTaps(s, oy, s.scaleH, IH, OH, s.lenH, s.roiH0, s.roiH1));
    for (int64_t ox = 0; ox < OW; ++ox) cols.push_back(axisTaps(s, ox, s.scaleW, IW, OW, s.lenW, s.roiW0, s.roiW1));
    for (int64_t p = 0; p < planes; ++p)
        for (int64_t oy = 0; oy < OH; ++oy)
            for (int64_t ox = 0; ox < OW; ++ox) {
                const WideTaps &ty = rows[static_cast<size_t>(oy)], &tx = cols[static_cast<size_t>(ox)];
                double v = s.extrapolation;
                if (!ty.outside && !tx.outside) {
                    v = 0;
                    for (size_t i = 0; i < ty.index.size(); ++i)
                        for (size_t j = 0; j < tx.index.size(); ++j) {
                            if (ty.weight[i] == 0 || tx.weight[j] == 0) continue;
                            v += static_cast<double>(ty.weight[i]) * tx.weight[j] * px[(p * IH + ty.index[i]) * IW + tx.index[j]];
                        }
                }
                py[(p * OH + oy) * OW + ox] = applyActivation(n.activation, static_cast<float>(v));
            }
}

// The table both nearest kernels read at binding 2, computed by the CPU reference's own
// arithmetic: the source row of each output row, then the source column of each output column.
// On the GPU, `(x + 0.5) / scale` is not correctly rounded everywhere (NVIDIA divides
// approximately), and a coordinate one ulp off a tie picks the other pixel.
// tapOf(axis, o): axis 0 for rows, 1 for columns.
template <class TapOf>
Tensor nearestTapTable(int64_t OH, int64_t OW, TapOf tapOf) {
    Tensor t(DataType::Int32, {OH + OW});
    int32_t* taps = t.as<int32_t>();
    for (int64_t o = 0; o < OH; ++o) taps[o] = tapOf(0, o);
    for (int64_t o = 0; o < OW; ++o) taps[OH + o] = tapOf(1, o);
    return t;
}

// resize_general.comp's nearest tap of output index o along one axis: the source index
// (clamped, as the reads are), or kOutsideTap beyond a tf_crop_and_resize roi.
constexpr int32_t kOutsideTap = INT32_MIN;
int32_t generalNearestTap(const ResizeSpec& s, int64_t o, float scale, int64_t inLen, int64_t outLen, float len, float r0,
                          float r1) {
    const std::optional<float> c = generalCoord(s, o, scale, inLen, outLen, len, r0, r1);
    return c ? static_cast<int32_t>(std::clamp<int64_t>(generalTaps(s, *c, inLen).first, 0, inLen - 1)) : kOutsideTap;
}

void lowerResizeGeneral(LowerContext& ctx, const Node& n, const ResizeSpec& s) {
    const Shape in = ctx.value(n.inputs[0]).shape;  // a copy: addConstant below grows the value table
    const size_t r = in.size();
    int64_t count = ctx.value(n.outputs[0]).elementCount();
    const DataType type = floatKernelType(ctx, n, n.inputs[0], {n.outputs[0]});
    const bool nearest = !s.cubic && !s.linear;
    const int64_t IH = in[r - 2], IW = in[r - 1], OH = s.out[r - 2], OW = s.out[r - 1];
    int taps = n.inputs[0];  // (plain linear and cubic read no taps: binding 2 is the input again)
    int64_t tapsH = 0, tapsW = 0;
    if (s.antialias) {
        std::vector<WideTaps> axes;
        for (int64_t oy = 0; oy < OH; ++oy) axes.push_back(axisTaps(s, oy, s.scaleH, IH, OH, s.lenH, s.roiH0, s.roiH1));
        for (int64_t ox = 0; ox < OW; ++ox) axes.push_back(axisTaps(s, ox, s.scaleW, IW, OW, s.lenW, s.roiW0, s.roiW1));
        for (int64_t o = 0; o < OH + OW; ++o) {
            const auto count = static_cast<int64_t>(axes[static_cast<size_t>(o)].index.size());
            (o < OH ? tapsH : tapsW) = std::max(o < OH ? tapsH : tapsW, count);
        }
        tapsH = std::max<int64_t>(tapsH, 1), tapsW = std::max<int64_t>(tapsW, 1);  // (entry 0 marks outside)
        requireIndexable(n, 2 * (OH * tapsH + OW * tapsW));
        Tensor t(DataType::Int32, {2 * (OH * tapsH + OW * tapsW)});  // (index, weight bits) pairs, zero-padded
        int32_t* table = t.as<int32_t>();
        for (int64_t o = 0; o < OH + OW; ++o) {
            const WideTaps& w = axes[static_cast<size_t>(o)];
            int32_t* at = table + 2 * (o < OH ? o * tapsH : OH * tapsH + (o - OH) * tapsW);
            if (w.outside) at[0] = kOutsideTap;
            for (size_t k = 0; k < w.index.size(); ++k) {
                at[2 * k] = static_cast<int32_t>(w.index[k]);
                std::memcpy(&at[2 * k + 1], &w.weight[k], sizeof(float));
            }
        }
        taps = ctx.addConstant(n.name + "_antialias_taps", std::move(t));
    } else if (nearest) {
        taps = ctx.addConstant(n.name + "_nearest_taps", nearestTapTable(OH, OW, [&](int axis, int64_t o) {
                                   return axis == 0 ? generalNearestTap(s, o, s.scaleH, IH, OH, s.lenH, s.roiH0, s.roiH1)
                                                    : generalNearestTap(s, o, s.scaleW, IW, OW, s.lenW, s.roiW0, s.roiW1);
                               }));
    }
    Dispatch& d = ctx.emit(typedKernel(n, kernels::resize_general::variant(type), "resize_general", type));
    setActivation(d, n.activation);
    d.setSpec(kernels::resize_general::kMode, s.antialias ? 3 : s.cubic ? 2 : s.linear ? 1 : 0);
    d.setSpec(kernels::resize_general::kCoordMode, static_cast<uint32_t>(s.coord));
    d.setSpec(kernels::resize_general::kExcludeOutside, s.excludeOutside ? 1 : 0);
    kernels::resize_general::Push p{};
    p.NC = u32(count / std::max<int64_t>(s.out[r - 2] * s.out[r - 1], 1));
    p.IH = u32(in[r - 2]);
    p.IW = u32(in[r - 1]);
    p.OH = u32(s.out[r - 2]);
    p.OW = u32(s.out[r - 1]);
    p.scaleH = s.scaleH;
    p.scaleW = s.scaleW;
    p.lenH = s.lenH;
    p.lenW = s.lenW;
    p.roiH0 = s.roiH0;
    p.roiH1 = s.roiH1;
    p.roiW0 = s.roiW0;
    p.roiW1 = s.roiW1;
    p.cubicA = s.cubicA;
    p.extrapolation = s.extrapolation;
    p.tapsH = u32(tapsH);
    p.tapsW = u32(tapsW);
    d.setPush(p);
    setLaunch1d(d, count);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(taps)};
}

void evalResizeWith(const Node& n, const ResizeSpec& s, const Tensor& x, Tensor& y) {
    if (s.general) return evalResizeGeneral(n, s, x, y);
    const Shape& in = x.shape();
    const size_t r = in.size();
    int64_t IH = r >= 2 ? in[r - 2] : 1, IW = in[r - 1], OH = s.out[r - 2], OW = s.out[r - 1];
    int64_t planes = x.elementCount() / std::max<int64_t>(IH * IW, 1);
    const float* px = x.as<float>();
    float* py = y.as<float>();
    for (int64_t p = 0; p < planes; ++p)
        for (int64_t oy = 0; oy < OH; ++oy)
            for (int64_t ox = 0; ox < OW; ++ox) {
                float cy = sourceCoord(s.coord, oy, s.scaleH, IH, OH), cx = sourceCoord(s.coord, ox, s.scaleW, IW, OW);
                const float* base = px + p * IH * IW;
                float v;
                if (!s.linear) {
                    v = base[nearestIndex(s.nearest, cy, IH) * IW + nearestIndex(s.nearest, cx, IW)];
                } else {
                    cy = std::clamp(cy, 0.0f, static_cast<float>(IH - 1));
                    cx = std::clamp(cx, 0.0f, static_cast<float>(IW - 1));
                    int64_t y0 = static_cast<int64_t>(std::floor(cy)), x0 = static_cast<int64_t>(std::floor(cx));
                    int64_t y1 = std::min(y0 + 1, IH - 1), x1 = std::min(x0 + 1, IW - 1);
                    float fy = cy - static_cast<float>(y0), fx = cx - static_cast<float>(x0);
                    float top = base[y0 * IW + x0] * (1 - fx) + base[y0 * IW + x1] * fx;
                    float bot = base[y1 * IW + x0] * (1 - fx) + base[y1 * IW + x1] * fx;
                    v = top * (1 - fy) + bot * fy;
                }
                py[(p * OH + oy) * OW + ox] = applyActivation(n.activation, v);
            }
}

void lowerResize(LowerContext& ctx, const Node& n) {
    ResizeSpec s = resizeSpecOf(ctx.graph(), n);
    const Shape in = ctx.value(n.inputs[0]).shape;  // a copy: addConstant below grows the value table
    const size_t r = in.size();
    int64_t IH = in[r - 2], IW = in[r - 1], OH = s.out[r - 2], OW = s.out[r - 1];
    int64_t count = ctx.value(n.outputs[0]).elementCount();
    // Nothing to write: no dispatch, and no tap table (an empty output can still have an axis of
    // 2^32 rows, whose table would take 16 GiB: fuzz_onnx, CI seed 1).
    if (count == 0) return;
    requireIndexable(n, std::max(count, ctx.value(n.inputs[0]).elementCount()));
    if (s.general) return lowerResizeGeneral(ctx, n, s);
    const DataType type = floatKernelType(ctx, n, n.inputs[0], {n.outputs[0]});
    // (Linear reads no taps: binding 2 is the input again.)
    const int taps = s.linear ? n.inputs[0] : ctx.addConstant(n.name + "_nearest_taps", nearestTapTable(OH, OW, [&](int axis, int64_t o) {
        return static_cast<int32_t>(axis == 0 ? nearestIndex(s.nearest, sourceCoord(s.coord, o, s.scaleH, IH, OH), IH)
                                              : nearestIndex(s.nearest, sourceCoord(s.coord, o, s.scaleW, IW, OW), IW));
    }));
    Dispatch& d = ctx.emit(typedKernel(n, kernels::resize::variant(type), "resize", type));
    setActivation(d, n.activation);
    d.setSpec(kernels::resize::kLinear, s.linear ? 1 : 0);
    d.setSpec(kernels::resize::kCoordMode, static_cast<uint32_t>(s.coord));
    kernels::resize::Push p{};
    p.NC = static_cast<uint32_t>(count / std::max<int64_t>(OH * OW, 1));
    p.IH = static_cast<uint32_t>(IH);
    p.IW = static_cast<uint32_t>(IW);
    p.OH = static_cast<uint32_t>(OH);
    p.OW = static_cast<uint32_t>(OW);
    p.scaleH = s.scaleH;
    p.scaleW = s.scaleW;
    d.setPush(p);
    setLaunch1d(d, count);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(taps)};
}

}  // namespace

namespace {
void evalResize(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    ResizeSpec spec = resizeSpec(n, in[0]->shape(), [&](size_t i) -> const Tensor* {
        return i < in.size() && in[i] && in[i]->elementCount() ? in[i] : nullptr;
    });
    evalResizeWith(n, spec, *in[0], out[0]);
}
}  // namespace

void registerResizeOps(std::vector<OpDef>& t) {
    t.push_back(withFp16({"Resize", 10, 1000, inferResize, evalResize, lowerResize}));
    t.push_back(withFp16({"Upsample", 7, 9, inferResize, evalResize, lowerResize}));
}

}  // namespace vkinfer::ops
