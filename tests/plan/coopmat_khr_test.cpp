// The NV -> KHR cooperative-matrix translation of SPIR-V (vk/coopmat_khr.h): every tensor-core
// kernel the build embeds translates, into a module whose matrix types all carry a use that
// agrees with the multiply-adds; what the pass cannot translate safely is refused. No GPU.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/kernel_table.h"
#include "vk/coopmat_khr.h"
#include "vk/device_features.h"

namespace vkinfer::vk {
namespace {

constexpr uint32_t kTypeKhr = 4456, kLoadKhr = 4457, kStoreKhr = 4458, kMulAddKhr = 4459;
constexpr uint32_t kTypeNv = 5358, kLoadNv = 5359, kMulAddNv = 5361, kLengthNv = 5362;
constexpr uint32_t kCapability = 17, kConstant = 43, kSpecConstantOp = 52, kTypeInt = 21, kTypeFloat = 22;
constexpr uint32_t kCapNv = 5357, kCapKhr = 6022;

struct Inst {
    uint32_t op;
    std::vector<uint32_t> w;  // operands
};

std::vector<Inst> parse(const std::vector<uint32_t>& words) {
    std::vector<Inst> out;
    for (size_t at = 5; at < words.size();) {
        uint32_t n = words[at] >> 16;
        EXPECT_GT(n, 0u);
        if (n == 0 || at + n > words.size()) break;
        out.push_back({words[at] & 0xffffu, std::vector<uint32_t>(words.begin() + at + 1, words.begin() + at + n)});
        at += n;
    }
    return out;
}

// Checks the translated module's matrix structure; returns how many multiply-adds it has.
int checkKhrModule(const std::string& name, const std::vector<uint32_t>& words) {
    auto insts = parse(words);
    std::map<uint32_t, uint32_t> constants;  // id -> value
    std::map<uint32_t, uint32_t> matrixUse;  // KHR type id -> use
    std::set<uint32_t> capabilities;
    const uint32_t bound = words[3];
    int mulAdds = 0;
    for (const auto& in : insts) {
        if (in.op == kCapability) capabilities.insert(in.w[0]);
        if (in.op == kConstant && in.w.size() == 3) constants[in.w[1]] = in.w[2];
        if (in.op == kTypeNv || in.op == kLoadNv || in.op == kMulAddNv || in.op == kLengthNv || in.op == 5360)
            ADD_FAILURE() << name << ": NV opcode " << in.op << " left";
        if (in.op == kTypeKhr) {
            // result, component type, scope, rows, columns, use
            if (in.w.size() != 6u) { ADD_FAILURE() << name << ": matrix type without a use"; continue; }
            EXPECT_TRUE(constants.count(in.w[5])) << name << ": the use of matrix type %" << in.w[0] << " is not a constant";
            matrixUse[in.w[0]] = constants[in.w[5]];
            EXPECT_LT(matrixUse[in.w[0]], 3u) << name;
        }
        if (in.op == kLoadKhr) {
            EXPECT_TRUE(matrixUse.count(in.w[0])) << name;
            if (in.w.size() < 5u) { ADD_FAILURE() << name << ": short load"; continue; }
            EXPECT_TRUE(constants.count(in.w[3]) && constants[in.w[3]] <= 1) << name << ": load layout";
        }
        if (in.op == kStoreKhr) {
            if (in.w.size() < 4u) { ADD_FAILURE() << name << ": short store"; continue; }
            EXPECT_TRUE(constants.count(in.w[2]) && constants[in.w[2]] <= 1) << name << ": store layout";
        }
        if (in.op == kMulAddKhr) {
            ++mulAdds;
            EXPECT_EQ(matrixUse[in.w[0]], 2u) << name << ": multiply-add result is not an accumulator";
        }
    }
    EXPECT_TRUE(capabilities.count(kCapKhr)) << name;
    EXPECT_FALSE(capabilities.count(kCapNv)) << name;
    // Every result id the pass added lies below the header's bound.
    for (const auto& [type, use] : matrixUse) EXPECT_LT(type, bound) << name;
    return mulAdds;
}

TEST(CoopmatKhr, EveryTensorCoreKernelTranslates) {
    int kernels = 0;
    for (const auto& k : kernels::table()) {
        if (!usesCooperativeMatrixNv(k.code, k.words)) continue;
        ++kernels;
        CoopmatTranslation t = translateCoopmatNvToKhr(k.code, k.words);
        ASSERT_FALSE(t.words.empty()) << k.name << ": " << t.error;
        EXPECT_GT(checkKhrModule(std::string(k.name), t.words), 0) << k.name << " has no multiply-add";
        // What the device must enable follows: the KHR feature, not the NV one.
        KernelNeeds n = spirvNeeds(t.words.data(), t.words.size());
        EXPECT_TRUE(n.valid) << k.name;
        EXPECT_TRUE(n.features.has(Feature::CooperativeMatrixKHR)) << k.name;
        EXPECT_FALSE(n.features.has(Feature::CooperativeMatrixNV)) << k.name;
    }
    // conv2d_cm and gemm_cm variants, NV form (the emulated ones have no matrices).
    EXPECT_GE(kernels, 24);
}

TEST(CoopmatKhr, KernelsWithoutMatricesComeBackUnchanged) {
    const kernels::KernelBlob* k = &kernels::blob(kernels::KernelId::gemm_cm64_va_vb_emu);
    EXPECT_FALSE(usesCooperativeMatrixNv(k->code, k->words));
    CoopmatTranslation t = translateCoopmatNvToKhr(k->code, k->words);
    EXPECT_EQ(t.words, std::vector<uint32_t>(k->code, k->code + k->words));
}

// A hand-made module (not valid for a driver; enough for the pass): header, the capability,
// uint, half, float, constants, the matrix types (of `scope`: 3 subgroup, 2 workgroup), then
// `body`.
std::vector<uint32_t> synthetic(const std::vector<Inst>& body, uint32_t scope = 3) {
    std::vector<Inst> all = {
        {kCapability, {kCapNv}},
        {kTypeInt, {1, 32, 0}},
        {kTypeFloat, {2, 16}},
        {kTypeFloat, {3, 32}},
        {kConstant, {1, 4, scope}},
        {kConstant, {1, 5, 16}},  // rows, columns
        {kTypeNv, {6, 2, 4, 5, 5}},  // half 16x16
        {kTypeNv, {7, 3, 4, 5, 5}},  // float 16x16
    };
    all.insert(all.end(), body.begin(), body.end());
    std::vector<uint32_t> w = {0x07230203u, 0x00010500u, 0u, 100u, 0u};
    for (const auto& in : all) {
        w.push_back(static_cast<uint32_t>(in.w.size() + 1) << 16 | in.op);
        w.insert(w.end(), in.w.begin(), in.w.end());
    }
    return w;
}

TEST(CoopmatKhr, OneValueAsBothOperandsIsRefused) {
    // %10 = load (half), %11 = load (float), %12 = muladd %10 %10 %11: %10 would need A and B.
    auto m = synthetic({{kLoadNv, {6, 10, 50, 5, 51}}, {kLoadNv, {7, 11, 50, 5, 51}}, {kMulAddNv, {7, 12, 10, 10, 11}}});
    CoopmatTranslation t = translateCoopmatNvToKhr(m.data(), m.size());
    EXPECT_TRUE(t.words.empty());
    EXPECT_NE(t.error.find("both as matrix A and as matrix B"), std::string::npos) << t.error;
}

TEST(CoopmatKhr, LengthIsRefused) {
    auto m = synthetic({{kSpecConstantOp, {1, 10, kLengthNv, 7}}});
    CoopmatTranslation t = translateCoopmatNvToKhr(m.data(), m.size());
    EXPECT_TRUE(t.words.empty());
    EXPECT_NE(t.error.find("OpCooperativeMatrixLengthNV"), std::string::npos) << t.error;
}

TEST(CoopmatKhr, NonConstantLayoutIsRefused) {
    // The column-major operand %51 is no boolean constant.
    auto m = synthetic({{kLoadNv, {6, 10, 50, 5, 51}}, {kLoadNv, {6, 13, 50, 5, 51}}, {kLoadNv, {7, 11, 50, 5, 51}},
                        {kMulAddNv, {7, 12, 10, 13, 11}}});
    CoopmatTranslation t = translateCoopmatNvToKhr(m.data(), m.size());
    EXPECT_TRUE(t.words.empty());
    EXPECT_NE(t.error.find("not a boolean constant"), std::string::npos) << t.error << " / " << t.words.size();
}

TEST(CoopmatKhr, SplitsOneNvTypeIntoAandBTypes) {
    // Same as above with constant false layouts: A and B share NV type %6 and come out as two
    // KHR types of uses 0 and 1; the accumulator %7 as one of use 2.
    auto m = synthetic({{42, {8, 51}},  // %51 = OpConstantFalse (of a type %8 the pass does not read)
                        {kLoadNv, {6, 10, 50, 5, 51}},
                        {kLoadNv, {6, 13, 50, 5, 51}},
                        {kLoadNv, {7, 11, 50, 5, 51}},
                        {kMulAddNv, {7, 12, 10, 13, 11}}});
    CoopmatTranslation t = translateCoopmatNvToKhr(m.data(), m.size());
    ASSERT_FALSE(t.words.empty()) << t.error;
    std::map<uint32_t, uint32_t> constants, use;
    std::map<uint32_t, uint32_t> typeOfLoad;
    for (const auto& in : parse(t.words)) {
        if (in.op == kConstant) constants[in.w[1]] = in.w[2];
        if (in.op == kTypeKhr) use[in.w[0]] = constants.at(in.w[5]);
        if (in.op == kLoadKhr) typeOfLoad[in.w[1]] = in.w[0];
        if (in.op == kMulAddKhr) {
            EXPECT_EQ(use.at(typeOfLoad.at(in.w[2])), 0u);
            EXPECT_EQ(use.at(typeOfLoad.at(in.w[3])), 1u);
            EXPECT_EQ(use.at(typeOfLoad.at(in.w[4])), 2u);
            EXPECT_EQ(use.at(in.w[0]), 2u);
        }
    }
    EXPECT_EQ(use.size(), 3u);
    EXPECT_GT(t.words[3], 100u);  // the bound grew by the new types and constants
}

TEST(CoopmatKhr, KeepsTheScopeOfTheMatrixTypes) {
    // Workgroup-scope matrices (VK_NV_cooperative_matrix2; glslc accepts gl_ScopeWorkgroup in
    // GL_NV_cooperative_matrix types) keep their scope: bench/variants/coopmat2 relies on it.
    for (uint32_t scope : {2u, 3u}) {
        auto m = synthetic({{42, {8, 51}},
                            {kLoadNv, {6, 10, 50, 5, 51}},
                            {kLoadNv, {6, 13, 50, 5, 51}},
                            {kLoadNv, {7, 11, 50, 5, 51}},
                            {kMulAddNv, {7, 12, 10, 13, 11}}},
                           scope);
        CoopmatTranslation t = translateCoopmatNvToKhr(m.data(), m.size());
        ASSERT_FALSE(t.words.empty()) << t.error;
        std::map<uint32_t, uint32_t> constants;
        int types = 0;
        for (const auto& in : parse(t.words)) {
            if (in.op == kConstant) constants[in.w[1]] = in.w[2];
            if (in.op == kTypeKhr) {
                ++types;
                EXPECT_EQ(constants.at(in.w[2]), scope) << "matrix type %" << in.w[0];
            }
        }
        EXPECT_EQ(types, 3);
    }
}

}  // namespace
}  // namespace vkinfer::vk
