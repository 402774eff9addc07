// PNG and JPEG through vkinfer's image I/O (libpng, libjpeg-turbo), and the pixel <-> tensor
// mapping. PNGs of the kinds vkinfer never writes (16-bit, palette, gray+alpha, low bit depths)
// are made here byte by byte, with stored (uncompressed) deflate blocks, so the test needs no
// image library of its own.
#include <gtest/gtest.h>
#include <vkinfer/vkinfer.h>

#include <cmath>
#include <cstring>

#include "core/half.h"
#include "io/io_test_util.h"

namespace vkinfer::testing {
namespace {

uint32_t crc32(const std::string& bytes) {
    uint32_t c = 0xffffffffu;
    for (unsigned char b : bytes) {
        c ^= b;
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return ~c;
}

void be32(std::string& s, uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) s += static_cast<char>((v >> shift) & 0xff);
}

std::string chunk(const std::string& type, const std::string& data) {
    std::string s;
    be32(s, static_cast<uint32_t>(data.size()));
    s += type + data;
    be32(s, crc32(type + data));
    return s;
}

// A zlib stream of stored deflate blocks (no compression).
std::string zlibStored(const std::string& raw) {
    std::string z = "\x78\x01";
    size_t at = 0;
    do {
        const size_t n = std::min<size_t>(raw.size() - at, 65535);
        z += static_cast<char>(at + n == raw.size() ? 1 : 0);
        z += static_cast<char>(n & 0xff);
        z += static_cast<char>(n >> 8);
        z += static_cast<char>(~n & 0xff);
        z += static_cast<char>((~n >> 8) & 0xff);
        z += raw.substr(at, n);
        at += n;
    } while (at < raw.size());
    uint32_t a = 1, b = 0;
    for (unsigned char c : raw) {
        a = (a + c) % 65521;
        b = (b + a) % 65521;
    }
    be32(z, (b << 16) | a);
    return z;
}

// A PNG of `rows` (each row's packed samples, without the filter byte).
std::string pngFile(uint32_t w, uint32_t h, int bitDepth, int colorType, const std::vector<std::string>& rows,
                    const std::string& palette = "", const std::string& trns = "") {
    std::string ihdr;
    be32(ihdr, w);
    be32(ihdr, h);
    ihdr += static_cast<char>(bitDepth);
    ihdr += static_cast<char>(colorType);
    ihdr += std::string(3, '\0');
    std::string raw;
    for (const auto& r : rows) raw += '\0' + r;
    std::string png = "\x89PNG\r\n\x1a\n";
    png += chunk("IHDR", ihdr);
    if (!palette.empty()) png += chunk("PLTE", palette);
    if (!trns.empty()) png += chunk("tRNS", trns);
    png += chunk("IDAT", zlibStored(raw));
    png += chunk("IEND", "");
    return png;
}

Image pattern(uint32_t w, uint32_t h, uint32_t channels) {
    Image im{w, h, channels, {}};
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x)
            for (uint32_t c = 0; c < channels; ++c) im.pixels.push_back(static_cast<uint8_t>((x * 37 + y * 11 + c * 80) % 256));
    return im;
}

// A smooth image, for JPEG (lossy) round trips.
Image smooth(uint32_t w, uint32_t h, uint32_t channels) {
    Image im{w, h, channels, {}};
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x)
            for (uint32_t c = 0; c < channels; ++c)
                im.pixels.push_back(static_cast<uint8_t>(40 + (x * 150) / w + (y * 50) / h + c * 10));
    return im;
}

int maxDifference(const Image& a, const Image& b) {
    int d = 0;
    for (size_t i = 0; i < a.pixels.size(); ++i) d = std::max(d, std::abs(int(a.pixels[i]) - int(b.pixels[i])));
    return d;
}

class ImageIo : public ::testing::Test {
protected:
    std::string file(const std::string& name) const { return dir_.file(name); }
    TempDir dir_;
};

TEST_F(ImageIo, PngRoundTripsGrayRgbRgba) {
    for (uint32_t channels : {1u, 3u, 4u}) {
        SCOPED_TRACE(channels);
        const Image im = pattern(13, 7, channels);
        const std::string path = file("p" + std::to_string(channels) + ".png");
        ASSERT_TRUE(saveImage(path, im).ok());
        auto back = loadImage(path);
        ASSERT_TRUE(back.ok()) << back.status().toString();
        EXPECT_EQ(back->width, 13u);
        EXPECT_EQ(back->height, 7u);
        EXPECT_EQ(back->channels, channels);
        EXPECT_EQ(back->pixels, im.pixels);
    }
}

