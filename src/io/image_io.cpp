// PNG through libpng, JPEG through libjpeg-turbo, and the pixel <-> tensor mapping.
//
// Both libraries report errors by calling a handler that must not return; it longjmps back
// to the setjmp in the decode/encode function. Every C++ object with a destructor lives in
// the caller's frame (the Decoder/Encoder structs), so the jump skips no destructor.
#include "vkinfer/image_io.h"

#include <cstdio>  // before jpeglib.h, which uses FILE without including it

#include <jerror.h>
#include <jpeglib.h>
#include <png.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "core/wording.h"
#include "core/half.h"
#include "io/whole_file.h"

namespace vkinfer {

namespace {

constexpr uint64_t kMaxPixels = uint64_t(1) << 30;

void checkPixelCount(const std::string& path, uint64_t width, uint64_t height) {
    if (width == 0 || height == 0) fail(ErrorCode::ParseError, "image '{}' is empty ({}x{})", path, width, height);
    if (width * height > kMaxPixels)
        fail(ErrorCode::Unsupported, "image '{}' is {}x{}: more than 2^30 pixels", path, width, height);
}

void checkImage(const Image& image, const char* what) {
    if (image.channels != 1 && image.channels != 3 && image.channels != 4)
        fail(ErrorCode::InvalidArgument, "{}: an image has 1, 3 or 4 channels, not {}", what, image.channels);
    checkPixelCount(what, image.width, image.height);
    if (image.pixels.size() != uint64_t(image.width) * image.height * image.channels)
        fail(ErrorCode::InvalidArgument, "{}: {}x{}x{} image with {} bytes of pixels", what, image.width, image.height,
             image.channels, image.pixels.size());
}

// ---- PNG ----------------------------------------------------------------------------------

struct PngDecoder {
    const std::string* path = nullptr;
    const std::string* bytes = nullptr;
    size_t offset = 0;
    bool truncated = false;
    bool badSize = false;  // a valid file of an image size vkinfer refuses (image.width, height)
    char message[256] = {};
    Image image;
    std::vector<png_bytep> rows;
};

void pngError(png_structp png, png_const_charp message) {
    auto* d = static_cast<PngDecoder*>(png_get_error_ptr(png));
    std::snprintf(d->message, sizeof d->message, "%s", message);
    png_longjmp(png, 1);
}
void pngWarning(png_structp, png_const_charp) {}  // e.g. "iCCP: known incorrect sRGB profile"

void pngRead(png_structp png, png_bytep out, size_t length) {
    auto* d = static_cast<PngDecoder*>(png_get_io_ptr(png));
    if (d->bytes->size() - d->offset < length) {
        d->truncated = true;
        png_error(png, "unexpected end of file");
    }
    std::memcpy(out, d->bytes->data() + d->offset, length);
    d->offset += length;
}

// Returns false with d.message set when libpng failed.
bool decodePng(PngDecoder& d) {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &d, pngError, pngWarning);
    if (!png) fail(ErrorCode::OutOfMemory, "image '{}': libpng could not allocate its state", *d.path);
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_read_struct(&png, nullptr, nullptr);
        fail(ErrorCode::OutOfMemory, "image '{}': libpng could not allocate its state", *d.path);
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        return false;
    }
    png_set_read_fn(png, &d, pngRead);
    png_read_info(png, info);
    const png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    if (width == 0 || height == 0 || uint64_t(width) * height > kMaxPixels) {
        d.badSize = true;
        d.image.width = width;
        d.image.height = height;
        png_destroy_read_struct(&png, &info, nullptr);
        return false;
    }
    const int colorType = png_get_color_type(png, info);
    // Everything becomes 8-bit gray, RGB or RGBA: palettes expand (to RGBA if they have
    // transparency), low bit depths widen, 16 bits scale with rounding, gray+alpha to RGBA.
    if (colorType == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (colorType == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (png_get_bit_depth(png, info) == 16) png_set_scale_16(png);
    if (colorType == PNG_COLOR_TYPE_GRAY_ALPHA ||
        (colorType == PNG_COLOR_TYPE_GRAY && png_get_valid(png, info, PNG_INFO_tRNS)))
        png_set_gray_to_rgb(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    const png_byte channels = png_get_channels(png, info);
    if (channels != 1 && channels != 3 && channels != 4) {
        std::snprintf(d.message, sizeof d.message, "unexpected %d channels after conversion", channels);
        png_destroy_read_struct(&png, &info, nullptr);
        return false;
    }
    d.image.width = width;
    d.image.height = height;
    d.image.channels = channels;
    d.image.pixels.resize(size_t(width) * height * channels);
    d.rows.resize(height);
    for (png_uint_32 y = 0; y < height; ++y) d.rows[y] = d.image.pixels.data() + size_t(y) * width * channels;
    png_read_image(png, d.rows.data());
    png_read_end(png, nullptr);
    png_destroy_read_struct(&png, &info, nullptr);
    return true;
}

Image loadPng(const std::string& path, const std::string& bytes) {
    PngDecoder d;
    d.path = &path;
    d.bytes = &bytes;
    if (!decodePng(d)) {
        if (d.truncated) fail(ErrorCode::ParseError, "image '{}': truncated PNG (the file ends early)", path);
        if (d.badSize) checkPixelCount(path, d.image.width, d.image.height);  // a size, not corruption
        fail(ErrorCode::ParseError, "image '{}': corrupt PNG (libpng: {})", path, d.message);
    }
    return std::move(d.image);
}

struct PngEncoder {
    char message[256] = {};
    std::vector<png_bytep> rows;
};

void pngWriteError(png_structp png, png_const_charp message) {
    auto* e = static_cast<PngEncoder*>(png_get_error_ptr(png));
    std::snprintf(e->message, sizeof e->message, "%s", message);
    png_longjmp(png, 1);
}

bool encodePng(PngEncoder& e, std::FILE* file, const Image& image) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &e, pngWriteError, pngWarning);
    if (!png) return false;
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, nullptr);
        return false;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return false;
    }
    png_init_io(png, file);
    const int colorType = image.channels == 1   ? PNG_COLOR_TYPE_GRAY
                          : image.channels == 3 ? PNG_COLOR_TYPE_RGB
                                                : PNG_COLOR_TYPE_RGB_ALPHA;
    png_set_IHDR(png, info, image.width, image.height, 8, colorType, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_write_image(png, e.rows.data());
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return true;
}

