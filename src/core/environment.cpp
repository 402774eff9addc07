#include "core/environment.h"

#include <cstdlib>
#include <string>

#include "core/error.h"
#include "vkinfer/context.h"

namespace vkinfer {

namespace env {

namespace {

// The variable's value, or null when it is unset or empty.
const char* read(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

// The index of the variable's value among `values`, or -1 when it is unset; throws naming the
// variable for any other value.
int choice(const char* name, std::initializer_list<const char*> values) {
    const char* v = read(name);
    if (!v) return -1;
    int i = 0;
    std::string accepted;
    for (const char* candidate : values) {
        if (std::string(v) == candidate) return i;
        accepted += (i == 0 ? "" : i + 1 == static_cast<int>(values.size()) ? " or " : ", ") + std::string(candidate);
        ++i;
    }
    fail(ErrorCode::InvalidArgument, "{} must be {} (got '{}')", name, accepted, v);
}

}  // namespace

KernelPolicy applyToKernelPolicy(KernelPolicy policy) {
    const int tiles = choice("VKINFER_CONV_TILES", {"auto", "small", "large"});
    if (tiles > 0 && policy.convTiles == ConvTiles::Auto)
        policy.convTiles = tiles == 1 ? ConvTiles::Small : ConvTiles::Large;
    const int direct = choice("VKINFER_DIRECT_CONV", {"auto", "off", "always"});
    if (direct > 0 && policy.directConv == DirectConv::Auto)
        policy.directConv = direct == 1 ? DirectConv::Off : DirectConv::Always;
    const int small = choice("VKINFER_SMALL_CONV", {"auto", "off", "few-tiles"});
    if (small > 0 && policy.smallGridConv == SmallGridConv::Auto)
        policy.smallGridConv = small == 1 ? SmallGridConv::Off : SmallGridConv::FewTiles;
    if (choice("VKINFER_DECONV", {"auto", "gather"}) == 1) policy.subPixelDeconv = false;
    if (choice("VKINFER_FUSE_POINTWISE", {"on", "off"}) == 1) policy.fusePointwise = false;
    if (choice("VKINFER_FOLD_CASTS", {"on", "off"}) == 1) policy.foldCasts = false;
    if (choice("VKINFER_FUSE_ATTENTION", {"on", "off"}) == 1) policy.fuseAttention = false;
    if (choice("VKINFER_ATTENTION_SPLIT", {"on", "off"}) == 1) policy.attentionKeySplit = false;
    const int attention = choice("VKINFER_ATTENTION", {"auto", "portable", "coopmat"});
    if (attention > 0 && policy.attentionKernel == AttentionKernel::Auto)
        policy.attentionKernel = attention == 1 ? AttentionKernel::Portable : AttentionKernel::Coopmat;
    return policy;
}

bool validate(bool option) {
    const char* v = read("VKINFER_VALIDATE");
    return option || (v && std::string(v) != "0");
}

bool preferNvCooperativeMatrix() { return choice("VKINFER_COOPMAT", {"auto", "nv"}) == 1; }

}  // namespace env

bool validationRequestedByEnvironment() { return env::validate(false); }

}  // namespace vkinfer
