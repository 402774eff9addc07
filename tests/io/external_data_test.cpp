// ONNX external data: initializers whose bytes are in files next to the model (what PyTorch
// writes as model.onnx.data), read in place from the mapped file; and every way a location
// can be wrong (escaping the folder, missing, short, wrong length).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>
#include <vkinfer/vkinfer.h>

#include <cstring>
#include <filesystem>

#include "io/io_test_util.h"
#include "passes/cpu_reference.h"
#include "plan/compile.h"
#include "runtime/model_data.h"
#include "support/onnx_builder.h"

namespace vkinfer::testing {
namespace {

namespace fs = std::filesystem;

std::string bytesOf(const Tensor& t) { return std::string(reinterpret_cast<const char*>(t.data()), t.byteSize()); }

// `bytes` written into `path` at `offset` (the file is created or extended as needed).
void writeAt(const std::string& path, uint64_t offset, const std::string& bytes) {
    fs::create_directories(fs::path(path).parent_path());
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(fd, 0) << path;
    ASSERT_EQ(pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset)), static_cast<ssize_t>(bytes.size()));
    ::close(fd);
}

const Tensor* constantOf(const Model& m, const std::string& name) {
    const auto& g = m.data()->graph;
    int id = g.findValue(name);
    return id >= 0 && g.values[id].constant ? &*g.values[id].constant : nullptr;
}

// y = ((x + a) * b + c) + d, with a, b, c in weights.bin and d in more/d.bin.
struct FourWeights {
    Tensor a = randomTensor({2, 8}, 1), b = randomTensor({2, 8}, 2), c = randomTensor({2, 8}, 3),
           d = randomTensor({2, 8}, 4);
    OnnxBuilder builder;

    FourWeights() {
        builder.input("x", {2, 8});
        // a at 0, b at 64 (aligned: read in place), c at 131 (misaligned for float: copied).
        builder.externalInitializer("a", DataType::Float32, {2, 8}, "weights.bin", 0, 64);
        builder.externalInitializer("b", DataType::Float32, {2, 8}, "weights.bin", 64, 64);
        builder.externalInitializer("c", DataType::Float32, {2, 8}, "weights.bin", 131, 64);
        builder.externalInitializer("d", DataType::Float32, {2, 8}, "more/d.bin", -1, -1);  // no offset, no length
        builder.node("Add", {"x", "a"}, {"xa"});
        builder.node("Mul", {"xa", "b"}, {"xb"});
        builder.node("Add", {"xb", "c"}, {"xc"});
        builder.node("Add", {"xc", "d"}, {"y"});
        builder.output("y");
    }
    void writeFiles(const TempDir& dir) const {
        writeAt(dir.file("weights.bin"), 0, bytesOf(a));
        writeAt(dir.file("weights.bin"), 64, bytesOf(b));
        writeAt(dir.file("weights.bin"), 131, bytesOf(c));
        writeAt(dir.file("more/d.bin"), 0, bytesOf(d));
    }
    std::string save(const TempDir& dir) const {
        writeFiles(dir);
        writeFile(dir.file("model.onnx"), builder.serialize());
        return dir.file("model.onnx");
    }
};

// The status of loading `builder`'s model from `dir` (its external files written by the test).
Status loadIn(const TempDir& dir, const OnnxBuilder& builder) {
    writeFile(dir.file("model.onnx"), builder.serialize());
    return Model::load(dir.file("model.onnx")).status();
}

// x[4] + w, with w (4 floats) external at `location`.
OnnxBuilder oneWeight(const std::string& location, int64_t offset = 0, int64_t length = 16) {
    OnnxBuilder b;
    b.input("x", {4});
    b.externalInitializer("w", DataType::Float32, {4}, location, offset, length);
    b.node("Add", {"x", "w"}, {"y"}, "add");
    b.output("y");
    return b;
}

