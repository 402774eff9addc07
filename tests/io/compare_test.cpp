// compareTensors tolerance semantics, and the ONNX backend-test data layout.
#include <gtest/gtest.h>
#include <vkinfer/vkinfer.h>

#include <cmath>
#include <limits>

#include "io/io_test_util.h"
#include "support/onnx_builder.h"

namespace vkinfer::testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(IoCompare, IdenticalTensorsPass) {
    Tensor a = randomTensor({3, 4}, 1);
    Comparison c = compareTensors(a, a);
    EXPECT_TRUE(c.pass);
    EXPECT_EQ(c.maxAbsError, 0);
    EXPECT_EQ(c.mismatches, 0);
    EXPECT_EQ(c.worstIndex, -1);
    EXPECT_TRUE(c.problem.empty());
}

TEST(IoCompare, AtolIsRelativeToMaxAbsReferenceByDefault) {
    // max|ref| = 100, so atol 1e-4 allows 0.01 everywhere (rtol 0 to isolate it), even
    // on an element whose reference is 0.
    Tensor ref = floatTensor({3}, {-100.0f, 0.0f, 5.0f});
    Tolerance tol{0.0, 1e-4, true};
    Comparison ok = compareTensors(floatTensor({3}, {-100.0f, 0.009f, 5.0f}), ref, tol);
    EXPECT_TRUE(ok.pass);
    EXPECT_DOUBLE_EQ(ok.maxAbsExpected, 100.0);
    EXPECT_NEAR(ok.atolUsed, 0.01, 1e-12);
    EXPECT_NEAR(ok.maxAbsError, 0.009, 1e-6);

    Comparison bad = compareTensors(floatTensor({3}, {-100.0f, 0.011f, 5.0f}), ref, tol);
    EXPECT_FALSE(bad.pass);
    EXPECT_EQ(bad.mismatches, 1);
    EXPECT_EQ(bad.worstIndex, 1);
    EXPECT_TRUE(bad.problem.empty());  // a value mismatch, not a structural one
}

TEST(IoCompare, AbsoluteAtol) {
    Tensor ref = floatTensor({2}, {100.0f, 0.0f});
    Tolerance tol{0.0, 1e-4, false};
    EXPECT_NEAR(compareTensors(ref, ref, tol).atolUsed, 1e-4, 1e-12);
    EXPECT_TRUE(compareTensors(floatTensor({2}, {100.0f, 0.00009f}), ref, tol).pass);
    EXPECT_FALSE(compareTensors(floatTensor({2}, {100.0f, 0.0002f}), ref, tol).pass);
}

TEST(IoCompare, RtolScalesWithEachElement) {
    Tensor ref = floatTensor({2}, {1000.0f, 1.0f});
    Tolerance tol{1e-3, 0.0, false};
    EXPECT_TRUE(compareTensors(floatTensor({2}, {1000.9f, 1.0009f}), ref, tol).pass);
    Comparison c = compareTensors(floatTensor({2}, {1000.5f, 1.002f}), ref, tol);
    EXPECT_FALSE(c.pass);
    EXPECT_EQ(c.mismatches, 1);
    EXPECT_EQ(c.worstIndex, 1);  // 0.002 > 0.001 on the small element; 0.5 < 1 on the large one
}

TEST(IoCompare, WorstIndexIsTheLargestErrorRelativeToItsBound) {
    Tensor ref = floatTensor({3}, {1000.0f, 1.0f, 10.0f});
    Tolerance tol{1e-3, 0.0, false};
    // Errors 3 (bound 1), 0.01 (bound 0.001), 0.02 (bound 0.01): the middle one is 10x over.
    Comparison c = compareTensors(floatTensor({3}, {1003.0f, 1.01f, 10.02f}), ref, tol);
    EXPECT_EQ(c.mismatches, 3);
    EXPECT_EQ(c.worstIndex, 1);
    EXPECT_NEAR(c.maxAbsError, 3.0, 1e-4);
}

