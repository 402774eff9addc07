#include "vk/coopmat_khr.h"

#include <fmt/format.h>

#include <array>
#include <map>
#include <optional>
#include <string_view>

namespace vkinfer::vk {

namespace {

// SPIR-V opcodes and enumerants this pass reads or writes (SPIR-V 1.6 unified grammar).
enum Op : uint32_t {
    OpUndef = 1,
    OpSource = 3,
    OpSourceExtension = 4,
    OpName = 5,
    OpString = 7,
    OpLine = 8,
    OpExtension = 10,
    OpExtInstImport = 11,
    OpMemoryModel = 14,
    OpEntryPoint = 15,
    OpExecutionMode = 16,
    OpCapability = 17,
    OpTypeArray = 28,
    OpTypeRuntimeArray = 29,
    OpTypeStruct = 30,
    OpTypePointer = 32,
    OpTypeFunction = 33,
    OpConstantTrue = 41,
    OpConstantFalse = 42,
    OpConstant = 43,
    OpConstantComposite = 44,
    OpConstantNull = 46,
    OpSpecConstantOp = 52,
    OpFunctionParameter = 55,
    OpFunctionCall = 57,
    OpVariable = 59,
    OpLoad = 61,
    OpStore = 62,
    OpAccessChain = 65,
    OpInBoundsAccessChain = 66,
    OpPtrAccessChain = 67,
    OpDecorate = 71,
    OpCompositeConstruct = 80,
    OpCompositeExtract = 81,
    OpCompositeInsert = 82,
    OpCopyObject = 83,
    OpFConvert = 115,
    OpFNegate = 127,
    OpFAdd = 129,
    OpFSub = 131,
    OpFMul = 133,
    OpFDiv = 136,
    OpMatrixTimesScalar = 143,
    OpSelect = 169,
    OpPhi = 245,
    OpModuleProcessed = 330,
    OpTypeCooperativeMatrixKHR = 4456,
    OpCooperativeMatrixLoadKHR = 4457,
    OpCooperativeMatrixStoreKHR = 4458,
    OpCooperativeMatrixMulAddKHR = 4459,
    OpTypeCooperativeMatrixNV = 5358,
    OpCooperativeMatrixLoadNV = 5359,
    OpCooperativeMatrixStoreNV = 5360,
    OpCooperativeMatrixMulAddNV = 5361,
    OpCooperativeMatrixLengthNV = 5362,
};
constexpr uint32_t kCapabilityCooperativeMatrixNV = 5357;
constexpr uint32_t kCapabilityCooperativeMatrixKHR = 6022;
constexpr uint32_t kUseA = 0, kUseB = 1, kUseAccumulator = 2, kUses = 3;
constexpr uint32_t kRowMajor = 0, kColumnMajor = 1;
constexpr size_t kHeaderWords = 5;

struct Instruction {
    uint32_t op;
    std::vector<uint32_t> operands;  // the words after the opcode word
};

std::vector<uint32_t> encodeString(std::string_view s) {
    std::vector<uint32_t> w((s.size() + 4) / 4, 0u);
    for (size_t i = 0; i < s.size(); ++i) w[i / 4] |= static_cast<uint32_t>(static_cast<unsigned char>(s[i])) << (8 * (i % 4));
    return w;
}

std::string decodeString(const std::vector<uint32_t>& w, size_t from) {
    std::string s;
    for (size_t i = from; i < w.size(); ++i)
        for (int b = 0; b < 4; ++b) {
            char c = static_cast<char>((w[i] >> (8 * b)) & 0xffu);
            if (!c) return s;
            s += c;
        }
    return s;
}

bool isArithmetic(uint32_t op) {
    return op == OpFNegate || op == OpFAdd || op == OpFSub || op == OpFMul || op == OpFDiv ||
           op == OpMatrixTimesScalar;
}

class Translator {
public:
    Translator(const uint32_t* code, size_t words) {
        header_.assign(code, code + kHeaderWords);
        for (size_t at = kHeaderWords; at < words;) {
            uint32_t count = code[at] >> 16;
            if (count == 0 || at + count > words) {
                error_ = fmt::format("malformed SPIR-V: instruction at word {} runs past the end", at);
                return;
            }
            instructions_.push_back({code[at] & 0xffffu, std::vector<uint32_t>(code + at + 1, code + at + count)});
            at += count;
        }
        bound_ = header_[3];
    }

    CoopmatTranslation run() {
        if (error_.empty()) collectTypes();
        if (error_.empty()) classify();
        if (error_.empty()) assignUses();
        if (!error_.empty()) return {{}, error_};
        std::vector<uint32_t> words = emit();
        if (!error_.empty()) return {{}, error_};
        return {std::move(words), {}};
    }

private:
    // ---- types ----

