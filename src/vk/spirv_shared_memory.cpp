#include "vk/spirv_shared_memory.h"

#include <fmt/format.h>

#include <unordered_map>
#include <vector>

#include "vk/spirv_walk.h"

namespace vkinfer::vk {

namespace {

// SPIR-V 1.6 opcodes, decorations and storage classes (the specification's section 3).
enum : uint32_t {
    kOpDecorate = 71,
    kOpTypeBool = 20,
    kOpTypeInt = 21,
    kOpTypeFloat = 22,
    kOpTypeVector = 23,
    kOpTypeMatrix = 24,
    kOpTypeArray = 28,
    kOpTypeStruct = 30,
    kOpTypePointer = 32,
    kOpConstantTrue = 41,
    kOpConstantFalse = 42,
    kOpConstant = 43,
    kOpSpecConstantTrue = 48,
    kOpSpecConstantFalse = 49,
    kOpSpecConstant = 50,
    kOpSpecConstantComposite = 51,
    kOpSpecConstantOp = 52,
    kOpConstantComposite = 44,
    kOpFunction = 54,
    kOpVariable = 59,
    kDecorationSpecId = 1,
    kStorageWorkgroup = 4,
};

// The operations OpSpecConstantOp may apply (those integer kernels use).
enum : uint32_t {
    kCompositeExtract = 81,
    kUConvert = 113,
    kSConvert = 114,
    kSNegate = 126,
    kIAdd = 128,
    kISub = 130,
    kIMul = 132,
    kUDiv = 134,
    kSDiv = 135,
    kUMod = 137,
    kSRem = 138,
    kSMod = 139,
    kLogicalEqual = 164,
    kLogicalNotEqual = 165,
    kLogicalOr = 166,
    kLogicalAnd = 167,
    kLogicalNot = 168,
    kSelect = 169,
    kIEqual = 170,
    kINotEqual = 171,
    kUGreaterThan = 172,
    kSGreaterThan = 173,
    kUGreaterThanEqual = 174,
    kSGreaterThanEqual = 175,
    kULessThan = 176,
    kSLessThan = 177,
    kULessThanEqual = 178,
    kSLessThanEqual = 179,
    kShiftRightLogical = 194,
    kShiftRightArithmetic = 195,
    kShiftLeftLogical = 196,
    kBitwiseOr = 197,
    kBitwiseXor = 198,
    kBitwiseAnd = 199,
    kNot = 200,
};

class Reader {
public:
    Reader(const uint32_t* code, size_t words, std::span<const uint32_t> spec) : code_(code), words_(words), spec_(spec) {}

    SharedMemoryBytes run() {
        // Decorations precede the types and constants (the logical layout), so every SpecId is
        // known when its constant is read; function bodies declare no Workgroup variables.
        // Constants are evaluated as they come (an operand is defined before its use); types are
        // sized only for the Workgroup variables, at the end, so that what this reader does not
        // evaluate (buffer blocks with runtime arrays, float arithmetic) matters only there.
        std::vector<uint32_t> shared;  // the pointee types of Workgroup variables
        std::string problem;
        std::string walked = forEachSpirvInstruction(code_, words_, [&](const SpirvInstruction& in) {
            const uint32_t* w = in.operands;
            const size_t n = in.count;
            const uint32_t op = in.op;
            if (op == kOpFunction) return false;
            switch (op) {
                case kOpDecorate:
                    if (n >= 3 && w[1] == kDecorationSpecId) specId_[w[0]] = w[2];
                    break;
                case kOpTypeBool:
                case kOpTypeInt:
                case kOpTypeFloat:
                case kOpTypeVector:
                case kOpTypeMatrix:
                case kOpTypeArray:
                case kOpTypeStruct:
                    if (n >= 1) types_[w[0]] = {op, std::vector<uint32_t>(w + 1, w + n)};
                    break;
                case kOpTypePointer:
                    if (n >= 3) pointee_[w[0]] = w[2];
                    break;
                case kOpConstantTrue:
                case kOpConstantFalse:
                    if (n >= 2) set(w[1], op == kOpConstantTrue, 1);
                    break;
                case kOpSpecConstantTrue:
                case kOpSpecConstantFalse:
                    if (n >= 2) {
                        const auto s = specOf(w[1]);
                        set(w[1], s ? *s != 0 : op == kOpSpecConstantTrue, 1);
                    }
                    break;
                case kOpConstant:
                case kOpSpecConstant:
                    if (n >= 2) {
                        uint64_t v = n >= 3 ? w[2] : 0;
                        if (n >= 4) v |= static_cast<uint64_t>(w[3]) << 32;
                        if (op == kOpSpecConstant)
                            if (auto s = specOf(w[1])) v = *s;
                        set(w[1], v, scalarBits(w[0]));
                    }
                    break;
                case kOpConstantComposite:
                case kOpSpecConstantComposite:
                    if (n >= 2) composites_[w[1]] = std::vector<uint32_t>(w + 2, w + n);
                    break;
                case kOpSpecConstantOp:
                    if (n >= 3) specOp(w[0], w[1], w[2], w + 3, n - 3);
                    break;
                case kOpVariable:
                    if (n >= 3 && w[2] == kStorageWorkgroup) {
                        auto p = pointee_.find(w[0]);
                        if (p == pointee_.end()) {
                            problem = fmt::format("variable %{} has no pointer type", w[1]);
                            return false;
                        }
                        shared.push_back(p->second);
                    }
                    break;
                default: break;
            }
            return true;
        });
        if (!walked.empty()) return {std::nullopt, walked};
        if (!problem.empty()) return {std::nullopt, problem};
        uint64_t total = 0;
        for (uint32_t type : shared) {
            const auto bytes = typeBytes(type, 0);
            if (!bytes) return {std::nullopt, error_};
            total += *bytes;
        }
        return {total, {}};
    }

private:
    struct TypeDef {
        uint32_t op;
        std::vector<uint32_t> operands;  // after the result id
    };
    struct Value {
        std::optional<uint64_t> v;  // truncated to its width; nullopt: not evaluated (why: `why`)
        uint32_t bits = 32;
        std::string why;
    };

