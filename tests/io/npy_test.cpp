// .npy reading and writing: round trips, hand-written NumPy headers, malformed files.
#include <gtest/gtest.h>
#include <vkinfer/vkinfer.h>

#include <cstring>
#include <random>

#include "io/io_test_util.h"

namespace vkinfer::testing {
namespace {

// A .npy file as NumPy writes it: magic, version, little-endian header length, header padded
// with spaces and ended by '\n' so that the data starts at a multiple of 64, then the data.
std::string npyBytes(const std::string& dict, const std::string& data, int version = 1) {
    std::string out = "\x93NUMPY";
    out += static_cast<char>(version);
    out += '\0';
    const size_t lenBytes = version == 1 ? 2 : 4;
    std::string header = dict;
    size_t total = 8 + lenBytes + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    for (size_t i = 0; i < lenBytes; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
    return out + header + data;
}

template <class T>
std::string rawOf(const std::vector<T>& v) {
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// A tensor of `type` whose bytes are a deterministic pattern (every byte pattern is a valid
// value for the integer types; floats get finite values; bools 0/1).
Tensor patterned(DataType type, std::vector<int64_t> shape, uint32_t seed) {
    Tensor t(type, std::move(shape));
    std::mt19937 rng(seed);
    for (int64_t i = 0; i < t.elementCount(); ++i) {
        switch (type) {
            case DataType::Float32: t.as<float>()[i] = std::uniform_real_distribution<float>(-1e3f, 1e3f)(rng); break;
            case DataType::Float64: t.as<double>()[i] = std::uniform_real_distribution<double>(-1e9, 1e9)(rng); break;
            case DataType::Float16: t.as<uint16_t>()[i] = static_cast<uint16_t>(rng() % 0x7c00); break;  // finite halves
            case DataType::Bool: t.as<uint8_t>()[i] = static_cast<uint8_t>(rng() & 1); break;
            default:
                for (size_t b = 0; b < dataTypeSize(type); ++b)
                    t.data()[static_cast<size_t>(i) * dataTypeSize(type) + b] = static_cast<std::byte>(rng());
        }
    }
    return t;
}

bool sameTensor(const Tensor& a, const Tensor& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && a.byteSize() == b.byteSize() &&
           std::memcmp(a.data(), b.data(), a.byteSize()) == 0;
}

struct DtypeCase {
    DataType type;
    const char* descr;  // what NumPy writes
};
const DtypeCase kAllTypes[] = {
    {DataType::Float32, "<f4"}, {DataType::Float16, "<f2"}, {DataType::Float64, "<f8"}, {DataType::Int8, "|i1"},
    {DataType::Int16, "<i2"},   {DataType::Int32, "<i4"},   {DataType::Int64, "<i8"},   {DataType::UInt8, "|u1"},
    {DataType::UInt16, "<u2"},  {DataType::UInt32, "<u4"},  {DataType::UInt64, "<u8"},  {DataType::Bool, "|b1"},
};

TEST(IoNpy, RoundTripEveryTypeAndRank) {
    TempDir dir;
    const std::vector<std::vector<int64_t>> shapes = {{}, {1}, {7}, {2, 3}, {2, 1, 3, 4}, {0}, {3, 0, 2}};
    uint32_t seed = 1;
    for (const auto& c : kAllTypes) {
        for (const auto& shape : shapes) {
            SCOPED_TRACE(std::string(dataTypeName(c.type)) + " " + shapeToString(shape));
            Tensor t = patterned(c.type, shape, seed++);
            std::string path = dir.file(std::string(dataTypeName(c.type)) + "_" + shapeToString(shape) + ".npy");
            ASSERT_TRUE(saveNpy(path, t).ok());
            auto back = loadNpy(path);
            ASSERT_TRUE(back.ok()) << back.status().toString();
            EXPECT_TRUE(sameTensor(*back, t));
            EXPECT_EQ(back->shape(), shape);
            // loadTensorFile picks the format by extension.
            auto viaExt = loadTensorFile(path);
            ASSERT_TRUE(viaExt.ok());
            EXPECT_TRUE(sameTensor(*viaExt, t));
        }
    }
}

TEST(IoNpy, WrittenHeaderIsWhatNumPyExpects) {
    TempDir dir;
    for (const auto& c : kAllTypes) {
        SCOPED_TRACE(dataTypeName(c.type));
        std::string path = dir.file("h.npy");
        ASSERT_TRUE(saveNpy(path, patterned(c.type, {2, 3}, 7)).ok());
        std::string bytes = readFile(path);
        ASSERT_GE(bytes.size(), 10u);
        EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
        size_t headerLen = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
        // The data starts 64-byte aligned and the header ends with a newline.
        EXPECT_EQ((10 + headerLen) % 64, 0u);
        ASSERT_LE(10 + headerLen, bytes.size());
        std::string header = bytes.substr(10, headerLen);
        EXPECT_EQ(header.back(), '\n');
        EXPECT_TRUE(contains(header, std::string("'descr': '") + c.descr + "'"));
        EXPECT_TRUE(contains(header, "'fortran_order': False"));
        EXPECT_TRUE(contains(header, "'shape': (2, 3)"));
        EXPECT_EQ(bytes.size(), 10 + headerLen + 6 * dataTypeSize(c.type));
    }
    // NumPy's tuple spellings for rank 0 and rank 1.
    ASSERT_TRUE(saveNpy(dir.file("s.npy"), Tensor(DataType::Float32, {})).ok());
    EXPECT_TRUE(contains(readFile(dir.file("s.npy")), "'shape': ()"));
    ASSERT_TRUE(saveNpy(dir.file("v.npy"), Tensor(DataType::Float32, {5})).ok());
    EXPECT_TRUE(contains(readFile(dir.file("v.npy")), "'shape': (5,)"));
}

TEST(IoNpy, SaveRejectsTypesNumPyCannotHold) {
    TempDir dir;
    Status s = saveNpy(dir.file("x.npy"), Tensor());
    EXPECT_EQ(s.code(), ErrorCode::Unsupported);
    EXPECT_FALSE(std::filesystem::exists(dir.file("x.npy")));
}

TEST(IoNpy, SaveToMissingFolderFails) {
    TempDir dir;
    std::string path = dir.file("no/such/folder/x.npy");
    Status s = saveNpy(path, Tensor(DataType::Float32, {2}));
    EXPECT_FALSE(s.ok());
    EXPECT_TRUE(contains(s.message(), path));
}

TEST(IoNpy, ReadsHandWrittenVersion1Float32) {
    TempDir dir;
    std::vector<float> v = {1.5f, -2.0f, 3.25f, 0.0f, 1e-3f, -7.0f};
    writeFile(dir.file("a.npy"), npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", rawOf(v)));
    auto t = loadNpy(dir.file("a.npy"));
    ASSERT_TRUE(t.ok()) << t.status().toString();
    EXPECT_EQ(t->dtype(), DataType::Float32);
    EXPECT_EQ(t->shape(), (std::vector<int64_t>{2, 3}));
    for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(t->as<float>()[i], v[i]);
}

TEST(IoNpy, ReadsHandWrittenVersion2Header) {
    TempDir dir;
    std::vector<int64_t> v = {1, -2, 1LL << 40};
    writeFile(dir.file("b.npy"), npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", rawOf(v), 2));
    auto t = loadNpy(dir.file("b.npy"));
    ASSERT_TRUE(t.ok()) << t.status().toString();
    EXPECT_EQ(t->dtype(), DataType::Int64);
    EXPECT_EQ(t->shape(), (std::vector<int64_t>{3}));
    EXPECT_EQ(t->getInt(2), 1LL << 40);
    EXPECT_EQ(t->getInt(1), -2);
}

TEST(IoNpy, ReadsUint8AndBoolAndScalar) {
    TempDir dir;
    writeFile(dir.file("u.npy"),
              npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }", std::string("\x00\x7f\x80\xff", 4)));
    auto u = loadNpy(dir.file("u.npy"));
    ASSERT_TRUE(u.ok()) << u.status().toString();
    EXPECT_EQ(u->dtype(), DataType::UInt8);
    EXPECT_EQ(u->getInt(3), 255);
    EXPECT_EQ(u->getInt(2), 128);

    writeFile(dir.file("b.npy"),
              npyBytes("{'descr': '|b1', 'fortran_order': False, 'shape': (1, 3), }", std::string("\x01\x00\x01", 3)));
    auto b = loadNpy(dir.file("b.npy"));
    ASSERT_TRUE(b.ok()) << b.status().toString();
    EXPECT_EQ(b->dtype(), DataType::Bool);
    EXPECT_EQ(b->shape(), (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(b->getInt(0), 1);
    EXPECT_EQ(b->getInt(1), 0);

    float x = 42.5f;
    writeFile(dir.file("s.npy"), npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", rawOf<float>({x})));
    auto s = loadNpy(dir.file("s.npy"));
    ASSERT_TRUE(s.ok()) << s.status().toString();
    EXPECT_TRUE(s->shape().empty());
    EXPECT_EQ(s->elementCount(), 1);
    EXPECT_EQ(s->getDouble(0), 42.5);
}

TEST(IoNpy, KeyOrderAndSpacingDoNotMatter) {
    TempDir dir;
    std::vector<int32_t> v = {7, 8};
    writeFile(dir.file("k.npy"), npyBytes("{'shape':(2,),'fortran_order':False,'descr':'<i4'}", rawOf(v)));
    auto t = loadNpy(dir.file("k.npy"));
    ASSERT_TRUE(t.ok()) << t.status().toString();
    EXPECT_EQ(t->dtype(), DataType::Int32);
    EXPECT_EQ(t->getInt(1), 8);
}

// Bytes after the array and header keys the format does not have are refused, naming the
// file: such a file is not what numpy wrote for this array.
TEST(IoNpy, TrailingBytesAndUnknownHeaderKeysAreRefused) {
    TempDir dir;
    writeFile(dir.file("x.npy"),
              npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", std::string("\x05\x06\x07", 3)));
    auto t = loadNpy(dir.file("x.npy"));
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().message(), "'" + dir.file("x.npy") + "': 1 byte follows the .npy data (uint8 2 is 2 bytes)");
    writeFile(dir.file("k.npy"),
              npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), 'extra': 1, }", std::string("\x05\x06", 2)));
    auto k = loadNpy(dir.file("k.npy"));
    ASSERT_FALSE(k.ok());
    EXPECT_NE(k.status().message().find("has a key 'extra'"), std::string::npos) << k.status().toString();
    writeFile(dir.file("ok.npy"),
              npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", std::string("\x05\x06", 2)));
    EXPECT_TRUE(loadNpy(dir.file("ok.npy")).ok());
}

// Every malformed file fails with a status naming the file, never a crash.
void expectNpyError(const std::string& path, ErrorCode code, const std::string& detail = "") {
    auto t = loadNpy(path);
    ASSERT_FALSE(t.ok()) << path;
    EXPECT_EQ(t.status().code(), code) << t.status().toString();
    EXPECT_TRUE(contains(t.status().message(), path));
    if (!detail.empty()) {
        EXPECT_TRUE(contains(t.status().message(), detail));
    }
}

TEST(IoNpy, MissingFileIsNotFound) {
    TempDir dir;
    expectNpyError(dir.file("absent.npy"), ErrorCode::NotFound);
}

TEST(IoNpy, BadMagic) {
    TempDir dir;
    std::string good = npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0'));
    std::string bad = good;
    bad[1] = 'X';
    writeFile(dir.file("m.npy"), bad);
    expectNpyError(dir.file("m.npy"), ErrorCode::ParseError, "magic");
    writeFile(dir.file("empty.npy"), "");
    expectNpyError(dir.file("empty.npy"), ErrorCode::ParseError);
    writeFile(dir.file("text.npy"), "just some text, not numpy at all\n");
    expectNpyError(dir.file("text.npy"), ErrorCode::ParseError);
}

TEST(IoNpy, UnknownVersion) {
    TempDir dir;
    std::string bytes = npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0'));
    bytes[6] = 9;
    writeFile(dir.file("v.npy"), bytes);
    expectNpyError(dir.file("v.npy"), ErrorCode::ParseError, "version");
}

TEST(IoNpy, TruncatedHeader) {
    TempDir dir;
    std::string bytes = npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", std::string(16, '\0'));
    writeFile(dir.file("h.npy"), bytes.substr(0, 40));  // header length says 118
    expectNpyError(dir.file("h.npy"), ErrorCode::ParseError, "truncated");
    // v2 with only part of its 4-byte length.
    std::string v2 = npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", std::string(16, '\0'), 2);
    writeFile(dir.file("h2.npy"), v2.substr(0, 10));
    expectNpyError(dir.file("h2.npy"), ErrorCode::ParseError);
    // A header whose dict is cut short inside the shape tuple.
    writeFile(dir.file("h3.npy"), npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2", ""));
    expectNpyError(dir.file("h3.npy"), ErrorCode::ParseError);
    // Keys missing.
    writeFile(dir.file("h4.npy"), npyBytes("{'fortran_order': False, 'shape': (2,), }", std::string(8, '\0')));
    expectNpyError(dir.file("h4.npy"), ErrorCode::ParseError, "descr");
    writeFile(dir.file("h5.npy"), npyBytes("{'descr': '<f4', 'fortran_order': False, }", std::string(8, '\0')));
    expectNpyError(dir.file("h5.npy"), ErrorCode::ParseError, "shape");
}

TEST(IoNpy, TruncatedData) {
    TempDir dir;
    writeFile(dir.file("d.npy"), npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", std::string(20, '\0')));
    expectNpyError(dir.file("d.npy"), ErrorCode::ParseError, "truncated");
}

TEST(IoNpy, EveryTruncationOfAValidFileFailsCleanly) {
    TempDir dir;
    std::string path = dir.file("full.npy");
    ASSERT_TRUE(saveNpy(path, patterned(DataType::Float32, {3, 5}, 3)).ok());
    std::string bytes = readFile(path);
    for (size_t len = 0; len < bytes.size(); ++len) {
        std::string p = dir.file("cut.npy");
        writeFile(p, bytes.substr(0, len));
        auto t = loadNpy(p);
        ASSERT_FALSE(t.ok()) << "length " << len;
        EXPECT_EQ(t.status().code(), ErrorCode::ParseError) << len << ": " << t.status().toString();
    }
}

TEST(IoNpy, BigEndianIsUnsupported) {
    TempDir dir;
    writeFile(dir.file("be.npy"), npyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", std::string(8, '\0')));
    expectNpyError(dir.file("be.npy"), ErrorCode::Unsupported, "big-endian");
    // Single-byte types have no byte order: '>u1' is fine.
    writeFile(dir.file("u1.npy"), npyBytes("{'descr': '>u1', 'fortran_order': False, 'shape': (2,), }", "ab"));
    EXPECT_TRUE(loadNpy(dir.file("u1.npy")).ok());
}

TEST(IoNpy, FortranOrderIsUnsupported) {
    TempDir dir;
    writeFile(dir.file("f.npy"), npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", std::string(24, '\0')));
    expectNpyError(dir.file("f.npy"), ErrorCode::Unsupported, "Fortran");
}

TEST(IoNpy, UnknownDtypeIsUnsupported) {
    TempDir dir;
    for (const char* d : {"<c8", "<U5", "|O", "<M8[ns]", "|V4"}) {
        SCOPED_TRACE(d);
        writeFile(dir.file("t.npy"),
                  npyBytes(std::string("{'descr': '") + d + "', 'fortran_order': False, 'shape': (1,), }", std::string(64, '\0')));
        auto t = loadNpy(dir.file("t.npy"));
        ASSERT_FALSE(t.ok());
        EXPECT_TRUE(t.status().code() == ErrorCode::Unsupported || t.status().code() == ErrorCode::ParseError)
            << t.status().toString();
        EXPECT_TRUE(contains(t.status().message(), dir.file("t.npy")));
    }
}

TEST(IoNpy, HugeOrOverflowingShapesFailWithoutAllocating) {
    TempDir dir;
    // A shape whose byte count exceeds the file (and memory) must be reported as truncated
    // data, not attempted as an allocation; one whose element count overflows int64 must not
    // wrap around to a small tensor.
    for (const char* shape : {"(4000000000, 4000000000)", "(4294967296, 4294967296, 2)", "(99999999999999999999999,)",
                              "(1000000000000,)"}) {
        SCOPED_TRACE(shape);
        writeFile(dir.file("big.npy"),
                  npyBytes(std::string("{'descr': '<f4', 'fortran_order': False, 'shape': ") + shape + ", }", std::string(64, '\0')));
        expectNpyError(dir.file("big.npy"), ErrorCode::ParseError);
    }
}

TEST(IoNpy, RandomBytesAfterMagicNeverCrash) {
    TempDir dir;
    std::mt19937 rng(99);
    int failures = 0;
    for (int i = 0; i < 200; ++i) {
        std::string bytes = "\x93NUMPY";
        bytes += static_cast<char>(1 + rng() % 2);
        bytes += '\0';
        size_t n = rng() % 200;
        if (i % 2) {
            // A header length that matches the bytes that follow, so that the dict parser
            // sees the random text.
            bytes += static_cast<char>(n & 0xff);
            bytes += static_cast<char>(n >> 8);
            if (bytes[6] == 2) bytes += std::string(2, '\0');
        }
        for (size_t k = 0; k < n; ++k) bytes += static_cast<char>(rng());
        writeFile(dir.file("r.npy"), bytes);
        auto t = loadNpy(dir.file("r.npy"));
        if (!t.ok()) {
            ++failures;
            EXPECT_NE(t.status().code(), ErrorCode::Internal) << t.status().toString();
        }
    }
    EXPECT_EQ(failures, 200);
}

TEST(IoNpy, HeadersOfShuffledDictTokensNeverCrash) {
    // Headers assembled from the pieces of a real one (keys, quotes, colons, tuples) in
    // random order: the parser must fail with a status or accept a consistent file.
    const char* tokens[] = {"{",   "}",  "'descr'", "'<f4'", "'|u1'", ":", ",", " ", "'shape'", "(", ")", "2",
                            "3,", "'", "'fortran_order'", "False", "True", "99999999999999999999", "-1", "'>i8'"};
    TempDir dir;
    std::mt19937 rng(5);
    for (int i = 0; i < 500; ++i) {
        std::string dict;
        int n = 1 + static_cast<int>(rng() % 16);
        for (int k = 0; k < n; ++k) dict += tokens[rng() % std::size(tokens)];
        writeFile(dir.file("t.npy"), npyBytes(dict, std::string(static_cast<size_t>(rng() % 32), '\x01')));
        auto t = loadNpy(dir.file("t.npy"));
        if (t.ok()) {
            EXPECT_LE(t->byteSize(), 32u) << dict;
        } else {
            EXPECT_NE(t.status().code(), ErrorCode::Internal) << dict << " -> " << t.status().toString();
            EXPECT_TRUE(contains(t.status().message(), dir.file("t.npy")));
        }
    }
}

TEST(IoTensorFile, UnknownExtensionIsInvalidArgument) {
    auto t = loadTensorFile("/tmp/whatever.txt");
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(contains(t.status().message(), "whatever.txt"));
}

}  // namespace
}  // namespace vkinfer::testing