// ---- JPEG ---------------------------------------------------------------------------------

struct JpegError {
    jpeg_error_mgr mgr;  // first: libjpeg's err pointer is cast back to this struct
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX] = {};
    bool truncated = false;
};

[[noreturn]] void jpegErrorExit(j_common_ptr cinfo) {
    auto* e = reinterpret_cast<JpegError*>(cinfo->err);
    (*cinfo->err->format_message)(cinfo, e->message);
    std::longjmp(e->jump, 1);
}

// libjpeg reports damaged data as warnings and goes on with gray blocks: a truncated or
// corrupt file would load as a partly gray image. Those warnings fail the load instead.
void jpegEmitMessage(j_common_ptr cinfo, int level) {
    if (level >= 0) return;  // trace messages
    const int code = cinfo->err->msg_code;
    if (code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER || code == JWRN_HUFF_BAD_CODE ||
        code == JWRN_MUST_RESYNC) {
        auto* e = reinterpret_cast<JpegError*>(cinfo->err);
        e->truncated = code == JWRN_JPEG_EOF;
        (*cinfo->err->format_message)(cinfo, e->message);
        std::longjmp(e->jump, 1);
    }
}

struct JpegDecoder {
    jpeg_decompress_struct cinfo{};
    JpegError error;
    Image image;
    std::vector<uint8_t> cmykRow;
    bool adobe = false;
    bool badSize = false;  // as PngDecoder's
    uint64_t width = 0, height = 0;
};

