// Images and tensor files: vkinfer.load_image, save_image, image_to_tensor, tensor_to_image,
// load_tensor, save_tensor, and the native half of vkinfer.upscale (the CLI's upscale).
#include <fmt/format.h>

#include <image_model.h>
#include <upscale_image.h>

#include <cmath>

#include "binding.h"

namespace vkinfer::python {

namespace {

// H x W x C uint8, owning the pixels.
py::array imageArray(Image&& image) {
    auto holder = std::make_unique<Image>(std::move(image));
    std::vector<py::ssize_t> shape{holder->height, holder->width, holder->channels};
    void* data = holder->pixels.data();
    py::capsule base(holder.get(), [](void* p) { delete static_cast<Image*>(p); });
    holder.release();
    return py::array(py::dtype("uint8"), std::move(shape), std::vector<py::ssize_t>{}, data, base);
}

// An H x W (gray) or H x W x C (C 1, 3 or 4) uint8 array (any layout) as an Image (copied).
Image toImage(py::handle obj) {
    // The pixels are copied into the Image anyway: a strided array (one channel of an RGB
    // image) is as good as any.
    py::object contiguous = py::module_::import("numpy").attr("ascontiguousarray")(obj);
    Tensor t = borrowTensor(contiguous, "image");
    const auto& s = t.shape();
    if (t.dtype() != DataType::UInt8)
        throw py::type_error(fmt::format("image: dtype {} is not uint8 (8-bit pixels, H x W x C)", dataTypeName(t.dtype())));
    if (s.size() != 2 && s.size() != 3)
        throw py::value_error(fmt::format("image: shape {} is not H x W or H x W x C", shapeToString(s)));
    const int64_t c = s.size() == 3 ? s[2] : 1;
    if (c != 1 && c != 3 && c != 4)
        throw py::value_error(fmt::format("image: {} channels; an image has 1 (gray), 3 (RGB) or 4 (RGBA)", c));
    if (s[0] <= 0 || s[1] <= 0 || s[0] * s[1] > (int64_t(1) << 30))
        throw py::value_error(fmt::format("image: {} x {} pixels; an image has 1 to 2^30", s[0], s[1]));
    Image image;
    image.height = static_cast<uint32_t>(s[0]);
    image.width = static_cast<uint32_t>(s[1]);
    image.channels = static_cast<uint32_t>(c);
    image.pixels.assign(t.as<uint8_t>(), t.as<uint8_t>() + t.byteSize());
    return image;
}

// mean/scale given as a number or a sequence (one value, or one per channel).
std::string valuesText(py::handle values) {
    std::string text;
    auto add = [&](py::handle v) {
        text += (text.empty() ? "" : ",") + fmt::format("{:.9g}", v.cast<double>());
    };
    if (py::isinstance<py::float_>(values) || py::isinstance<py::int_>(values)) add(values);
    else for (py::handle v : values) add(v);
    return text;
}

// The CLI's --mean and --scale parsing and checks, for the same mapping.
cli::PixelArgs pixelArgs(py::handle mean, py::handle scale) {
    cli::PixelOptions o;
    o.meanGiven = !mean.is_none();
    o.scaleGiven = !scale.is_none();
    if (o.meanGiven) o.mean = valuesText(mean);
    if (o.scaleGiven) o.scale = valuesText(scale);
    return cli::parsePixelMapping(o);
}

py::array upscaleNative(py::handle imageObj, py::handle modelPath, const Context& context, const std::string& precision,
                        const std::string& sync, int64_t tile, int64_t overlap, py::handle mean, py::handle scale) {
    const Image image = toImage(imageObj);
    const std::string path = pathOf(modelPath);
    SessionOptions o;
    o.precision = toPrecision(precision);
    o.sync = toSync(sync);
    cli::UpscaleSettings settings;
    if (tile < -1 || tile > (1 << 20)) throw py::value_error(fmt::format("tile {}: expected 0 to 2^20, or None", tile));
    if (overlap < -1 || overlap > (1 << 16)) throw py::value_error(fmt::format("overlap {}: expected 0 to 65536, or None", overlap));
    settings.tile = static_cast<int>(tile);
    settings.overlap = static_cast<int>(overlap);
    settings.pixels = pixelArgs(mean, scale);
    CollectWarnings warnings;
    Image out = [&] {
        py::gil_scoped_release release;
        Model model = unwrap(Model::load(path));
        return cli::upscaleImage(image, model, path, context, o, settings).image;
    }();
    warnings.issue();
    return imageArray(std::move(out));
}

}  // namespace

void bindImages(py::module_& m) {
    m.def("load_image", [](py::handle path) {
        const std::string p = pathOf(path);
        py::gil_scoped_release release;
        Image image = unwrap(loadImage(p));
        py::gil_scoped_acquire gil;
        return imageArray(std::move(image));
    }, py::arg("path"), R"(A PNG or JPEG file (by its signature) as an H x W x C uint8 array, C 1 (gray), 3 (RGB) or 4
(RGBA: gray+alpha and transparent palettes too); 16-bit PNG samples are rounded to 8 bits.)");
    m.def("save_image", [](py::handle path, py::handle image, int quality) {
        const std::string p = pathOf(path);
        const Image img = toImage(image);
        py::gil_scoped_release release;
        check(saveImage(p, img, quality));
    }, py::arg("path"), py::arg("image"), py::arg("quality") = 95,
       "Writes an H x W or H x W x C uint8 array as PNG or JPEG (quality 1-100; alpha dropped) by the extension.");
    m.def("image_to_tensor", [](py::handle image, int channels, py::handle mean, py::handle scale) {
        const Image img = toImage(image);
        if (channels != 1 && channels != 3 && channels != 4)
            throw py::value_error(fmt::format("channels {}: expected 1 (luma), 3 (RGB) or 4 (RGBA)", channels));
        const cli::PixelArgs pixels = pixelArgs(mean, scale);
        cli::checkPixelChannels(pixels, static_cast<uint32_t>(channels), "the tensor");
        return toArray(unwrap(imageToTensor(img, static_cast<uint32_t>(channels), pixels.mapping)));
    }, py::arg("image"), py::arg("channels") = 3, py::kw_only(), py::arg("mean") = py::none(), py::arg("scale") = py::none(),
       R"(A [1, channels, H, W] float32 tensor from an H x W x C uint8 image: value = (pixel / 255 - mean[c]) * scale[c]
(mean and scale: one value or one per channel; default 0 and 1). Gray is expanded to RGB, alpha dropped
unless asked for, 1 channel is BT.601 luma.)");
    m.def("tensor_to_image", [](py::handle tensor, py::handle mean, py::handle scale) {
        Tensor t = borrowTensor(tensor, "tensor");
        const cli::PixelArgs pixels = pixelArgs(mean, scale);
        return imageArray(unwrap(tensorToImage(t, pixels.mapping)));
    }, py::arg("tensor"), py::kw_only(), py::arg("mean") = py::none(), py::arg("scale") = py::none(),
       R"(An H x W x C uint8 image from a [1, C, H, W] or [C, H, W] float32/float16 tensor (C 1, 3 or 4): pixel =
255 * (value / scale[c] + mean[c]), clamped to [0, 255] and rounded.)");
    m.def("load_tensor", [](py::handle path) {
        const std::string p = pathOf(path);
        py::gil_scoped_release release;
        Tensor t = unwrap(loadTensorFile(p));
        py::gil_scoped_acquire gil;
        return toArray(std::move(t));
    }, py::arg("path"), "A tensor file as an array: .npy, or an ONNX TensorProto .pb (as the backend tests' data sets).");
    m.def("save_tensor", [](py::handle path, py::handle array) {
        const std::string p = pathOf(path);
        Tensor t = borrowTensor(array, "array");
        const bool pb = p.size() >= 3 && p.compare(p.size() - 3, 3, ".pb") == 0;
        py::gil_scoped_release release;
        check(pb ? saveTensorProto(p, t) : saveNpy(p, t));
    }, py::arg("path"), py::arg("array"), "Writes an array as .npy, or as an ONNX TensorProto when the path ends in .pb.");
    m.def("_upscale", &upscaleNative, py::arg("image"), py::arg("model"), py::arg("context"), py::arg("precision"),
          py::arg("sync"), py::arg("tile"), py::arg("overlap"), py::arg("mean"), py::arg("scale"));
}

}  // namespace vkinfer::python