    // A cooperative-matrix type, or a pointer or array whose element (transitively) is one:
    // the types that split by use. element_[t] is the type t is built on (itself for a matrix).
    bool derived(uint32_t t) const { return element_.count(t) != 0; }

    void collectTypes() {
        for (const auto& in : instructions_) {
            const auto& o = in.operands;
            switch (in.op) {
                case OpTypeCooperativeMatrixNV: element_[o[0]] = o[0]; break;
                case OpTypePointer:
                    if (derived(o[2])) element_[o[0]] = o[2];
                    break;
                case OpTypeArray:
                case OpTypeRuntimeArray:
                    if (derived(o[1])) element_[o[0]] = o[1];
                    break;
                case OpTypeStruct:
                case OpTypeFunction:
                    for (size_t i = 1; i < o.size(); ++i)
                        if (derived(o[i])) return refuse("a structure or function type with a cooperative matrix");
                    break;
                case OpConstantTrue: bools_[o[1]] = true; break;
                case OpConstantFalse: bools_[o[1]] = false; break;
                case OpConstant:
                    if (o.size() == 3) constants_[{o[0], o[2]}] = o[1];
                    break;
                default: break;
            }
        }
    }

    // ---- classes of values that share a type ----

    uint32_t find(uint32_t id) {
        auto it = parent_.find(id);
        if (it == parent_.end() || it->second == id) return id;
        return it->second = find(it->second);
    }
    bool node(uint32_t id) const { return typeOf_.count(id) != 0; }
    void unite(uint32_t a, uint32_t b) {
        if (!node(a) || !node(b)) return;
        a = find(a), b = find(b);
        if (a != b) parent_[a] = b;
    }
    void fix(uint32_t id, uint32_t use) {
        if (!node(id)) return refuse(fmt::format("multiply-add operand %{} is not a cooperative matrix value", id));
        fixes_.push_back({id, use});
    }

    // The result id of an instruction that has a result type, when that type splits.
    static std::optional<std::pair<uint32_t, uint32_t>> typedResult(const Instruction& in) {
        switch (in.op) {
            case OpUndef:
            case OpConstantComposite:
            case OpConstantNull:
            case OpSpecConstantOp:
            case OpFunctionParameter:
            case OpFunctionCall:
            case OpVariable:
            case OpLoad:
            case OpAccessChain:
            case OpInBoundsAccessChain:
            case OpPtrAccessChain:
            case OpCompositeConstruct:
            case OpCompositeExtract:
            case OpCompositeInsert:
            case OpCopyObject:
            case OpFConvert:
            case OpSelect:
            case OpPhi:
            case OpCooperativeMatrixLoadNV:
            case OpCooperativeMatrixMulAddNV: break;
            default:
                if (!isArithmetic(in.op)) return std::nullopt;
                break;
        }
        if (in.operands.size() < 2) return std::nullopt;
        return std::make_pair(in.operands[0], in.operands[1]);
    }

    void classify() {
        for (const auto& in : instructions_) {
            auto r = typedResult(in);
            if (r && derived(r->first)) typeOf_[r->second] = r->first;
        }
        for (const auto& in : instructions_) {
            const auto& o = in.operands;
            auto r = typedResult(in);
            const bool typed = r && derived(r->first);
            if (isArithmetic(in.op)) {  // matrix arithmetic keeps its operands' type
                for (size_t i = 2; typed && i < o.size(); ++i) unite(o[1], o[i]);
                continue;
            }
            switch (in.op) {
                case OpLoad:
                case OpAccessChain:
                case OpInBoundsAccessChain:
                case OpPtrAccessChain:
                case OpCopyObject:
                case OpCompositeExtract:
                    if (typed) unite(o[1], o[2]);
                    break;
                case OpVariable:
                    if (typed && o.size() > 3) unite(o[1], o[3]);
                    break;
                case OpStore: unite(o[0], o[1]); break;
                case OpCompositeInsert:
                    if (typed) unite(o[1], o[2]), unite(o[1], o[3]);
                    break;
                case OpSelect:
                    if (typed) unite(o[1], o[3]), unite(o[1], o[4]);
                    break;
                case OpPhi:
                    if (typed)
                        for (size_t i = 2; i < o.size(); i += 2) unite(o[1], o[i]);
                    break;
                case OpCompositeConstruct:
                case OpConstantComposite:
                    if (typed && element_.at(r->first) != r->first)
                        for (size_t i = 2; i < o.size(); ++i) unite(o[1], o[i]);
                    break;
                case OpCooperativeMatrixMulAddNV:
                    fix(o[2], kUseA);
                    fix(o[3], kUseB);
                    unite(o[1], o[4]);
                    fix(o[4], kUseAccumulator);
                    break;
                case OpCooperativeMatrixLengthNV:
                    return refuse("OpCooperativeMatrixLengthNV (the per-invocation length differs between the extensions)");
                case OpSpecConstantOp:
                    if (o.size() > 2 && o[2] == OpCooperativeMatrixLengthNV)
                        return refuse("OpCooperativeMatrixLengthNV in a specialization constant");
                    break;
                case OpFunctionParameter:
                case OpFunctionCall:
                    if (typed) return refuse("a cooperative matrix passed to or returned from a function");
                    for (size_t i = 3; in.op == OpFunctionCall && i < o.size(); ++i)
                        if (node(o[i])) return refuse("a cooperative matrix passed to a function");
                    break;
                case OpCooperativeMatrixLoadNV:
                case OpCooperativeMatrixStoreNV:
                case OpFConvert:
                case OpUndef:
                case OpConstantNull:
                case OpTypeCooperativeMatrixNV:
                case OpTypePointer:
                case OpTypeArray:
                case OpTypeRuntimeArray:
                case OpName:
                case OpDecorate: break;
                case OpSource:
                case OpSourceExtension:
                case OpString:
                case OpLine:
                case OpExtInstImport:
                case OpMemoryModel:
                case OpEntryPoint:
                case OpExecutionMode:
                case OpModuleProcessed: break;  // literals first, no result type
                default:
                    // An instruction this pass does not know whose result type splits cannot be
                    // translated safely. (Ids are unique, so a type id in the first operand is
                    // a result type; other positions hold values, labels or literals.)
                    if (!o.empty() && derived(o[0]))
                        return refuse(fmt::format("opcode {} with a cooperative-matrix result", in.op));
                    break;
            }
            if (!error_.empty()) return;
        }
    }