TEST_F(ImageIo, Png16BitScalesWithRounding) {
    // 16-bit gray and RGB: v16 -> round(v16 * 255 / 65535).
    const uint16_t samples[4] = {0, 257 * 100 + 128, 65535, 257 * 7};
    std::string grayRow, rgbRow;
    for (uint16_t v : samples) {
        grayRow += static_cast<char>(v >> 8);
        grayRow += static_cast<char>(v & 0xff);
        for (int c = 0; c < 3; ++c) {
            rgbRow += static_cast<char>(v >> 8);
            rgbRow += static_cast<char>(v & 0xff);
        }
    }
    writeFile(file("g16.png"), pngFile(4, 1, 16, 0, {grayRow}));
    writeFile(file("rgb16.png"), pngFile(4, 1, 16, 2, {rgbRow}));
    auto g = loadImage(file("g16.png"));
    ASSERT_TRUE(g.ok()) << g.status().toString();
    EXPECT_EQ(g->channels, 1u);
    auto rgb = loadImage(file("rgb16.png"));
    ASSERT_TRUE(rgb.ok()) << rgb.status().toString();
    EXPECT_EQ(rgb->channels, 3u);
    for (int i = 0; i < 4; ++i) {
        const auto want = static_cast<uint8_t>(std::lround(samples[i] * 255.0 / 65535.0));
        EXPECT_EQ(g->pixels[i], want) << i;
        EXPECT_EQ(rgb->pixels[3 * i + 2], want) << i;
    }
}

TEST_F(ImageIo, PngPaletteGrayAlphaAndLowBitDepths) {
    // Palette without transparency -> RGB; with tRNS -> RGBA.
    const std::string palette = std::string("\x10\x20\x30", 3) + std::string("\xf0\xe0\xd0", 3);
    writeFile(file("pal.png"), pngFile(2, 1, 8, 3, {std::string("\x00\x01", 2)}, palette));
    auto pal = loadImage(file("pal.png"));
    ASSERT_TRUE(pal.ok()) << pal.status().toString();
    EXPECT_EQ(pal->channels, 3u);
    EXPECT_EQ(pal->pixels, (std::vector<uint8_t>{0x10, 0x20, 0x30, 0xf0, 0xe0, 0xd0}));
    writeFile(file("palt.png"), pngFile(2, 1, 8, 3, {std::string("\x00\x01", 2)}, palette, std::string("\x40", 1)));
    auto palt = loadImage(file("palt.png"));
    ASSERT_TRUE(palt.ok()) << palt.status().toString();
    EXPECT_EQ(palt->channels, 4u);
    EXPECT_EQ(palt->pixels, (std::vector<uint8_t>{0x10, 0x20, 0x30, 0x40, 0xf0, 0xe0, 0xd0, 0xff}));

    // Gray + alpha -> RGBA.
    writeFile(file("ga.png"), pngFile(2, 1, 8, 4, {std::string("\x50\x60\x70\x80", 4)}));
    auto ga = loadImage(file("ga.png"));
    ASSERT_TRUE(ga.ok()) << ga.status().toString();
    EXPECT_EQ(ga->channels, 4u);
    EXPECT_EQ(ga->pixels, (std::vector<uint8_t>{0x50, 0x50, 0x50, 0x60, 0x70, 0x70, 0x70, 0x80}));

    // 1-bit gray widens to 0 / 255; a palette of 4 bits unpacks.
    writeFile(file("g1.png"), pngFile(8, 1, 1, 0, {std::string("\xa5", 1)}));
    auto g1 = loadImage(file("g1.png"));
    ASSERT_TRUE(g1.ok()) << g1.status().toString();
    EXPECT_EQ(g1->pixels, (std::vector<uint8_t>{255, 0, 255, 0, 0, 255, 0, 255}));
    writeFile(file("pal4.png"), pngFile(3, 1, 4, 3, {std::string("\x10\x00", 2)}, palette));
    auto pal4 = loadImage(file("pal4.png"));
    ASSERT_TRUE(pal4.ok()) << pal4.status().toString();
    EXPECT_EQ(pal4->pixels, (std::vector<uint8_t>{0xf0, 0xe0, 0xd0, 0x10, 0x20, 0x30, 0x10, 0x20, 0x30}));
}