TEST(IoExternalData, TensorsInTwoFilesLoadAndRun) {
    TempDir dir;
    FourWeights m;
    auto model = Model::load(m.save(dir));
    ASSERT_TRUE(model.ok()) << model.status().toString();
    for (const auto& [name, expected] : {std::pair{"a", &m.a}, {"b", &m.b}, {"c", &m.c}, {"d", &m.d}}) {
        const Tensor* t = constantOf(*model, name);
        ASSERT_NE(t, nullptr) << name;
        EXPECT_EQ(t->dtype(), DataType::Float32) << name;
        EXPECT_EQ(t->shape(), (std::vector<int64_t>{2, 8})) << name;
        EXPECT_EQ(bytesOf(*t), bytesOf(*expected)) << name;
    }
    // Aligned tensors are read in place from the mapping; c's offset is not a multiple of 4.
    EXPECT_TRUE(constantOf(*model, "a")->borrowed());
    EXPECT_TRUE(constantOf(*model, "b")->borrowed());
    EXPECT_FALSE(constantOf(*model, "c")->borrowed());
    EXPECT_TRUE(constantOf(*model, "d")->borrowed());

    Tensor x = randomTensor({2, 8}, 9);
    auto out = passes::runOnCpu(model->data()->graph, {{"x", x}});
    ASSERT_EQ(out.size(), 1u);
    for (int i = 0; i < 16; ++i) {
        float want = (x.as<float>()[i] + m.a.as<float>()[i]) * m.b.as<float>()[i] + m.c.as<float>()[i] + m.d.as<float>()[i];
        EXPECT_FLOAT_EQ(out[0].as<float>()[i], want) << i;
    }
    // The plan uploads the external weights as they are, still borrowed from the mapping
    // (the staging copy reads them in place).
    plan::CompiledPlan plan = plan::compilePlan(model->data()->graph, {{"x", {2, 8}}}, PlanOptions{});
    size_t borrowedWeights = 0;
    for (int v : plan.weightValues) borrowedWeights += plan.graph.values[v].constant->borrowed();
    EXPECT_EQ(borrowedWeights, 3u) << "a, b and d";
}

TEST(IoExternalData, MappingOutlivesTheFilesNames) {
    // The mapping keeps the data: removing the files after loading changes nothing.
    TempDir dir;
    FourWeights m;
    auto model = Model::load(m.save(dir));
    ASSERT_TRUE(model.ok()) << model.status().toString();
    fs::remove(dir.file("weights.bin"));
    fs::remove_all(dir.file("more"));
    EXPECT_EQ(bytesOf(*constantOf(*model, "b")), bytesOf(m.b));
    // A copy shares the bytes; writing to it copies first and leaves the model's alone.
    Tensor copy = *constantOf(*model, "b");
    EXPECT_TRUE(copy.borrowed());
    copy.as<float>()[0] = 1234.5f;
    EXPECT_FALSE(copy.borrowed());
    EXPECT_EQ(bytesOf(*constantOf(*model, "b")), bytesOf(m.b));
}

TEST(IoExternalData, RelativeModelPathAndNormalizedLocations) {
    TempDir dir;
    FourWeights m;
    m.writeFiles(dir);
    // "more/./../more/d.bin" normalizes to more/d.bin, inside the folder.
    OnnxBuilder b = m.builder;
    b.proto().mutable_graph()->mutable_initializer(3)->mutable_external_data(0)->set_value("more/./../more/d.bin");
    writeFile(dir.file("model.onnx"), b.serialize());
    auto cwd = fs::current_path();
    fs::current_path(dir.path());
    auto model = Model::load("model.onnx");  // folder "" is the current one
    fs::current_path(cwd);
    ASSERT_TRUE(model.ok()) << model.status().toString();
    EXPECT_EQ(bytesOf(*constantOf(*model, "d")), bytesOf(m.d));
}

TEST(IoExternalData, ConstantNodeValueMayBeExternal) {
    TempDir dir;
    Tensor w = randomTensor({4}, 5);
    writeAt(dir.file("c.bin"), 4096, bytesOf(w));
    OnnxBuilder b;
    b.input("x", {4});
    auto& c = b.node("Constant", {}, {"w"}, "const");
    auto* a = c.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    auto* t = a->mutable_t();
    t->set_data_type(static_cast<int32_t>(DataType::Float32));
    t->add_dims(4);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    for (auto [k, v] : {std::pair{"location", "c.bin"}, {"offset", "4096"}, {"length", "16"}, {"checksum", "ignored"}}) {
        auto* kv = t->add_external_data();
        kv->set_key(k);
        kv->set_value(v);
    }
    b.node("Add", {"x", "w"}, {"y"});
    b.output("y");
    writeFile(dir.file("model.onnx"), b.serialize());
    auto model = Model::load(dir.file("model.onnx"));
    ASSERT_TRUE(model.ok()) << model.status().toString();
    EXPECT_EQ(bytesOf(*constantOf(*model, "w")), bytesOf(w));
}