    void assignUses() {
        for (auto [id, use] : fixes_) {
            uint32_t c = find(id);
            auto [it, inserted] = use_.emplace(c, use);
            if (!inserted && it->second != use)
                return refuse(fmt::format("value %{} is needed both as matrix {} and as matrix {}", id,
                                          useName(it->second), useName(use)));
        }
        for (const auto& [id, type] : typeOf_) need(type, useOf(id));
    }

    uint32_t useOf(uint32_t id) {
        auto it = use_.find(find(id));
        return it == use_.end() ? kUseAccumulator : it->second;
    }
    static const char* useName(uint32_t use) { return use == kUseA ? "A" : use == kUseB ? "B" : "accumulator"; }

    // Marks the variant of `type` for `use`, and of what it is built on.
    void need(uint32_t type, uint32_t use) {
        for (;;) {
            auto& ids = variants_[type];
            if (!ids[use]) ids[use] = bound_++;
            uint32_t e = element_.at(type);
            if (e == type) return;
            type = e;
        }
    }
    uint32_t variant(uint32_t type, uint32_t use) const { return variants_.at(type)[use]; }

    // ---- output ----

    // A 32-bit integer constant of the type the matrices' scope operand has, declared before
    // the first matrix type.
    uint32_t intConstant(uint32_t value, std::vector<Instruction>& decls) {
        auto it = constants_.find({intType_, value});
        if (it != constants_.end()) return it->second;
        uint32_t id = bound_++;
        constants_[{intType_, value}] = id;
        decls.push_back({OpConstant, {intType_, id, value}});
        return id;
    }

    uint32_t layoutOf(uint32_t columnMajorId) {
        auto it = bools_.find(columnMajorId);
        if (it == bools_.end()) {
            refuse(fmt::format("column-major operand %{} is not a boolean constant", columnMajorId));
            return 0;
        }
        return it->second ? layoutColumn_ : layoutRow_;
    }