    std::optional<uint64_t> fail(std::string why) {
        error_ = std::move(why);
        return std::nullopt;
    }
    std::optional<uint32_t> specOf(uint32_t result) const {
        auto d = specId_.find(result);
        if (d == specId_.end() || d->second >= spec_.size()) return std::nullopt;
        return spec_[d->second];
    }
    // The width of a scalar type (0 where it is not one).
    uint32_t scalarBits(uint32_t type) const {
        auto t = types_.find(type);
        if (t == types_.end()) return 0;
        if (t->second.op == kOpTypeBool) return 1;
        if ((t->second.op == kOpTypeInt || t->second.op == kOpTypeFloat) && !t->second.operands.empty())
            return t->second.operands[0];
        return 0;
    }
    void set(uint32_t id, uint64_t v, uint32_t bits) {
        if (bits == 0) {
            values_[id] = {std::nullopt, 32, fmt::format("%{} is a constant of a type that is not a scalar", id)};
            return;
        }
        values_[id] = {truncated(v, bits), bits, {}};
    }
    std::optional<uint64_t> typeBytes(uint32_t type, int depth) {
        if (depth > 64) return fail("types nested too deep");
        auto t = types_.find(type);
        if (t == types_.end()) return fail(fmt::format("type %{} of a shared variable is not one this reader sizes", type));
        const auto& o = t->second.operands;
        switch (t->second.op) {
            case kOpTypeBool: return 4;
            case kOpTypeInt:
            case kOpTypeFloat: return o.empty() ? fail("a scalar type without a width") : std::optional<uint64_t>(o[0] / 8u);
            case kOpTypeVector:
            case kOpTypeMatrix: {
                if (o.size() < 2) return fail("a vector type without its count");
                const auto e = typeBytes(o[0], depth + 1);
                return e ? std::optional<uint64_t>(*e * o[1]) : std::nullopt;
            }
            case kOpTypeArray: {
                if (o.size() < 2) return fail("an array type without its length");
                auto v = values_.find(o[1]);
                if (v == values_.end()) return fail(fmt::format("the length %{} of array type %{} is not a constant", o[1], type));
                if (!v->second.v) return fail(v->second.why);
                const auto e = typeBytes(o[0], depth + 1);
                return e ? std::optional<uint64_t>(*e * *v->second.v) : std::nullopt;
            }
            case kOpTypeStruct: {
                uint64_t bytes = 0;
                for (uint32_t m : o) {
                    const auto e = typeBytes(m, depth + 1);
                    if (!e) return std::nullopt;
                    bytes += *e;
                }
                return bytes;
            }
            default: return fail(fmt::format("type %{} of a shared variable is not one this reader sizes", type));
        }
    }
    static uint64_t truncated(uint64_t v, uint32_t bits) { return bits >= 64 ? v : v & ((uint64_t{1} << bits) - 1); }
    static int64_t signedOf(uint64_t v, uint32_t bits) {
        if (bits >= 64) return static_cast<int64_t>(v);
        const uint64_t sign = uint64_t{1} << (bits - 1);
        return static_cast<int64_t>((v ^ sign) - sign);
    }