bool decodeJpeg(JpegDecoder& d, const std::string& bytes) {
    d.cinfo.err = jpeg_std_error(&d.error.mgr);
    d.error.mgr.error_exit = jpegErrorExit;
    d.error.mgr.emit_message = jpegEmitMessage;
    if (setjmp(d.error.jump)) {
        jpeg_destroy_decompress(&d.cinfo);
        return false;
    }
    jpeg_create_decompress(&d.cinfo);
    jpeg_mem_src(&d.cinfo, reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<unsigned long>(bytes.size()));
    jpeg_read_header(&d.cinfo, TRUE);
    const J_COLOR_SPACE in = d.cinfo.jpeg_color_space;
    const bool cmyk = in == JCS_CMYK || in == JCS_YCCK;
    d.cinfo.out_color_space = in == JCS_GRAYSCALE ? JCS_GRAYSCALE : cmyk ? JCS_CMYK : JCS_RGB;
    d.adobe = d.cinfo.saw_Adobe_marker;
    jpeg_start_decompress(&d.cinfo);
    const uint64_t width = d.cinfo.output_width, height = d.cinfo.output_height;
    if (width == 0 || height == 0 || width * height > kMaxPixels) {
        d.badSize = true;
        d.width = width;
        d.height = height;
        jpeg_destroy_decompress(&d.cinfo);
        return false;
    }
    const uint32_t outChannels = cmyk ? 3 : static_cast<uint32_t>(d.cinfo.output_components);
    d.image.width = static_cast<uint32_t>(width);
    d.image.height = static_cast<uint32_t>(height);
    d.image.channels = outChannels;
    d.image.pixels.resize(width * height * outChannels);
    if (cmyk) d.cmykRow.resize(width * 4);
    while (d.cinfo.output_scanline < d.cinfo.output_height) {
        uint8_t* dst = d.image.pixels.data() + uint64_t(d.cinfo.output_scanline) * width * outChannels;
        JSAMPROW row = cmyk ? d.cmykRow.data() : dst;
        jpeg_read_scanlines(&d.cinfo, &row, 1);
        if (!cmyk) continue;
        for (uint64_t x = 0; x < width; ++x) {
            // Adobe writes CMYK inverted (as most CMYK JPEGs are); R = (1 - C)(1 - K) either way.
            int c = d.cmykRow[4 * x], m = d.cmykRow[4 * x + 1], y = d.cmykRow[4 * x + 2], k = d.cmykRow[4 * x + 3];
            if (!d.adobe) c = 255 - c, m = 255 - m, y = 255 - y, k = 255 - k;
            dst[3 * x] = static_cast<uint8_t>((c * k + 127) / 255);
            dst[3 * x + 1] = static_cast<uint8_t>((m * k + 127) / 255);
            dst[3 * x + 2] = static_cast<uint8_t>((y * k + 127) / 255);
        }
    }
    jpeg_finish_decompress(&d.cinfo);
    jpeg_destroy_decompress(&d.cinfo);
    return true;
}

Image loadJpeg(const std::string& path, const std::string& bytes) {
    JpegDecoder d;
    if (!decodeJpeg(d, bytes)) {
        if (d.error.truncated) fail(ErrorCode::ParseError, "image '{}': truncated JPEG (the file ends early)", path);
        if (d.badSize) checkPixelCount(path, d.width, d.height);
        fail(ErrorCode::ParseError, "image '{}': corrupt JPEG (libjpeg: {})", path, d.error.message);
    }
    return std::move(d.image);
}

struct JpegEncoder {
    jpeg_compress_struct cinfo{};
    JpegError error;
    std::vector<uint8_t> rgbRow;
};

