// ONNX TensorProto (.pb) files: round trips, the typed data fields, malformed protos.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <vkinfer/vkinfer.h>

#include <array>
#include <cstring>
#include <random>

#include "io/io_test_util.h"
#include "support/onnx_builder.h"

namespace vkinfer::testing {
namespace {

void writeProto(const std::string& path, const onnx::TensorProto& p) { writeFile(path, p.SerializeAsString()); }

onnx::TensorProto protoOf(DataType type, const std::vector<int64_t>& dims, const std::string& name = "t") {
    onnx::TensorProto p;
    p.set_name(name);
    p.set_data_type(static_cast<int32_t>(type));
    for (int64_t d : dims) p.add_dims(d);
    return p;
}

TEST(IoTensorProto, RoundTripEveryTypeKeepsNameShapeAndBytes) {
    TempDir dir;
    const DataType types[] = {DataType::Float32, DataType::Float16, DataType::Float64, DataType::Int8,
                              DataType::Int16,   DataType::Int32,   DataType::Int64,   DataType::UInt8,
                              DataType::UInt16,  DataType::UInt32,  DataType::UInt64,  DataType::Bool};
    const std::vector<std::vector<int64_t>> shapes = {{}, {5}, {2, 3, 4}, {0, 3}};
    std::mt19937 rng(11);
    for (DataType type : types) {
        for (const auto& shape : shapes) {
            SCOPED_TRACE(std::string(dataTypeName(type)) + " " + shapeToString(shape));
            Tensor t(type, shape);
            for (size_t b = 0; b < t.byteSize(); ++b)
                t.data()[b] = static_cast<std::byte>(type == DataType::Bool ? rng() & 1 : rng());
            std::string path = dir.file("t.pb");
            ASSERT_TRUE(saveTensorProto(path, t, "my/tensor:0").ok());
            std::string name;
            auto back = loadTensorProto(path, &name);
            ASSERT_TRUE(back.ok()) << back.status().toString();
            EXPECT_EQ(name, "my/tensor:0");
            EXPECT_EQ(back->dtype(), type);
            EXPECT_EQ(back->shape(), shape);
            ASSERT_EQ(back->byteSize(), t.byteSize());
            EXPECT_EQ(std::memcmp(back->data(), t.data(), t.byteSize()), 0);
            auto viaExt = loadTensorFile(path);
            ASSERT_TRUE(viaExt.ok());
            EXPECT_EQ(viaExt->shape(), shape);
        }
    }
}

// Bool bytes other than 0 and 1 (raw data, the int32 field, .npy) read as 1: the CPU reference
// reads bool tensors as C++ bool, for which any other byte is undefined (a fuzzer finding).
TEST(IoTensorProto, BoolBytesReadAsZeroOrOne) {
    TempDir dir;
    auto raw = protoOf(DataType::Bool, {4});
    raw.set_raw_data(std::string("\x00\x02\xff\x01", 4));
    writeProto(dir.file("raw.pb"), raw);
    auto field = protoOf(DataType::Bool, {4});
    for (int v : {0, 2, 255, 1}) field.add_int32_data(v);
    writeProto(dir.file("field.pb"), field);
    Tensor npyBools(DataType::Bool, {4});
    for (size_t i = 0; i < 4; ++i) npyBools.data()[i] = static_cast<std::byte>(std::array<int, 4>{0, 2, 255, 1}[i]);
    ASSERT_TRUE(saveNpy(dir.file("b.npy"), npyBools).ok());
    for (const char* f : {"raw.pb", "field.pb", "b.npy"}) {
        SCOPED_TRACE(f);
        auto t = loadTensorFile(dir.file(f));
        ASSERT_TRUE(t.ok()) << t.status().toString();
        ASSERT_EQ(t->byteSize(), 4u);
        const uint8_t* b = reinterpret_cast<const uint8_t*>(t->data());
        EXPECT_EQ(std::vector<int>(b, b + 4), (std::vector<int>{0, 1, 1, 1}));
    }
}

TEST(IoTensorProto, NameIsOptional) {
    TempDir dir;
    ASSERT_TRUE(saveTensorProto(dir.file("a.pb"), floatTensor({2}, {1, 2})).ok());
    std::string name = "unchanged?";
    auto t = loadTensorProto(dir.file("a.pb"), &name);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(name, "");
    EXPECT_EQ(t->getDouble(1), 2.0);
}

TEST(IoTensorProto, FloatDataField) {
    TempDir dir;
    auto p = protoOf(DataType::Float32, {2, 2});
    for (float v : {1.0f, -2.5f, 3.0f, 1e-7f}) p.add_float_data(v);
    writeProto(dir.file("f.pb"), p);
    auto t = loadTensorProto(dir.file("f.pb"));
    ASSERT_TRUE(t.ok()) << t.status().toString();
    EXPECT_EQ(t->dtype(), DataType::Float32);
    EXPECT_EQ(t->as<float>()[1], -2.5f);
    EXPECT_EQ(t->as<float>()[3], 1e-7f);
}

TEST(IoTensorProto, Int64DataField) {
    TempDir dir;
    auto p = protoOf(DataType::Int64, {3});
    for (int64_t v : {int64_t{-1}, int64_t{1} << 50, int64_t{7}}) p.add_int64_data(v);
    writeProto(dir.file("i.pb"), p);
    auto t = loadTensorProto(dir.file("i.pb"));
    ASSERT_TRUE(t.ok()) << t.status().toString();
    EXPECT_EQ(t->getInt(0), -1);
    EXPECT_EQ(t->getInt(1), int64_t{1} << 50);
}

TEST(IoTensorProto, Int32DataFieldHoldsSmallTypes) {
    TempDir dir;
    // int32_data carries int32, int16, int8, uint8, bool and the bits of float16.
    {
        auto p = protoOf(DataType::Int32, {2});
        p.add_int32_data(-123456);
        p.add_int32_data(42);
        writeProto(dir.file("a.pb"), p);
        auto t = loadTensorProto(dir.file("a.pb"));
        ASSERT_TRUE(t.ok()) << t.status().toString();
        EXPECT_EQ(t->getInt(0), -123456);
    }
    {
        auto p = protoOf(DataType::Int8, {2});
        p.add_int32_data(-5);
        p.add_int32_data(100);
        writeProto(dir.file("b.pb"), p);
        auto t = loadTensorProto(dir.file("b.pb"));
        ASSERT_TRUE(t.ok()) << t.status().toString();
        EXPECT_EQ(t->byteSize(), 2u);
        EXPECT_EQ(t->getInt(0), -5);
        EXPECT_EQ(t->getInt(1), 100);
    }
    {
        auto p = protoOf(DataType::Bool, {3});
        for (int v : {1, 0, 1}) p.add_int32_data(v);
        writeProto(dir.file("c.pb"), p);
        auto t = loadTensorProto(dir.file("c.pb"));
        ASSERT_TRUE(t.ok()) << t.status().toString();
        EXPECT_EQ(t->getInt(0), 1);
        EXPECT_EQ(t->getInt(1), 0);
    }
    {
        auto p = protoOf(DataType::Float16, {1});
        p.add_int32_data(0x3c00);  // 1.0 in half precision
        writeProto(dir.file("h.pb"), p);
        auto t = loadTensorProto(dir.file("h.pb"));
        ASSERT_TRUE(t.ok()) << t.status().toString();
        EXPECT_EQ(t->as<uint16_t>()[0], 0x3c00);
        EXPECT_EQ(t->getDouble(0), 1.0);
    }
}

TEST(IoTensorProto, DoubleAndUint64Fields) {
    TempDir dir;
    auto d = protoOf(DataType::Float64, {2});
    d.add_double_data(0.1);
    d.add_double_data(-1e300);
    writeProto(dir.file("d.pb"), d);
    auto td = loadTensorProto(dir.file("d.pb"));
    ASSERT_TRUE(td.ok()) << td.status().toString();
    EXPECT_EQ(td->getDouble(1), -1e300);

    auto u = protoOf(DataType::UInt32, {2});
    u.add_uint64_data(4000000000u);
    u.add_uint64_data(3);
    writeProto(dir.file("u.pb"), u);
    auto tu = loadTensorProto(dir.file("u.pb"));
    ASSERT_TRUE(tu.ok()) << tu.status().toString();
    EXPECT_EQ(tu->as<uint32_t>()[0], 4000000000u);
}

TEST(IoTensorProto, RawDataSizeMismatchIsParseError) {
    TempDir dir;
    for (size_t bytes : {size_t{0}, size_t{11}, size_t{13}, size_t{24}}) {
        SCOPED_TRACE(bytes);
        auto p = protoOf(DataType::Float32, {3});
        p.set_raw_data(std::string(bytes, '\0'));
        writeProto(dir.file("r.pb"), p);
        auto t = loadTensorProto(dir.file("r.pb"));
        ASSERT_FALSE(t.ok());
        EXPECT_EQ(t.status().code(), ErrorCode::ParseError);
        EXPECT_TRUE(contains(t.status().message(), dir.file("r.pb")));
        EXPECT_TRUE(contains(t.status().message(), "12"));  // what the shape needs
    }
}

TEST(IoTensorProto, TypedFieldCountMismatchIsParseError) {
    TempDir dir;
    auto p = protoOf(DataType::Float32, {2, 2});
    p.add_float_data(1);
    p.add_float_data(2);
    p.add_float_data(3);
    writeProto(dir.file("f.pb"), p);
    auto t = loadTensorProto(dir.file("f.pb"));
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), ErrorCode::ParseError);
    EXPECT_TRUE(contains(t.status().message(), "3 values"));

