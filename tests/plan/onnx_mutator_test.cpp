// The fuzzer's model mutator (tests/fuzz/onnx_mutator.h), in the ordinary build: its mutants
// of a few seed models must mostly still import and plan (else the fuzzer would only test
// the parser), and planning every one of them must end in a plan or a clean Error, never an
// internal error or another exception: a small deterministic fuzzing run in every test pass.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "fuzz/onnx_mutator.h"
#include "fuzz/plan_model_bytes.h"
#include "passes/specialize.h"

namespace vkinfer {
namespace {

std::string readSeed(const std::string& name) {
    std::ifstream f(std::string(VKINFER_SOURCE_DIR) + "/tests/fuzz/corpus/fuzz_onnx/" + name, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// libFuzzer's byte mutation stands in as a flip of one byte.
size_t flipOneByte(uint8_t* data, size_t size, size_t) {
    if (size) data[(size * 7919) / 10007 % size] ^= 0x20;
    return size;
}

// fuzz_onnx's 1 MiB folding budget for one test (mutants may fold big constants), the default
// back after it: the tests of the folding limits that run after it in one process
// (PlanLimits.*) read it.
struct FuzzFoldBudget {
    FuzzFoldBudget() { passes::setMinFoldBudgetForTesting(int64_t{1} << 20); }
    ~FuzzFoldBudget() { passes::setMinFoldBudgetForTesting(0); }
};

TEST(OnnxMutator, MutantsStillPlanAndFailCleanly) {
    const FuzzFoldBudget budget;
    const std::vector<std::string> seeds = {"espcn_x2.onnx", "pytorch_test_Conv2d.onnx", "pytorch_test_Embedding.onnx",
                                            "pytorch_test_Softmax.onnx", "test_add_bcast.onnx"};
    constexpr int kMutants = 3000;
    int changed = 0, imported = 0, planned = 0;
    for (const auto& name : seeds) {
        const std::string seed = readSeed(name);
        ASSERT_FALSE(seed.empty()) << "seed " << name << " is missing";
        std::string current = seed;
        for (int i = 0; i < kMutants / static_cast<int>(seeds.size()); ++i) {
            if (i % 4 == 0) current = seed;  // chains of up to four mutation steps
            std::vector<uint8_t> buf(current.begin(), current.end());
            buf.resize(current.size() * 2 + 4096);
            size_t size = fuzz::mutateOnnxBytes(buf.data(), current.size(), buf.size(), static_cast<unsigned>(i * 31 + 7),
                                                flipOneByte);
            buf.resize(size);
            std::string mutant(buf.begin(), buf.end());
            changed += mutant != current;
            current = mutant;
            try {
                fuzz::planModelBytes(buf.data(), buf.size());
                ++planned;
                ++imported;
            } catch (const Error& e) {
                ASSERT_NE(e.status().code(), ErrorCode::Internal)
                    << name << " mutant " << i << ": " << e.status().toString();
                imported += e.status().code() != ErrorCode::ParseError;  // arity, cycles, names are ParseErrors too
            }
        }
    }
    const int total = kMutants / static_cast<int>(seeds.size()) * static_cast<int>(seeds.size());
    EXPECT_GT(changed, total * 9 / 10) << "mutants equal to their parent";
    // Measured 2026-12-03: 2948 of 3000 changed, 1170 past the importer's checks, 840 planned.
    EXPECT_GT(imported, total / 4) << "mutants past the importer (parse and structure checks)";
    EXPECT_GT(planned, total / 10) << "mutants that still plan";
    std::printf("%d mutants: %d changed, %d parsed, %d planned\n", total, changed, imported, planned);
}

// Every input a fuzzer once failed on (tests/fuzz/corpus/fuzz_onnx/crash-*) now plans or
// ends in a clean error; the ones of the model mutator name what is wrong. (Under the
// sanitizers, scripts/sanitize-and-fuzz.sh, this also catches the undefined behaviour
// they once hit.)
TEST(FuzzFindings, CrashInputsEndInCleanErrors) {
    const FuzzFoldBudget budget;
    const std::vector<std::pair<std::string, std::string>> named = {
        {"crash-concat-of-scalars.onnx", "needs an input of rank 1 or more, got a scalar"},
        {"crash-clip-bound-of-higher-rank.onnx", "more dimensions than the input"},
        {"crash-depth-to-space-huge-blocksize.onnx", "blocksize value 9223372036854775807 is outside"},
        {"crash-conv-geometry-division-by-zero.onnx", "kernel size (weight dims) value 0 is outside"},
    };
    int crashes = 0;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(VKINFER_SOURCE_DIR) +
                                                                 "/tests/fuzz/corpus/fuzz_onnx")) {
        if (entry.path().filename().string().rfind("crash-", 0) != 0) continue;
        ++crashes;
        const std::string bytes = readSeed(entry.path().filename().string());
        try {
            fuzz::planModelBytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
        } catch (const Error& e) {
            EXPECT_NE(e.status().code(), ErrorCode::Internal) << entry.path() << ": " << e.status().toString();
        }
    }
    EXPECT_GE(crashes, 10);  // the files are there (a path or glob mistake would skip them all)
    for (const auto& [file, words] : named) {
        const std::string bytes = readSeed(file);
        ASSERT_FALSE(bytes.empty()) << file;
        try {
            fuzz::planModelBytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
            ADD_FAILURE() << file << " planned";
        } catch (const Error& e) {
            EXPECT_EQ(e.status().code(), ErrorCode::ShapeError) << file << ": " << e.status().toString();
            EXPECT_NE(e.status().message().find(words), std::string::npos) << file << ": " << e.status().toString();
        }
    }
}

}  // namespace
}  // namespace vkinfer