TEST(IoCompare, NaNHandling) {
    Tensor ref = floatTensor({3}, {1.0f, kNaN, 2.0f});
    EXPECT_TRUE(compareTensors(floatTensor({3}, {1.0f, kNaN, 2.0f}), ref).pass);  // NaN matches NaN
    Comparison a = compareTensors(floatTensor({3}, {kNaN, kNaN, 2.0f}), ref);     // NaN where a number is due
    EXPECT_FALSE(a.pass);
    EXPECT_EQ(a.worstIndex, 0);
    EXPECT_TRUE(std::isinf(a.maxAbsError));
    Comparison b = compareTensors(floatTensor({3}, {1.0f, 0.0f, 2.0f}), ref);  // a number where NaN is due
    EXPECT_FALSE(b.pass);
    EXPECT_EQ(b.worstIndex, 1);
    // NaN in the reference does not poison the scale.
    EXPECT_DOUBLE_EQ(b.maxAbsExpected, 2.0);
}

TEST(IoCompare, InfinityHandling) {
    Tensor ref = floatTensor({3}, {kInf, -kInf, 1000.0f});
    EXPECT_TRUE(compareTensors(floatTensor({3}, {kInf, -kInf, 1000.0f}), ref).pass);
    EXPECT_FALSE(compareTensors(floatTensor({3}, {-kInf, -kInf, 1000.0f}), ref).pass);
    EXPECT_FALSE(compareTensors(floatTensor({3}, {1e30f, -kInf, 1000.0f}), ref).pass);
    // The finite elements keep their scale: max|ref| over finite values is 1000, so an
    // error of 0.05 on the third element is inside atol = 1e-4 * 1000 = 0.1.
    Comparison c = compareTensors(floatTensor({3}, {kInf, -kInf, 1000.05f}), ref, {0.0, 1e-4, true});
    EXPECT_DOUBLE_EQ(c.maxAbsExpected, 1000.0);
    EXPECT_TRUE(c.pass) << "atol used " << c.atolUsed;
}

TEST(IoCompare, ShapeMismatch) {
    Comparison c = compareTensors(Tensor(DataType::Float32, {2, 3}), Tensor(DataType::Float32, {3, 2}));
    EXPECT_FALSE(c.pass);
    EXPECT_TRUE(contains(c.problem, "2x3"));
    EXPECT_TRUE(contains(c.problem, "3x2"));
    // Same element count, different rank.
    EXPECT_FALSE(compareTensors(Tensor(DataType::Float32, {6}), Tensor(DataType::Float32, {1, 6})).pass);
    EXPECT_FALSE(compareTensors(Tensor(DataType::Float32, {}), Tensor(DataType::Float32, {1})).pass);
}

TEST(IoCompare, TypeMismatch) {
    Comparison c = compareTensors(Tensor(DataType::Int64, {2}), Tensor(DataType::Float32, {2}));
    EXPECT_FALSE(c.pass);
    EXPECT_TRUE(contains(c.problem, "int64"));
    EXPECT_TRUE(contains(c.problem, "float32"));
    EXPECT_FALSE(compareTensors(Tensor(DataType::Float32, {2}), Tensor(DataType::Bool, {2})).pass);
}

// A reference of another element type, float widths included, is a mismatch to report, not a
// comparison by value (a float64 reference against a float32 output used to pass).
TEST(IoCompare, ElementTypesMustAgree) {
    Tensor half(DataType::Float16, {2});
    half.as<uint16_t>()[0] = 0x3c00;  // 1.0
    half.as<uint16_t>()[1] = 0xc000;  // -2.0
    Comparison c = compareTensors(half, floatTensor({2}, {1.0f, -2.0f}));
    EXPECT_FALSE(c.pass);
    EXPECT_EQ(c.problem, "type float16 differs from the expected float32");
    Tensor wide(DataType::Float64, {2});
    wide.as<double>()[0] = 1.0;
    wide.as<double>()[1] = -2.0;
    EXPECT_FALSE(compareTensors(floatTensor({2}, {1.0f, -2.0f}), wide).pass);
    EXPECT_TRUE(compareTensors(half, half).pass);
}