    // Values in the wrong field for the type count as missing.
    auto q = protoOf(DataType::Int64, {2});
    q.add_int32_data(1);
    q.add_int32_data(2);
    writeProto(dir.file("g.pb"), q);
    auto u = loadTensorProto(dir.file("g.pb"));
    ASSERT_FALSE(u.ok());
    EXPECT_EQ(u.status().code(), ErrorCode::ParseError);
}

TEST(IoTensorProto, HugeDimsFailWithoutAllocating) {
    TempDir dir;
    // Claimed sizes far beyond the data (and int64 overflow) are parse errors, not out-of-memory.
    for (const auto& dims : std::vector<std::vector<int64_t>>{{1000000, 1000000}, {int64_t{1} << 32, int64_t{1} << 32, 4}}) {
        auto p = protoOf(DataType::Float32, dims);
        p.set_raw_data(std::string(16, '\0'));
        writeProto(dir.file("h.pb"), p);
        auto t = loadTensorProto(dir.file("h.pb"));
        ASSERT_FALSE(t.ok());
        EXPECT_EQ(t.status().code(), ErrorCode::ParseError) << t.status().toString();

        auto q = protoOf(DataType::Float32, dims);
        q.add_float_data(1);
        writeProto(dir.file("h2.pb"), q);
        auto u = loadTensorProto(dir.file("h2.pb"));
        ASSERT_FALSE(u.ok());
        EXPECT_EQ(u.status().code(), ErrorCode::ParseError) << u.status().toString();
    }
}