TEST_F(ImageIo, JpegRoundTripsGrayAndRgbAndDropsAlpha) {
    for (uint32_t channels : {1u, 3u, 4u}) {
        SCOPED_TRACE(channels);
        const Image im = smooth(40, 30, channels);
        const std::string path = file("j" + std::to_string(channels) + ".jpg");
        ASSERT_TRUE(saveImage(path, im, 95).ok());
        auto back = loadImage(path);
        ASSERT_TRUE(back.ok()) << back.status().toString();
        EXPECT_EQ(back->width, 40u);
        EXPECT_EQ(back->height, 30u);
        EXPECT_EQ(back->channels, channels == 1 ? 1u : 3u);
        Image expected = im;
        if (channels == 4) {  // what JPEG keeps: RGB
            expected.channels = 3;
            expected.pixels.clear();
            for (size_t i = 0; i < im.pixels.size(); i += 4) expected.pixels.insert(expected.pixels.end(), &im.pixels[i], &im.pixels[i] + 3);
        }
        EXPECT_LE(maxDifference(*back, expected), 8);  // lossy, but a smooth image at quality 95 stays close
    }
    // The file's signature decides, not its name: a JPEG named .png loads.
    ASSERT_TRUE(saveImage(file("x.jpeg"), smooth(8, 8, 3)).ok());
    writeFile(file("named.png"), readFile(file("x.jpeg")));
    EXPECT_TRUE(loadImage(file("named.png")).ok());
}

TEST_F(ImageIo, CorruptTruncatedAndMissingFilesNameTheFile) {
    ASSERT_TRUE(saveImage(file("ok.png"), pattern(32, 32, 3)).ok());
    ASSERT_TRUE(saveImage(file("ok.jpg"), smooth(64, 64, 3)).ok());
    const std::string png = readFile(file("ok.png")), jpg = readFile(file("ok.jpg"));

    writeFile(file("cut.png"), png.substr(0, png.size() / 2));
    auto cut = loadImage(file("cut.png"));
    ASSERT_FALSE(cut.ok());
    EXPECT_EQ(cut.status().code(), ErrorCode::ParseError);
    EXPECT_TRUE(contains(cut.status().message(), file("cut.png")));
    EXPECT_TRUE(contains(cut.status().message(), "truncated"));

    writeFile(file("cut.jpg"), jpg.substr(0, jpg.size() / 2));
    auto cutJ = loadImage(file("cut.jpg"));
    ASSERT_FALSE(cutJ.ok());
    EXPECT_TRUE(contains(cutJ.status().message(), file("cut.jpg")));
    EXPECT_TRUE(contains(cutJ.status().message(), "truncated"));

    std::string bad = png;
    for (size_t i = 40; i < 60; ++i) bad[i] = static_cast<char>(~bad[i]);  // inside IHDR/IDAT: CRC fails
    writeFile(file("bad.png"), bad);
    auto badR = loadImage(file("bad.png"));
    ASSERT_FALSE(badR.ok());
    EXPECT_TRUE(contains(badR.status().message(), file("bad.png")));
    EXPECT_TRUE(contains(badR.status().message(), "corrupt PNG"));

    std::string badJ = jpg.substr(0, 3) + std::string(200, '\x37');
    writeFile(file("bad.jpg"), badJ);
    auto badJR = loadImage(file("bad.jpg"));
    ASSERT_FALSE(badJR.ok());
    EXPECT_TRUE(contains(badJR.status().message(), file("bad.jpg")));

    writeFile(file("text.png"), "not an image at all");
    auto text = loadImage(file("text.png"));
    ASSERT_FALSE(text.ok());
    EXPECT_TRUE(contains(text.status().message(), "neither PNG nor JPEG"));
    writeFile(file("empty.png"), "");
    EXPECT_TRUE(contains(loadImage(file("empty.png")).status().message(), "empty"));

    auto missing = loadImage(file("nope.png"));
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.status().code(), ErrorCode::NotFound);
    EXPECT_TRUE(contains(missing.status().message(), file("nope.png")));
}