    std::vector<uint32_t> emit() {
        std::vector<Instruction> out;
        bool constantsDeclared = false;
        std::array<uint32_t, kUses> useIds{};
        for (const auto& in : instructions_) {
            const auto& o = in.operands;
            switch (in.op) {
                case OpCapability:
                    out.push_back(o[0] == kCapabilityCooperativeMatrixNV
                                      ? Instruction{OpCapability, {kCapabilityCooperativeMatrixKHR}}
                                      : in);
                    continue;
                case OpExtension:
                    out.push_back(decodeString(o, 0) == "SPV_NV_cooperative_matrix"
                                      ? Instruction{OpExtension, encodeString("SPV_KHR_cooperative_matrix")}
                                      : in);
                    continue;
                case OpName:
                case OpDecorate:
                    if (!derived(o[0])) out.push_back(in);  // the split types lose their names
                    continue;
                default: break;
            }
            if (in.op == OpTypeCooperativeMatrixNV && !constantsDeclared) {
                intType_ = typeOfConstant(o[2]);
                if (!error_.empty()) return {};
                for (uint32_t u = 0; u < kUses; ++u) useIds[u] = intConstant(u, out);
                layoutRow_ = intConstant(kRowMajor, out);
                layoutColumn_ = intConstant(kColumnMajor, out);
                constantsDeclared = true;
            }
            const bool splitType = (in.op == OpTypeCooperativeMatrixNV || in.op == OpTypePointer ||
                                    in.op == OpTypeArray || in.op == OpTypeRuntimeArray) &&
                                   derived(o[0]);
            if (splitType) {
                auto vit = variants_.find(o[0]);
                if (vit == variants_.end()) continue;  // declared but never used
                for (uint32_t u = 0; u < kUses; ++u) {
                    uint32_t id = vit->second[u];
                    if (!id) continue;
                    Instruction t = in;
                    t.operands[0] = id;
                    if (in.op == OpTypeCooperativeMatrixNV) {
                        t.op = OpTypeCooperativeMatrixKHR;
                        t.operands.push_back(useIds[u]);
                    } else if (in.op == OpTypePointer) {
                        t.operands[2] = variant(o[2], u);
                    } else {
                        t.operands[1] = variant(o[1], u);
                    }
                    out.push_back(std::move(t));
                }
                continue;
            }
            Instruction t = in;
            auto r = typedResult(in);
            if (r && derived(r->first)) t.operands[0] = variant(r->first, useOf(r->second));
            switch (in.op) {
                case OpCooperativeMatrixLoadNV: {
                    // type, result, pointer, stride, column-major [, memory access...]
                    t.op = OpCooperativeMatrixLoadKHR;
                    uint32_t layout = layoutOf(o[4]);
                    t.operands = {t.operands[0], o[1], o[2], layout, o[3]};
                    t.operands.insert(t.operands.end(), o.begin() + 5, o.end());
                    break;
                }
                case OpCooperativeMatrixStoreNV: {
                    // pointer, object, stride, column-major [, memory access...]
                    t.op = OpCooperativeMatrixStoreKHR;
                    uint32_t layout = layoutOf(o[3]);
                    t.operands = {o[0], o[1], layout, o[2]};
                    t.operands.insert(t.operands.end(), o.begin() + 4, o.end());
                    break;
                }
                case OpCooperativeMatrixMulAddNV: t.op = OpCooperativeMatrixMulAddKHR; break;
                default: break;
            }
            if (!error_.empty()) return {};
            out.push_back(std::move(t));
        }
        std::vector<uint32_t> words = header_;
        words[3] = bound_;
        for (const auto& in : out) {
            words.push_back(static_cast<uint32_t>(in.operands.size() + 1) << 16 | in.op);
            words.insert(words.end(), in.operands.begin(), in.operands.end());
        }
        return words;
    }

    uint32_t typeOfConstant(uint32_t id) {
        for (const auto& in : instructions_)
            if (in.op == OpConstant && in.operands.size() == 3 && in.operands[1] == id) return in.operands[0];
        refuse(fmt::format("the scope operand %{} of a matrix type is not a 32-bit constant", id));
        return 0;
    }

    void refuse(const std::string& why) {
        if (error_.empty()) error_ = why;
    }

    std::vector<uint32_t> header_;
    std::vector<Instruction> instructions_;
    uint32_t bound_ = 0;
    std::string error_;
    std::map<uint32_t, uint32_t> element_;                   // splitting type -> what it is built on
    std::map<uint32_t, uint32_t> typeOf_;                    // value of a splitting type -> that type
    std::map<uint32_t, uint32_t> parent_;                    // union-find over those values
    std::vector<std::pair<uint32_t, uint32_t>> fixes_;       // value -> use a multiply-add gives it
    std::map<uint32_t, uint32_t> use_;                       // class root -> use
    std::map<uint32_t, std::array<uint32_t, kUses>> variants_;  // type -> its id per use (0: none)
    std::map<uint32_t, bool> bools_;                         // boolean constants
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> constants_;  // (int type, value) -> constant
    uint32_t intType_ = 0, layoutRow_ = 0, layoutColumn_ = 0;
};

}  // namespace

bool usesCooperativeMatrixNv(const uint32_t* code, size_t words) {
    for (size_t at = kHeaderWords; at < words;) {
        uint32_t count = code[at] >> 16, op = code[at] & 0xffffu;
        if (count == 0) return false;
        if (op == OpCapability && count == 2 && at + 1 < words && code[at + 1] == kCapabilityCooperativeMatrixNV)
            return true;
        if (op != OpCapability && op != OpExtension && op != OpExtInstImport) return false;
        at += count;
    }
    return false;
}

CoopmatTranslation translateCoopmatNvToKhr(const uint32_t* code, size_t words) {
    if (words < kHeaderWords || code[0] != 0x07230203u) return {{}, "not a SPIR-V module (magic number)"};
    if (!usesCooperativeMatrixNv(code, words)) return {std::vector<uint32_t>(code, code + words), {}};
    return Translator(code, words).run();
}

}  // namespace vkinfer::vk