    void specOp(uint32_t resultType, uint32_t result, uint32_t operation, const uint32_t* ids, size_t count) {
        auto unevaluated = [&](std::string why) { values_[result] = {std::nullopt, 32, std::move(why)}; };
        if (operation == kCompositeExtract) {  // a member of a composite (the local size): literal indices
            auto c = count == 2 ? composites_.find(ids[0]) : composites_.end();
            if (c == composites_.end() || ids[1] >= c->second.size())
                return unevaluated(fmt::format("%{}: an extraction this reader does not follow", result));
            auto v = values_.find(c->second[ids[1]]);
            if (v == values_.end()) return unevaluated(fmt::format("%{} is not a scalar constant", c->second[ids[1]]));
            values_[result] = v->second;
            return;
        }
        std::vector<uint64_t> x;
        uint32_t ab = 32;  // the first operand's width (signed operations read it so)
        for (size_t i = 0; i < count; ++i) {
            auto v = values_.find(ids[i]);
            if (v == values_.end()) return unevaluated(fmt::format("%{} is not a constant this reader evaluates", ids[i]));
            if (!v->second.v) return unevaluated(v->second.why);
            if (i == 0) ab = v->second.bits;
            x.push_back(*v->second.v);
        }
        const uint32_t bits = scalarBits(resultType);
        if (bits == 0) return unevaluated(fmt::format("%{} is not a scalar", result));
        const size_t arity = operation == kUConvert || operation == kSConvert || operation == kSNegate ||
                                     operation == kNot || operation == kLogicalNot
                                 ? 1
                             : operation == kSelect ? 3
                                                    : 2;
        if (x.size() != arity)
            return unevaluated(fmt::format("OpSpecConstantOp {} with {} operands (%{})", operation, x.size(), result));
        const uint64_t a = x[0], b = arity > 1 ? x[1] : 0;
        const int64_t sa = signedOf(a, ab), sb = signedOf(b, ab);
        const bool divides = operation == kUDiv || operation == kSDiv || operation == kUMod || operation == kSRem ||
                             operation == kSMod;
        if (divides && b == 0) return unevaluated(fmt::format("OpSpecConstantOp {} divides by zero (%{})", operation, result));
        uint64_t r = 0;
        switch (operation) {
            case kUConvert: r = a; break;
            case kSConvert: r = static_cast<uint64_t>(sa); break;
            case kSNegate: r = 0 - a; break;
            case kNot: r = ~a; break;
            case kLogicalNot: r = a == 0; break;
            case kSelect: r = a != 0 ? x[1] : x[2]; break;
            case kIAdd: r = a + b; break;
            case kISub: r = a - b; break;
            case kIMul: r = a * b; break;
            case kUDiv: r = a / b; break;
            case kUMod: r = a % b; break;
            case kSDiv: r = static_cast<uint64_t>(sa / sb); break;
            case kSRem: r = static_cast<uint64_t>(sa % sb); break;
            case kSMod: {
                int64_t m = sa % sb;
                if (m != 0 && ((m < 0) != (sb < 0))) m += sb;
                r = static_cast<uint64_t>(m);
                break;
            }
            case kShiftLeftLogical: r = b >= 64 ? 0 : a << b; break;
            case kShiftRightLogical: r = b >= 64 ? 0 : a >> b; break;
            case kShiftRightArithmetic: r = static_cast<uint64_t>(b >= 63 ? (sa < 0 ? -1 : 0) : sa >> b); break;
            case kBitwiseOr: r = a | b; break;
            case kBitwiseXor: r = a ^ b; break;
            case kBitwiseAnd: r = a & b; break;
            case kLogicalEqual: r = (a != 0) == (b != 0); break;
            case kLogicalNotEqual: r = (a != 0) != (b != 0); break;
            case kLogicalOr: r = a != 0 || b != 0; break;
            case kLogicalAnd: r = a != 0 && b != 0; break;
            case kIEqual: r = a == b; break;
            case kINotEqual: r = a != b; break;
            case kUGreaterThan: r = a > b; break;
            case kSGreaterThan: r = sa > sb; break;
            case kUGreaterThanEqual: r = a >= b; break;
            case kSGreaterThanEqual: r = sa >= sb; break;
            case kULessThan: r = a < b; break;
            case kSLessThan: r = sa < sb; break;
            case kULessThanEqual: r = a <= b; break;
            case kSLessThanEqual: r = sa <= sb; break;
            default: return unevaluated(fmt::format("OpSpecConstantOp {} is not evaluated here (%{})", operation, result));
        }
        values_[result] = {truncated(r, bits), bits, {}};
    }

    const uint32_t* code_;
    size_t words_;
    std::span<const uint32_t> spec_;
    std::unordered_map<uint32_t, uint32_t> specId_;   // result id -> SpecId
    std::unordered_map<uint32_t, TypeDef> types_;     // the types a shared variable can be built of
    std::unordered_map<uint32_t, uint32_t> pointee_;  // pointer type id -> pointee type id
    std::unordered_map<uint32_t, Value> values_;      // scalar constant id -> value
    std::unordered_map<uint32_t, std::vector<uint32_t>> composites_;  // composite constant id -> members
    std::string error_;
};

}  // namespace

SharedMemoryBytes spirvSharedMemoryBytes(const uint32_t* code, size_t words, std::span<const uint32_t> spec) {
    return Reader(code, words, spec).run();
}

}  // namespace vkinfer::vk