bool encodeJpeg(JpegEncoder& e, std::FILE* file, const Image& image, int quality) {
    e.cinfo.err = jpeg_std_error(&e.error.mgr);
    e.error.mgr.error_exit = jpegErrorExit;
    if (setjmp(e.error.jump)) {
        jpeg_destroy_compress(&e.cinfo);
        return false;
    }
    jpeg_create_compress(&e.cinfo);
    jpeg_stdio_dest(&e.cinfo, file);
    e.cinfo.image_width = image.width;
    e.cinfo.image_height = image.height;
    e.cinfo.input_components = image.channels == 1 ? 1 : 3;
    e.cinfo.in_color_space = image.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&e.cinfo);
    jpeg_set_quality(&e.cinfo, quality, TRUE);
    jpeg_start_compress(&e.cinfo, TRUE);
    const uint64_t stride = uint64_t(image.width) * image.channels;
    if (image.channels == 4) e.rgbRow.resize(uint64_t(image.width) * 3);
    while (e.cinfo.next_scanline < e.cinfo.image_height) {
        const uint8_t* src = image.pixels.data() + e.cinfo.next_scanline * stride;
        JSAMPROW row = const_cast<JSAMPROW>(src);
        if (image.channels == 4) {  // JPEG has no alpha: dropped
            for (uint64_t x = 0; x < image.width; ++x) std::memcpy(&e.rgbRow[3 * x], src + 4 * x, 3);
            row = e.rgbRow.data();
        }
        jpeg_write_scanlines(&e.cinfo, &row, 1);
    }
    jpeg_finish_compress(&e.cinfo);
    jpeg_destroy_compress(&e.cinfo);
    return true;
}

std::string lowerExtension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

float channelValue(const Image& image, size_t pixel, uint32_t c) {
    const uint8_t* p = image.pixels.data() + pixel * image.channels;
    return static_cast<float>(p[c]) / 255.0f;
}

}  // namespace

Result<Image> loadImage(const std::string& path) {
    return guardResult<Image>([&] {
        std::string bytes = io::readWholeFile(path, "image");
        static const unsigned char pngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
        if (bytes.size() >= 8 && std::memcmp(bytes.data(), pngSignature, 8) == 0) return loadPng(path, bytes);
        if (bytes.size() >= 3 && static_cast<unsigned char>(bytes[0]) == 0xff &&
            static_cast<unsigned char>(bytes[1]) == 0xd8 && static_cast<unsigned char>(bytes[2]) == 0xff)
            return loadJpeg(path, bytes);
        if (bytes.empty()) fail(ErrorCode::ParseError, "image '{}' is an empty file", path);
        fail(ErrorCode::ParseError, "image '{}' is neither PNG nor JPEG (by its first bytes; other formats are not read)",
             path);
    });
}

Status saveImage(const std::string& path, const Image& image, int jpegQuality) {
    return guardStatus([&] {
        const std::string ext = lowerExtension(path);
        const bool png = ext == ".png", jpeg = ext == ".jpg" || ext == ".jpeg";
        if (!png && !jpeg)
            fail(ErrorCode::InvalidArgument, "cannot write image '{}': unknown format '{}' (write .png, .jpg or .jpeg)",
                 path, ext);
        if (jpeg && (jpegQuality < 1 || jpegQuality > 100))
            fail(ErrorCode::InvalidArgument, "cannot write image '{}': JPEG quality {} is not in 1..100", path, jpegQuality);
        checkImage(image, path.c_str());
        std::FILE* file = std::fopen(path.c_str(), "wb");
        if (!file)
            fail(errno == ENOENT ? ErrorCode::NotFound : ErrorCode::InvalidArgument, "cannot write image '{}': {}", path,
                 std::strerror(errno));
        bool ok = false;
        std::string why;
        if (png) {
            PngEncoder e;
            e.rows.resize(image.height);
            for (uint32_t y = 0; y < image.height; ++y)
                e.rows[y] = const_cast<png_bytep>(image.pixels.data() + size_t(y) * image.width * image.channels);
            ok = encodePng(e, file, image);
            why = e.message;
        } else {
            JpegEncoder e;
            ok = encodeJpeg(e, file, image, jpegQuality);
            why = e.error.message;
        }
        const bool flushed = std::fflush(file) == 0 && !std::ferror(file);
        const int closeError = std::fclose(file) == 0 ? 0 : errno;
        if (!ok || !flushed || closeError) {
            std::error_code ec;
            std::filesystem::remove(path, ec);  // no half-written image left behind
            fail(ErrorCode::InvalidArgument, "cannot write image '{}': {}", path,
                 !ok ? (why.empty() ? std::string("the encoder failed") : why)
                     : std::string(std::strerror(closeError ? closeError : EIO)));
        }
    });
}