TEST(IoCompare, IntegersMustMatchExactly) {
    // Tolerances do not apply to integers, however loose.
    Tolerance loose{0.5, 0.5, true};
    Tensor ref = int64Tensor({3}, {(int64_t{1} << 53) + 1, -7, 1000000});
    EXPECT_TRUE(compareTensors(ref, ref, loose).pass);
    Comparison c = compareTensors(int64Tensor({3}, {int64_t{1} << 53, -7, 1000000}), ref, loose);
    EXPECT_FALSE(c.pass);  // differs only beyond double precision
    EXPECT_EQ(c.mismatches, 1);
    EXPECT_EQ(c.worstIndex, 0);
    EXPECT_EQ(c.atolUsed, 0);
    EXPECT_FALSE(compareTensors(int64Tensor({3}, {(int64_t{1} << 53) + 1, -7, 1000001}), ref, loose).pass);

    Tensor b1 = Tensor::fromVector<uint8_t>(DataType::Bool, {3}, {1, 0, 1});
    Tensor b2 = Tensor::fromVector<uint8_t>(DataType::Bool, {3}, {1, 1, 1});
    EXPECT_TRUE(compareTensors(b1, b1).pass);
    EXPECT_FALSE(compareTensors(b2, b1).pass);
}

TEST(IoCompare, EmptyTensorsPass) {
    EXPECT_TRUE(compareTensors(Tensor(DataType::Float32, {0, 3}), Tensor(DataType::Float32, {0, 3})).pass);
}

// ---- test data sets ----

Model oneInputModel() {
    OnnxBuilder b;
    b.input("x", {1, 2});
    b.node("Relu", {"x"}, {"y"});
    b.output("y");
    return std::move(b.build()).value();
}

Model twoInputModel() {
    OnnxBuilder b;
    b.input("a", {1, 2});
    b.input("b", {1, 2});
    b.node("Add", {"a", "b"}, {"y"});
    b.output("y");
    return std::move(b.build()).value();
}

TEST(IoTestDataSet, MissingFolderIsNotFound) {
    TempDir dir;
    auto ds = loadTestDataSet(dir.file("test_data_set_0"), oneInputModel());
    ASSERT_FALSE(ds.ok());
    EXPECT_EQ(ds.status().code(), ErrorCode::NotFound);
    EXPECT_TRUE(contains(ds.status().message(), dir.file("test_data_set_0")));
}

TEST(IoTestDataSet, LoadsInputsAndOutputsByIndex) {
    TempDir dir;
    std::string set = dir.file("test_data_set_0");
    std::filesystem::create_directories(set);
    ASSERT_TRUE(saveTensorProto(set + "/input_0.pb", floatTensor({1, 2}, {-1, 2})).ok());
    ASSERT_TRUE(saveTensorProto(set + "/output_0.pb", floatTensor({1, 2}, {0, 2})).ok());
    auto ds = loadTestDataSet(set, oneInputModel());
    ASSERT_TRUE(ds.ok()) << ds.status().toString();
    EXPECT_EQ(ds->path, set);
    ASSERT_EQ(ds->inputs.size(), 1u);
    EXPECT_EQ(ds->inputs[0].name, "x");  // unnamed file: matched by index
    EXPECT_EQ(ds->inputs[0].tensor.getDouble(0), -1.0);
    ASSERT_EQ(ds->outputs.size(), 1u);
    EXPECT_EQ(ds->outputs[0].name, "y");
}