TEST(IoTensorProto, NegativeDimIsParseError) {
    TempDir dir;
    auto p = protoOf(DataType::Float32, {-1, 2});
    writeProto(dir.file("n.pb"), p);
    auto t = loadTensorProto(dir.file("n.pb"));
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), ErrorCode::ParseError);
}

TEST(IoTensorProto, StringAndExternalDataAreUnsupported) {
    TempDir dir;
    auto s = protoOf(DataType::String, {1});
    s.add_string_data("hello");
    writeProto(dir.file("s.pb"), s);
    auto ts = loadTensorProto(dir.file("s.pb"));
    ASSERT_FALSE(ts.ok());
    EXPECT_EQ(ts.status().code(), ErrorCode::Unsupported);

    auto e = protoOf(DataType::Float32, {4});
    e.set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = e.add_external_data();
    kv->set_key("location");
    kv->set_value("weights.bin");
    writeProto(dir.file("e.pb"), e);
    auto te = loadTensorProto(dir.file("e.pb"));
    ASSERT_FALSE(te.ok());
    EXPECT_EQ(te.status().code(), ErrorCode::Unsupported);
    EXPECT_TRUE(contains(te.status().message(), "external"));
}

TEST(IoTensorProto, MissingAndMalformedFiles) {
    TempDir dir;
    auto missing = loadTensorProto(dir.file("nope.pb"));
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.status().code(), ErrorCode::NotFound);
    EXPECT_TRUE(contains(missing.status().message(), dir.file("nope.pb")));

    // A serialized proto cut inside its raw data no longer parses.
    ASSERT_TRUE(saveTensorProto(dir.file("full.pb"), randomTensor({4, 4}, 1), "x").ok());
    std::string bytes = readFile(dir.file("full.pb"));
    for (size_t len = 1; len < bytes.size(); ++len) {
        writeFile(dir.file("cut.pb"), bytes.substr(0, len));
        auto t = loadTensorProto(dir.file("cut.pb"));
        ASSERT_FALSE(t.ok()) << "length " << len;
        EXPECT_EQ(t.status().code(), ErrorCode::ParseError) << len << ": " << t.status().toString();
        EXPECT_TRUE(contains(t.status().message(), dir.file("cut.pb")));
    }
}

}  // namespace
}  // namespace vkinfer::testing
