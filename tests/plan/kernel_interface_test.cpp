// The two sides of every kernel's interface held against the SPIR-V that runs (no GPU):
// each declaration of shaders/kernels/*.toml against its compiled variants (push-constant
// bytes, specialization constant ids), and every dispatch that planning emits, over the ONNX
// node tests, the bundled models, the shared models where present and convolutions chosen to
// reach every kernel family, on described devices, against its kernel's module (push bytes,
// bindings, the specialization constants it sets, the shared memory its declarations take with
// them against the device's), and the shared memory the attention selection computes against
// what its kernel declares.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/kernel_table.h"
#include "kernels/families/attention_cm.h"
#include "ops/attention_select.h"
#include "passes/specialize.h"
#include "plan/compile.h"
#include "runtime/model_data.h"
#include "support/gpu_context.h"
#include "support/attention_models.h"
#include "support/onnx_builder.h"
#include "vk/spirv_interface.h"
#include "vk/spirv_shared_memory.h"
#include "vkinfer/compare.h"

namespace vkinfer {
namespace {

namespace fs = std::filesystem;
using kernels::KernelId;

const vk::SpirvInterface& reflected(KernelId id) {
    static std::map<KernelId, vk::SpirvInterface> cache;
    auto it = cache.find(id);
    if (it == cache.end()) {
        const kernels::KernelBlob& b = kernels::blob(id);
        it = cache.emplace(id, vk::spirvInterface(b.code, b.words)).first;
    }
    return it->second;
}

TEST(KernelInterface, DeclarationsMatchTheirSpirv) {
    size_t declared = 0;
    for (size_t i = 0; i < kernels::kKernelCount; ++i) {
        const auto id = static_cast<KernelId>(i);
        const std::string name(kernels::kernelName(id));
        const vk::SpirvInterface& s = reflected(id);
        ASSERT_TRUE(s.valid) << name << ": " << s.problem;
        EXPECT_LE(s.pushConstantBytes, kernels::kMaxPushConstantBytes) << name;
        const kernels::KernelInterface& d = kernels::declaredInterface(id);
        if (!d.declared) continue;
        ++declared;
        EXPECT_EQ(s.pushConstantBytes, d.pushBytes) << name << ": the push block of the shader and of its declaration";
        // (The optimizer drops what a variant does not use: a split-K variant stores no shuffle.)
        const std::set<uint32_t> declaredIds(d.specIds.begin(), d.specIds.end());
        for (uint32_t sid : s.specIds) {
            if (sid >= 6) {
                EXPECT_TRUE(declaredIds.count(sid)) << name << ": specialization constant " << sid << " is not declared";
            }
        }
    }
    EXPECT_EQ(declared, kernels::kKernelCount) << "every family declares its interface";
}

// What planning emits for one model on one described device.
struct Target {
    const char* name;
    DeviceFacts facts;
    KernelPolicy kernels;
};

std::vector<Target> targets() {
    DeviceFacts h200;
    h200.gpu = true;
    h200.cooperativeMatrix16 = true;
    h200.subgroupSize = 32;
    h200.sharedMemoryBytes = 48 * 1024;
    h200.float16Arithmetic = true;
    h200.storageBufferOffsetAlignment = 16;
    DeviceFacts lavapipe;
    lavapipe.subgroupSize = 8;
    lavapipe.sharedMemoryBytes = 32 * 1024;
    lavapipe.float16Arithmetic = true;
    KernelPolicy emulated, always, off;
    emulated.emulateCooperativeMatrix = true;
    emulated.attentionKeySplit = true;
    always.directConv = DirectConv::Always;
    always.attentionKeySplit = true;
    off.directConv = DirectConv::Off;
    return {{"undescribed", {}, {}},  {"lavapipe", lavapipe, {}},   {"lavapipe emulating", lavapipe, emulated},
            {"h200", h200, {}},       {"h200 always", h200, always}, {"h200 off", h200, off}};
}

struct Checked {
    size_t dispatches = 0;
    std::set<std::string> kernels;
};

void checkPlan(const Model& model, const InputShapes& shapes, const std::vector<NamedTensor>& values,
               const std::string& what, Checked* checked) {
    for (const Target& t : targets())
        for (Precision precision : {Precision::Float32, Precision::Float16}) {
            PlanOptions o;
            o.device = t.facts;
            o.kernels = t.kernels;
            o.precision = precision;
            plan::CompiledPlan p;
            try {
                auto resolved = model.resolveShapes(shapes);
                if (!resolved.ok()) return;
                p = plan::compilePlan(model.data()->graph, *resolved, o, values);
            } catch (const Error&) {
                continue;  // unsupported here: nothing dispatched
            }
            for (const ops::Dispatch& d : p.dispatches) {
                const std::string kernel(kernels::kernelName(d.kernel));
                const vk::SpirvInterface& s = reflected(d.kernel);
                const std::string where = what + " (" + t.name + (precision == Precision::Float16 ? ", fp16" : "") +
                                          "): " + kernel;
                EXPECT_EQ(d.push.size(), s.pushConstantBytes) << where << ": push-constant bytes";
                // Every binding the kernel uses is bound (the optimizer drops unused ones: a
                // split-K variant reads no bias).
                for (uint32_t b : s.bindings) EXPECT_LT(b, d.bindings.size()) << where << ": binding " << b << " unbound";
                // Every constant set is one the declaration names (or the shared 3-5).
                const kernels::KernelInterface& decl = kernels::declaredInterface(d.kernel);
                if (decl.declared) {
                    for (size_t i = 3; i < d.spec.size(); ++i) {
                        if (d.spec[i] != 0) {
                            EXPECT_NE(std::find(decl.specIds.begin(), decl.specIds.end(), i + 3), decl.specIds.end())
                                << where << ": sets specialization constant " << i + 3 << ", which it does not declare";
                        }
                    }
                }
                // The shared memory its declarations take with the constants it sets fits the
                // device (vk::PipelineCache passes the local size as ids 0-2, then d.spec).
                std::vector<uint32_t> values(d.localSize.begin(), d.localSize.end());
                values.insert(values.end(), d.spec.begin(), d.spec.end());
                const kernels::KernelBlob& blob = kernels::blob(d.kernel);
                const vk::SharedMemoryBytes shared = vk::spirvSharedMemoryBytes(blob.code, blob.words, values);
                if (shared.bytes)
                    EXPECT_LE(*shared.bytes, t.facts.sharedMemoryBytes) << where << ": shared memory";
                else
                    ADD_FAILURE() << where << ": shared memory not read: " << shared.error;
                ++checked->dispatches;
                checked->kernels.insert(kernel);
            }
        }
}

void checkFolder(const fs::path& dir, Checked* checked) {
    auto model = Model::load((dir / "model.onnx").string());
    if (!model.ok()) return;
    InputShapes shapes;
    std::vector<NamedTensor> values;
    const auto sets = listTestDataSets(dir.string());
    if (!sets.empty()) {
        auto data = loadTestDataSet(sets[0], *model);
        if (!data.ok()) return;
        for (const auto& in : data->inputs) shapes.push_back({in.name, in.tensor.shape()});
        const auto& g = model->data()->graph;
        for (int v : passes::valueInputs(g))
            for (const auto& in : data->inputs)
                if (in.name == g.values[v].name) values.push_back(in);
    }
    checkPlan(*model, shapes, values, dir.filename().string(), checked);
}

// Convolutions that reach every family on the described devices (conv/select.h).
void checkConvolutions(Checked* checked) {
    struct C {
        int64_t n, c, h, w, m, k, stride, groups;
        bool residual, shuffle;
    };
    const C cases[] = {{1, 3, 64, 64, 16, 3, 1, 1, false, false},     {1, 3, 96, 160, 64, 5, 1, 1, false, false},
                       {1, 64, 135, 240, 32, 3, 1, 1, false, false},  {1, 32, 64, 64, 12, 3, 1, 1, false, true},
                       {1, 64, 56, 56, 64, 3, 1, 1, true, false},     {8, 128, 28, 28, 128, 3, 1, 1, false, false},
                       {1, 512, 7, 7, 512, 3, 1, 1, true, false},     {1, 256, 14, 14, 1024, 1, 1, 1, false, false},
                       {1, 116, 14, 14, 116, 1, 1, 1, false, false},  {1, 144, 1, 1, 6, 1, 1, 1, false, false},
                       {1, 144, 28, 28, 144, 3, 2, 144, false, false}, {1, 64, 28, 28, 64, 3, 1, 2, false, false},
                       {1, 128, 56, 56, 32, 3, 1, 1, false, false},   {1, 3, 224, 224, 64, 7, 2, 1, false, false}};
    for (const C& c : cases) {
        testing::OnnxBuilder b;
        const int64_t oh = (c.h + 2 * (c.k / 2) - c.k) / c.stride + 1, ow = (c.w + 2 * (c.k / 2) - c.k) / c.stride + 1;
        b.input("x", {c.n, c.c, c.h, c.w}).output("y");
        b.initializer("w", Tensor(DataType::Float32, {c.m, c.c / c.groups, c.k, c.k}));
        b.initializer("b", Tensor(DataType::Float32, {c.m}));
        auto& conv = b.node("Conv", {"x", "w", "b"}, {c.residual || c.shuffle ? "c" : "y"});
        testing::attr(conv, "pads", std::vector<int64_t>(4, c.k / 2));
        testing::attr(conv, "strides", std::vector<int64_t>{c.stride, c.stride});
        testing::attr(conv, "group", c.groups);
        if (c.residual) {
            b.input("r", {c.n, c.m, oh, ow});
            b.node("Add", {"c", "r"}, {"y"});
        }
        if (c.shuffle) testing::attr(b.node("DepthToSpace", {"c"}, {"y"}), "blocksize", int64_t{2});
        auto model = b.build();
        ASSERT_TRUE(model.ok()) << model.status().toString();
        checkPlan(*model, {}, {}, "conv " + std::to_string(c.c) + "->" + std::to_string(c.m), checked);
    }
}

// Products that reach both GEMM families (gemm/select.h): a transformer's projections of 197
// rows (64-row tiles), 1024 rows (128-row tiles, whole tiles), 49 rows with a long reduction
// (64 columns, split-K), batched attention scores, each with a bias row and a residual, so
// that the check does not depend on the shared models being there.
void checkProducts(Checked* checked) {
    struct P {
        int64_t batch, m, k, n;
    };
    for (const P& c : {P{1, 197, 768, 2304}, P{1, 1024, 256, 512}, P{1, 49, 3072, 768}, P{12, 197, 64, 197}}) {
        testing::OnnxBuilder b;
        b.input("a", {c.batch, c.m, c.k}).input("r", {c.batch, c.m, c.n}).output("y");
        b.initializer("w", Tensor(DataType::Float32, {c.k, c.n}));
        b.initializer("bias", Tensor(DataType::Float32, {c.n}));
        b.node("MatMul", {"a", "w"}, {"p"});
        b.node("Add", {"p", "bias"}, {"pb"});
        b.node("Add", {"pb", "r"}, {"y"});
        auto model = b.build();
        ASSERT_TRUE(model.ok()) << model.status().toString();
        checkPlan(*model, {}, {}, "product " + std::to_string(c.m) + "x" + std::to_string(c.k) + "x" + std::to_string(c.n),
                  checked);
    }
}

// Fused attention: ViT's tokens (the keys split between warp groups where the policy allows it) and
// Swin's windows with a bias and a mask.
void checkAttention(Checked* checked) {
    testing::AttentionBlock vit;
    vit.heads = 2;
    testing::AttentionBlock windows;
    windows.batch = 2, windows.windows = 4, windows.heads = 3, windows.seq = 49, windows.headDim = 32;
    windows.scale = testing::AttentionBlock::Scale::Q;
    windows.bias = windows.mask = true;
    for (const auto& [a, what] : {std::pair{vit, "attention 197x2x64"}, std::pair{windows, "window attention"}}) {
        std::vector<NamedTensor> inputs;
        auto model = testing::attentionModel(a, &inputs).build();
        ASSERT_TRUE(model.ok()) << model.status().toString();
        InputShapes shapes;
        for (const auto& in : inputs) shapes.push_back({in.name, in.tensor.shape()});
        checkPlan(*model, shapes, {}, what, checked);
    }
}

TEST(KernelInterface, EveryPlannedDispatchMatchesItsKernel) {
    Checked checked;
    checkConvolutions(&checked);
    checkProducts(&checked);
    checkAttention(&checked);
    for (const char* bundled : {"espcn_x2", "upscaler_x2"})
        checkFolder(fs::path(VKINFER_SOURCE_DIR) / "data" / bundled, &checked);
    const std::string shared = testing::modelsDir();
    if (!shared.empty())
        for (const auto& e : fs::directory_iterator(shared))
            if (e.is_directory()) checkFolder(e.path(), &checked);
    const fs::path nodeTests = "/usr/share/libonnx-testdata/data/node";
    if (fs::exists(nodeTests))
        for (const auto& e : fs::directory_iterator(nodeTests))
            if (e.is_directory()) checkFolder(e.path(), &checked);
    EXPECT_GT(checked.dispatches, 1000u);
    RecordProperty("dispatches", static_cast<int>(checked.dispatches));
    RecordProperty("kernels", static_cast<int>(checked.kernels.size()));
    // Every conv family, tensor cores included, was reached.
    for (const char* prefix : {"conv2d_t", "conv2d_depthwise", "conv2d_small", "conv2d_rt", "conv2d_rtd", "conv2d_cm",
                               "conv2d_cmd", "conv_splitk_reduce", "gemm_t", "gemm_cm", "copy_strided", "cast_",
                               "attention_cm"}) {
        bool found = false;
        for (const auto& k : checked.kernels) found |= k.rfind(prefix, 0) == 0;
        EXPECT_TRUE(found) << "no planned dispatch of " << prefix << "*";
    }
}

// ops::coopmatAttentionSharedBytes, by which the selection fits warps and key groups into the
// device, is what attention_cm.comp declares for those constants: a declaration smaller than
// the sum (a staging array sized for one key group) lets warps write past it, which lavapipe
// forgave and the H100 did not (docs/BENCHMARKS.md, run 64).
TEST(KernelInterface, AttentionSharedMemoryIsWhatItsKernelDeclares) {
    namespace k = kernels::attention_cm;
    size_t checked = 0;
    for (uint32_t chunks : {1u, 2u, 4u, 8u})
        for (uint32_t paddedD : {16u, 64u, 128u})
            for (uint32_t warps : {1u, 2u})
                for (uint32_t split = 1; split <= static_cast<uint32_t>(k::KSPLIT_MAX); ++split)
                    for (k::Mode mode : {k::Mode::nv, k::Mode::emu}) {
                        std::vector<uint32_t> values(k::kKsplit + 1, 0);
                        values[0] = 32 * warps * split, values[1] = values[2] = 1;
                        values[k::kWarps] = warps, values[k::kDp] = paddedD, values[k::kKsplit] = split;
                        const kernels::KernelBlob& blob = kernels::blob(k::variant(ops::coopmatAttentionDv(chunks), mode));
                        const vk::SharedMemoryBytes shared = vk::spirvSharedMemoryBytes(blob.code, blob.words, values);
                        ASSERT_TRUE(shared.bytes) << blob.name << ": " << shared.error;
                        EXPECT_EQ(*shared.bytes, ops::coopmatAttentionSharedBytes(warps, split, paddedD, chunks))
                            << blob.name << ", " << warps << " warps, " << split << " key groups, d " << paddedD;
                        ++checked;
                    }
    EXPECT_EQ(checked, 4u * 3 * 2 * static_cast<uint32_t>(k::KSPLIT_MAX) * 2);
}

}  // namespace
}  // namespace vkinfer