TEST(IoTestDataSet, NamedFilesMatchByName) {
    TempDir dir;
    std::string set = dir.file("test_data_set_0");
    std::filesystem::create_directories(set);
    // input_0.pb holds 'b' and input_1.pb holds 'a'.
    ASSERT_TRUE(saveTensorProto(set + "/input_0.pb", floatTensor({1, 2}, {20, 20}), "b").ok());
    ASSERT_TRUE(saveTensorProto(set + "/input_1.pb", floatTensor({1, 2}, {10, 10}), "a").ok());
    ASSERT_TRUE(saveTensorProto(set + "/output_0.pb", floatTensor({1, 2}, {30, 30}), "y").ok());
    auto ds = loadTestDataSet(set, twoInputModel());
    ASSERT_TRUE(ds.ok()) << ds.status().toString();
    ASSERT_EQ(ds->inputs.size(), 2u);
    for (const auto& in : ds->inputs) EXPECT_EQ(in.tensor.getDouble(0), in.name == "a" ? 10.0 : 20.0) << in.name;
}

TEST(IoTestDataSet, MismatchedFileCount) {
    TempDir dir;
    std::string set = dir.file("test_data_set_0");
    std::filesystem::create_directories(set);
    ASSERT_TRUE(saveTensorProto(set + "/input_0.pb", floatTensor({1, 2}, {1, 2})).ok());
    ASSERT_TRUE(saveTensorProto(set + "/output_0.pb", floatTensor({1, 2}, {1, 2})).ok());
    // One input file for a two-input model.
    auto ds = loadTestDataSet(set, twoInputModel());
    ASSERT_FALSE(ds.ok());
    EXPECT_TRUE(contains(ds.status().message(), set));
    EXPECT_TRUE(contains(ds.status().message(), "1 input_*.pb"));
    EXPECT_TRUE(contains(ds.status().message(), "2 inputs"));
    // Two output files for a one-output model.
    ASSERT_TRUE(saveTensorProto(set + "/output_1.pb", floatTensor({1, 2}, {1, 2})).ok());
    auto ds2 = loadTestDataSet(set, oneInputModel());
    ASSERT_FALSE(ds2.ok());
    EXPECT_TRUE(contains(ds2.status().message(), "output"));
    // No output files at all.
    std::filesystem::remove(set + "/output_0.pb");
    std::filesystem::remove(set + "/output_1.pb");
    EXPECT_FALSE(loadTestDataSet(set, oneInputModel()).ok());
}

TEST(IoTestDataSet, CorruptFileNamesTheFile) {
    TempDir dir;
    std::string set = dir.file("test_data_set_0");
    ASSERT_TRUE(std::filesystem::create_directories(set));
    writeFile(set + "/input_0.pb", "\xff\xff\xff garbage");
    ASSERT_TRUE(saveTensorProto(set + "/output_0.pb", floatTensor({1, 2}, {1, 2})).ok());
    auto ds = loadTestDataSet(set, oneInputModel());
    ASSERT_FALSE(ds.ok());
    EXPECT_EQ(ds.status().code(), ErrorCode::ParseError);
    EXPECT_TRUE(contains(ds.status().message(), "input_0.pb"));
}

TEST(IoTestDataSet, ListSortsNumericallyAndIgnoresOtherEntries) {
    TempDir dir;
    for (const char* d : {"test_data_set_10", "test_data_set_2", "test_data_set_0", "other_folder"})
        std::filesystem::create_directories(dir.file(d));
    writeFile(dir.file("test_data_set_5"), "a file, not a folder");
    auto sets = listTestDataSets(dir.path().string());
    ASSERT_EQ(sets.size(), 3u);
    EXPECT_EQ(std::filesystem::path(sets[0]).filename(), "test_data_set_0");
    EXPECT_EQ(std::filesystem::path(sets[1]).filename(), "test_data_set_2");
    EXPECT_EQ(std::filesystem::path(sets[2]).filename(), "test_data_set_10");
    EXPECT_TRUE(listTestDataSets(dir.file("missing")).empty());
}

}  // namespace
}  // namespace vkinfer::testing