Result<Tensor> imageToTensor(const Image& image, uint32_t channels, const PixelMapping& mapping) {
    return guardResult<Tensor>([&] {
        checkImage(image, "imageToTensor");
        if (channels != 1 && channels != 3 && channels != 4)
            fail(ErrorCode::InvalidArgument, "imageToTensor: a tensor of {} channels (1, 3 or 4 can be made)", channels);
        for (uint32_t c = 0; c < channels; ++c)
            if (!std::isfinite(mapping.mean[c]) || !std::isfinite(mapping.scale[c]))
                fail(ErrorCode::InvalidArgument, "imageToTensor: mean and scale must be finite (channel {})", c);
        const size_t plane = size_t(image.width) * image.height;
        Tensor t(DataType::Float32, {1, channels, image.height, image.width});
        float* out = t.as<float>();
        const uint32_t have = image.channels;
        for (size_t i = 0; i < plane; ++i) {
            float rgba[4];
            if (have == 1) {
                rgba[0] = rgba[1] = rgba[2] = channelValue(image, i, 0);
                rgba[3] = 1.0f;
            } else {
                for (uint32_t c = 0; c < 3; ++c) rgba[c] = channelValue(image, i, c);
                rgba[3] = have == 4 ? channelValue(image, i, 3) : 1.0f;
            }
            if (channels == 1) {
                const float luma = have == 1 ? rgba[0] : 0.299f * rgba[0] + 0.587f * rgba[1] + 0.114f * rgba[2];
                out[i] = (luma - mapping.mean[0]) * mapping.scale[0];
                continue;
            }
            for (uint32_t c = 0; c < channels; ++c) out[c * plane + i] = (rgba[c] - mapping.mean[c]) * mapping.scale[c];
        }
        return t;
    });
}

Result<Image> tensorToImage(const Tensor& tensor, const PixelMapping& mapping) {
    return guardResult<Image>([&] {
        const auto& s = tensor.shape();
        const bool rank4 = s.size() == 4 && s[0] == 1;
        if (!rank4 && s.size() != 3)
            fail(ErrorCode::InvalidArgument, "an image is a [1, C, H, W] or [C, H, W] tensor; this one is {}",
                 shapeToString(s));
        const int64_t c = s[s.size() - 3], h = s[s.size() - 2], w = s[s.size() - 1];
        if (c != 1 && c != 3 && c != 4)
            fail(ErrorCode::InvalidArgument, "a tensor of shape {} has {} channels; an image has 1, 3 or 4",
                 shapeToString(s), c);
        if (tensor.dtype() != DataType::Float32 && tensor.dtype() != DataType::Float16)
            fail(ErrorCode::InvalidArgument, "{} tensor (images are made from float32 or float16 ones)",
                 withArticle(dataTypeName(tensor.dtype())));
        if (h <= 0 || w <= 0 || uint64_t(h) * uint64_t(w) > kMaxPixels)
            fail(ErrorCode::InvalidArgument, "{}x{} pixels (an image has 1 to 2^30)", w, h);
        for (int64_t k = 0; k < c; ++k)
            if (!std::isfinite(mapping.mean[k]) || !std::isfinite(mapping.scale[k]) || mapping.scale[k] == 0)
                fail(ErrorCode::InvalidArgument, "the mapping's mean must be finite and scale finite and non-zero "
                     "(channel {})", k);
        Image image;
        image.width = static_cast<uint32_t>(w);
        image.height = static_cast<uint32_t>(h);
        image.channels = static_cast<uint32_t>(c);
        const size_t plane = size_t(w) * size_t(h);
        image.pixels.resize(plane * image.channels);
        const bool half = tensor.dtype() == DataType::Float16;
        for (int64_t k = 0; k < c; ++k)
            for (size_t i = 0; i < plane; ++i) {
                const size_t at = size_t(k) * plane + i;
                const float v = half ? halfToFloat(tensor.as<uint16_t>()[at]) : tensor.as<float>()[at];
                float p = 255.0f * (v / mapping.scale[k] + mapping.mean[k]);
                p = std::isnan(p) ? 0.0f : std::clamp(p, 0.0f, 255.0f);
                image.pixels[i * image.channels + size_t(k)] = static_cast<uint8_t>(std::lround(p));
            }
        return image;
    });
}

}  // namespace vkinfer