TEST(IoExternalData, OffsetsBeyondFourGiBInASparseFile) {
    TempDir dir;
    const uint64_t offset = (uint64_t{4} << 30) + 4096 * 3;  // past 2^32
    Tensor w = randomTensor({4}, 6);
    // A sparse file: ftruncate to 5 GiB, then the tensor's 16 bytes; no disk cost.
    {
        int fd = ::open(dir.file("big.bin").c_str(), O_WRONLY | O_CREAT, 0644);
        ASSERT_GE(fd, 0);
        if (ftruncate(fd, static_cast<off_t>(uint64_t{5} << 30)) != 0) {
            ::close(fd);
            GTEST_SKIP() << "this file system cannot hold a 5 GiB sparse file";
        }
        ::close(fd);
    }
    writeAt(dir.file("big.bin"), offset, bytesOf(w));
    OnnxBuilder b = oneWeight("big.bin", static_cast<int64_t>(offset));
    writeFile(dir.file("model.onnx"), b.serialize());
    auto model = Model::load(dir.file("model.onnx"));
    ASSERT_TRUE(model.ok()) << model.status().toString();
    EXPECT_EQ(bytesOf(*constantOf(*model, "w")), bytesOf(w));

    // Past the end of the 5 GiB file: the message gives the 64-bit sizes exactly.
    const uint64_t past = (uint64_t{5} << 30) - 8;
    Status s = loadIn(dir, oneWeight("big.bin", static_cast<int64_t>(past)));
    EXPECT_EQ(s.code(), ErrorCode::ParseError) << s.toString();
    EXPECT_TRUE(contains(s.message(), std::to_string(uint64_t{5} << 30) + " bytes"));
    EXPECT_TRUE(contains(s.message(), "offset " + std::to_string(past)));
}

TEST(IoExternalData, LocationsLeavingTheFolderAreRefused) {
    TempDir outside, dir;
    Tensor w = randomTensor({4}, 7);
    writeAt(outside.file("w.bin"), 0, bytesOf(w));
    writeAt(dir.file("sub/w.bin"), 0, bytesOf(w));
    const std::string rel = fs::relative(outside.file("w.bin"), dir.path()).string();  // ../vkinfer_test_xxx/w.bin
    // The last one leaves and comes back in: refused as written, as ONNX forbids "..".
    const std::string backIn = "../" + dir.path().filename().string() + "/sub/w.bin";
    for (const std::string& location :
         {outside.file("w.bin"), std::string("/etc/passwd"), rel, std::string("sub/../../w.bin"), backIn}) {
        SCOPED_TRACE(location);
        Status s = loadIn(dir, oneWeight(location));
        ASSERT_FALSE(s.ok());
        EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
        EXPECT_TRUE(contains(s.message(), "tensor 'w'"));
        EXPECT_TRUE(contains(s.message(), "'" + location + "'"));
        EXPECT_TRUE(contains(s.message(), location[0] == '/' ? "absolute" : "leaves the model's folder"));
    }
    // A location that stays inside after normalization loads.
    EXPECT_TRUE(loadIn(dir, oneWeight("sub/../sub/w.bin")).ok());
}

TEST(IoExternalData, SymbolicLinksResolvingOutsideAreRefused) {
    TempDir outside, dir;
    Tensor w = randomTensor({4}, 8);
    writeAt(outside.file("w.bin"), 0, bytesOf(w));
    writeAt(dir.file("real/w.bin"), 0, bytesOf(w));
    fs::create_symlink(outside.file("w.bin"), dir.file("link.bin"));      // the file
    fs::create_directory_symlink(outside.path(), dir.file("linkdir"));      // a folder on the way
    fs::create_symlink("real/w.bin", dir.file("inside.bin"));              // a link that stays inside
    fs::create_directory_symlink("real", dir.file("insidedir"));
    for (const char* location : {"link.bin", "linkdir/w.bin"}) {
        SCOPED_TRACE(location);
        Status s = loadIn(dir, oneWeight(location));
        ASSERT_FALSE(s.ok());
        EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
        EXPECT_TRUE(contains(s.message(), "tensor 'w'"));
        EXPECT_TRUE(contains(s.message(), std::string("'") + location + "'"));
        EXPECT_TRUE(contains(s.message(), fs::canonical(outside.file("w.bin")).string()));
        EXPECT_TRUE(contains(s.message(), "outside the model's folder"));
    }
    for (const char* location : {"inside.bin", "insidedir/w.bin"}) {
        SCOPED_TRACE(location);
        Status s = loadIn(dir, oneWeight(location));
        EXPECT_TRUE(s.ok()) << s.toString();
    }
}

TEST(IoExternalData, MissingFileNamesTensorAndFile) {
    TempDir dir;
    Status s = loadIn(dir, oneWeight("absent.bin"));
    EXPECT_EQ(s.code(), ErrorCode::NotFound) << s.toString();
    EXPECT_TRUE(contains(s.message(), "tensor 'w'"));
    EXPECT_TRUE(contains(s.message(), dir.file("absent.bin")));
    EXPECT_TRUE(contains(s.message(), "does not exist"));
    // In a folder that does not exist either.
    Status t = loadIn(dir, oneWeight("nofolder/absent.bin"));
    EXPECT_EQ(t.code(), ErrorCode::NotFound) << t.toString();
    EXPECT_TRUE(contains(t.message(), "nofolder/absent.bin"));
}