TEST_F(ImageIo, SaveFailuresNameTheFile) {
    const Image im = pattern(4, 4, 3);
    Status ext = saveImage(file("a.bmp"), im);
    EXPECT_FALSE(ext.ok());
    EXPECT_TRUE(contains(ext.message(), ".bmp"));
    Status folder = saveImage(file("no/such/folder/a.png"), im);
    EXPECT_FALSE(folder.ok());
    EXPECT_TRUE(contains(folder.message(), file("no/such/folder/a.png")));
    EXPECT_FALSE(saveImage(file("q.jpg"), im, 0).ok());
    Image wrong = im;
    wrong.pixels.pop_back();
    EXPECT_FALSE(saveImage(file("w.png"), wrong).ok());
    EXPECT_FALSE(std::filesystem::exists(file("w.png")));
}

TEST_F(ImageIo, ImageToTensorMapsAndConvertsChannels) {
    Image rgba{2, 1, 4, {255, 0, 51, 128, 0, 255, 102, 255}};
    PixelMapping m;
    m.mean = {0.5f, 0.25f, 0, 0};
    m.scale = {2, 4, 1, 1};
    auto t = imageToTensor(rgba, 3, m);
    ASSERT_TRUE(t.ok()) << t.status().toString();
    EXPECT_EQ(t->shape(), (std::vector<int64_t>{1, 3, 1, 2}));
    const float* v = t->as<float>();  // planar: R R G G B B
    EXPECT_FLOAT_EQ(v[0], (1.0f - 0.5f) * 2);
    EXPECT_FLOAT_EQ(v[1], (0.0f - 0.5f) * 2);
    EXPECT_FLOAT_EQ(v[2], (0.0f - 0.25f) * 4);
    EXPECT_FLOAT_EQ(v[3], (1.0f - 0.25f) * 4);
    EXPECT_FLOAT_EQ(v[4], 0.2f);
    EXPECT_FLOAT_EQ(v[5], 0.4f);

    auto luma = imageToTensor(rgba, 1);
    ASSERT_TRUE(luma.ok());
    EXPECT_NEAR(luma->as<float>()[0], 0.299f * 1 + 0.114f * 0.2f, 1e-6);
    Image gray{1, 1, 1, {51}};
    auto expanded = imageToTensor(gray, 4);
    ASSERT_TRUE(expanded.ok());
    EXPECT_EQ(std::vector<float>(expanded->as<float>(), expanded->as<float>() + 4),
              (std::vector<float>{0.2f, 0.2f, 0.2f, 1.0f}));
    EXPECT_FALSE(imageToTensor(gray, 2).ok());
}

TEST_F(ImageIo, TensorToImageClampsRoundsAndRoundTrips) {
    Tensor t = Tensor::fromVector<float>(DataType::Float32, {1, 1, 1, 5}, {-0.5f, 0.4f / 255, 1.6f / 255, 2.0f, NAN});
    auto im = tensorToImage(t);
    ASSERT_TRUE(im.ok()) << im.status().toString();
    EXPECT_EQ(im->channels, 1u);
    EXPECT_EQ(im->pixels, (std::vector<uint8_t>{0, 0, 2, 255, 0}));

    // image -> tensor -> image is the identity, through any mapping, float32 or float16 ([C, H, W]).
    PixelMapping m;
    m.mean = {0.485f, 0.456f, 0.406f, 0};
    m.scale = {1 / 0.229f, 1 / 0.224f, 1 / 0.225f, 1};
    const Image rgb = pattern(9, 5, 3);
    auto x = imageToTensor(rgb, 3, m);
    ASSERT_TRUE(x.ok());
    auto back = tensorToImage(*x, m);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->pixels, rgb.pixels);
    auto plain = imageToTensor(rgb, 3);
    Tensor half(DataType::Float16, {3, 5, 9});
    for (int64_t i = 0; i < half.elementCount(); ++i) half.as<uint16_t>()[i] = floatToHalf(plain->as<float>()[i]);
    auto fromHalf = tensorToImage(half);
    ASSERT_TRUE(fromHalf.ok()) << fromHalf.status().toString();
    EXPECT_EQ(fromHalf->pixels, rgb.pixels);

    EXPECT_FALSE(tensorToImage(Tensor(DataType::Float32, {1, 2, 4, 4})).ok());  // 2 channels
    EXPECT_FALSE(tensorToImage(Tensor(DataType::Float32, {2, 3, 4, 4})).ok());  // a batch of 2
    EXPECT_FALSE(tensorToImage(Tensor(DataType::Int64, {1, 3, 4, 4})).ok());
}

}  // namespace
}  // namespace vkinfer::testing