TEST(IoExternalData, ShortFileNamesTheSizes) {
    TempDir dir;
    writeAt(dir.file("w.bin"), 0, std::string(40, 'x'));
    // 16 bytes at offset 32 of a 40-byte file.
    Status s = loadIn(dir, oneWeight("w.bin", 32, 16));
    EXPECT_EQ(s.code(), ErrorCode::ParseError) << s.toString();
    for (const std::string& part : {std::string("tensor 'w'"), dir.file("w.bin"), std::string("40 bytes"),
                                    std::string("needs 16 bytes"), std::string("offset 32")})
        EXPECT_TRUE(contains(s.message(), part));
    // Offset past the end; no length given.
    Status t = loadIn(dir, oneWeight("w.bin", 100, -1));
    EXPECT_EQ(t.code(), ErrorCode::ParseError) << t.toString();
    EXPECT_TRUE(contains(t.message(), "offset 100"));
    // Exactly at the end fits.
    EXPECT_TRUE(loadIn(dir, oneWeight("w.bin", 24, 16)).ok());
}

TEST(IoExternalData, LengthMustMatchTheShape) {
    TempDir dir;
    writeAt(dir.file("w.bin"), 0, std::string(64, 'x'));
    Status s = loadIn(dir, oneWeight("w.bin", 0, 12));
    EXPECT_EQ(s.code(), ErrorCode::ParseError) << s.toString();
    EXPECT_TRUE(contains(s.message(), "tensor 'w'"));
    EXPECT_TRUE(contains(s.message(), "length is 12 bytes"));
    EXPECT_TRUE(contains(s.message(), "needs 16"));
}

TEST(IoExternalData, MalformedEntriesAreRefused) {
    TempDir dir;
    writeAt(dir.file("w.bin"), 0, std::string(64, 'x'));
    fs::create_directories(dir.file("folder"));
    struct Case {
        OnnxBuilder b;
        ErrorCode code;
        const char* text;
    };
    OnnxBuilder noLocation = oneWeight("w.bin");
    noLocation.proto().mutable_graph()->mutable_initializer(0)->mutable_external_data(0)->set_key("place");
    OnnxBuilder badOffset = oneWeight("w.bin");
    badOffset.proto().mutable_graph()->mutable_initializer(0)->mutable_external_data(1)->set_value("-4");
    OnnxBuilder badLength = oneWeight("w.bin");
    badLength.proto().mutable_graph()->mutable_initializer(0)->mutable_external_data(2)->set_value("16 bytes");
    Case cases[] = {
        {oneWeight(""), ErrorCode::InvalidArgument, "empty location"},
        {oneWeight("folder"), ErrorCode::InvalidArgument, "is a folder"},
        {oneWeight("."), ErrorCode::InvalidArgument, "is a folder"},
        {oneWeight("/dev/zero"), ErrorCode::InvalidArgument, "absolute"},
        {oneWeight(std::string("w.bin\0/../../x", 14)), ErrorCode::InvalidArgument, "NUL"},
        {noLocation, ErrorCode::ParseError, "no 'location'"},
        {badOffset, ErrorCode::ParseError, "offset '-4'"},
        {badLength, ErrorCode::ParseError, "length '16 bytes'"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.text);
        Status s = loadIn(dir, c.b);
        EXPECT_EQ(s.code(), c.code) << s.toString();
        EXPECT_TRUE(contains(s.message(), "tensor 'w'"));
        EXPECT_TRUE(contains(s.message(), c.text));
    }
}

TEST(IoExternalData, FromBytesNeedsAFolder) {
    TempDir dir;
    FourWeights m;
    m.writeFiles(dir);
    std::string bytes = m.builder.serialize();
    auto none = Model::fromBytes(bytes.data(), bytes.size(), "in memory");
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.status().code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(contains(none.status().message(), "tensor 'a'"));
    EXPECT_TRUE(contains(none.status().message(), "'weights.bin'"));
    EXPECT_TRUE(contains(none.status().message(), "loaded from memory"));
    auto given = Model::fromBytes(bytes.data(), bytes.size(), "in memory", dir.path().string());
    ASSERT_TRUE(given.ok()) << given.status().toString();
    EXPECT_EQ(bytesOf(*constantOf(*given, "d")), bytesOf(m.d));
}

TEST(IoExternalData, ListOperatorsIgnoresExternalData) {
    TempDir dir;
    FourWeights m;
    writeFile(dir.file("model.onnx"), m.builder.serialize());  // data files absent
    auto ops = Model::listOperators(dir.file("model.onnx"));
    ASSERT_TRUE(ops.ok()) << ops.status().toString();
    EXPECT_EQ(*ops, (std::vector<std::string>{"Add", "Mul", "Add", "Add"}));
}

}  // namespace
}  // namespace vkinfer::testing
