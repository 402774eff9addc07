// The environment variables' one rule (core/environment.h): a variable sets what its option
// leaves at the default, an option set in code wins, an empty variable is unset, and any value
// it does not take is an error naming the variable, the value and what it takes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/environment.h"
#include "core/error.h"

namespace vkinfer {
namespace {

// Sets a variable for one scope and restores what was there.
class ScopedVariable {
public:
    ScopedVariable(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) saved_ = old, had_ = true;
        ::setenv(name, value, 1);
    }
    ~ScopedVariable() {
        if (had_) ::setenv(name_, saved_.c_str(), 1);
        else ::unsetenv(name_);
    }
    ScopedVariable(const ScopedVariable&) = delete;
    ScopedVariable& operator=(const ScopedVariable&) = delete;

private:
    const char* name_;
    std::string saved_;
    bool had_ = false;
};

std::string errorOf(auto&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.status().toString();
    }
    return "";
}

TEST(Environment, ConvTilesSetOnlyWhatIsLeftAtAuto) {
    ScopedVariable v("VKINFER_CONV_TILES", "large");
    EXPECT_EQ(env::applyToKernelPolicy({}).convTiles, ConvTiles::Large);
    KernelPolicy set;
    set.convTiles = ConvTiles::Small;
    EXPECT_EQ(env::applyToKernelPolicy(set).convTiles, ConvTiles::Small) << "an option set in code wins";
}

TEST(Environment, DirectConvSetOnlyWhatIsLeftAtAuto) {
    ScopedVariable v("VKINFER_DIRECT_CONV", "off");
    EXPECT_EQ(env::applyToKernelPolicy({}).directConv, DirectConv::Off);
    KernelPolicy set;
    set.directConv = DirectConv::Always;
    EXPECT_EQ(env::applyToKernelPolicy(set).directConv, DirectConv::Always);
}

TEST(Environment, SmallConvSetOnlyWhatIsLeftAtAuto) {
    ScopedVariable v("VKINFER_SMALL_CONV", "few-tiles");
    EXPECT_EQ(env::applyToKernelPolicy({}).smallGridConv, SmallGridConv::FewTiles);
    KernelPolicy set;
    set.smallGridConv = SmallGridConv::Off;
    EXPECT_EQ(env::applyToKernelPolicy(set).smallGridConv, SmallGridConv::Off);
    ScopedVariable off("VKINFER_SMALL_CONV", "off");
    EXPECT_EQ(env::applyToKernelPolicy({}).smallGridConv, SmallGridConv::Off);
    ScopedVariable bad("VKINFER_SMALL_CONV", "all");
    EXPECT_EQ(errorOf([] { env::applyToKernelPolicy({}); }),
              "invalid argument: VKINFER_SMALL_CONV must be auto, off or few-tiles (got 'all')");
}

TEST(Environment, AttentionKernelChosenByName) {
    EXPECT_EQ(env::applyToKernelPolicy({}).attentionKernel, AttentionKernel::Auto);
    ScopedVariable coopmat("VKINFER_ATTENTION", "coopmat");
    EXPECT_EQ(env::applyToKernelPolicy({}).attentionKernel, AttentionKernel::Coopmat);
    ScopedVariable portable("VKINFER_ATTENTION", "portable");
    EXPECT_EQ(env::applyToKernelPolicy({}).attentionKernel, AttentionKernel::Portable);
    EXPECT_TRUE(env::applyToKernelPolicy({}).cooperativeMatrix) << "the other tensor-core kernels stay";
    KernelPolicy set;
    set.attentionKernel = AttentionKernel::Coopmat;
    EXPECT_EQ(env::applyToKernelPolicy(set).attentionKernel, AttentionKernel::Coopmat) << "the caller's choice stays";
    ScopedVariable autoValue("VKINFER_ATTENTION", "auto");
    EXPECT_EQ(env::applyToKernelPolicy({}).attentionKernel, AttentionKernel::Auto);
    ScopedVariable bad("VKINFER_ATTENTION", "tensor");
    EXPECT_EQ(errorOf([] { env::applyToKernelPolicy({}); }),
              "invalid argument: VKINFER_ATTENTION must be auto, portable or coopmat (got 'tensor')");
}

// VKINFER_ATTENTION_SPLIT=off turns the key split off (it is on by default); on leaves what the
// caller set; anything else is refused naming the variable.
TEST(Environment, AttentionKeySplitTurnedOffByName) {
    EXPECT_TRUE(env::applyToKernelPolicy({}).attentionKeySplit);
    KernelPolicy set;
    set.attentionKeySplit = false;
    {
        ScopedVariable on("VKINFER_ATTENTION_SPLIT", "on");
        EXPECT_TRUE(env::applyToKernelPolicy({}).attentionKeySplit);
        EXPECT_FALSE(env::applyToKernelPolicy(set).attentionKeySplit) << "the caller's choice stays";
    }
    ScopedVariable off("VKINFER_ATTENTION_SPLIT", "off");
    EXPECT_FALSE(env::applyToKernelPolicy({}).attentionKeySplit);
    ScopedVariable bad("VKINFER_ATTENTION_SPLIT", "yes");
    EXPECT_EQ(errorOf([] { env::applyToKernelPolicy({}); }),
              "invalid argument: VKINFER_ATTENTION_SPLIT must be on or off (got 'yes')");
}

TEST(Environment, DeconvGatherTurnsTheSubPixelRewriteOff) {
    EXPECT_TRUE(env::applyToKernelPolicy({}).subPixelDeconv);
    ScopedVariable gather("VKINFER_DECONV", "gather");
    EXPECT_FALSE(env::applyToKernelPolicy({}).subPixelDeconv);
    ScopedVariable autoValue("VKINFER_DECONV", "auto");
    EXPECT_TRUE(env::applyToKernelPolicy({}).subPixelDeconv);
    ScopedVariable bad("VKINFER_DECONV", "subpixel");
    EXPECT_EQ(errorOf([] { env::applyToKernelPolicy({}); }),
              "invalid argument: VKINFER_DECONV must be auto or gather (got 'subpixel')");
}

// The on/off switches (VKINFER_FUSE_POINTWISE, VKINFER_FOLD_CASTS, VKINFER_FUSE_ATTENTION):
// "off" turns its own option off and no other, "on" leaves an option the caller turned off
// as it is, anything else is refused naming the variable; the public form
// (kernelPolicyFromEnvironment, for planning without a session) does the same.
TEST(Environment, OnOffSwitchesTurnOnlyTheirOwnOptionOff) {
    struct Switch {
        const char* name;
        bool KernelPolicy::*option;
    };
    const Switch switches[] = {{"VKINFER_FUSE_POINTWISE", &KernelPolicy::fusePointwise},
                               {"VKINFER_FOLD_CASTS", &KernelPolicy::foldCasts},
                               {"VKINFER_FUSE_ATTENTION", &KernelPolicy::fuseAttention}};
    for (const Switch& s : switches) {
        SCOPED_TRACE(s.name);
        EXPECT_TRUE(env::applyToKernelPolicy({}).*s.option);
        {
            ScopedVariable off(s.name, "off");
            const KernelPolicy p = env::applyToKernelPolicy({});
            EXPECT_FALSE(p.*s.option);
            for (const Switch& other : switches) {
                if (&other != &s) {
                    EXPECT_TRUE(p.*other.option) << other.name << " stays on";
                }
            }
            auto viaApi = kernelPolicyFromEnvironment();
            ASSERT_TRUE(viaApi.ok()) << viaApi.status().toString();
            EXPECT_FALSE((*viaApi).*s.option);
        }
        ScopedVariable on(s.name, "on");
        EXPECT_TRUE(env::applyToKernelPolicy({}).*s.option);
        KernelPolicy set;
        set.*s.option = false;
        EXPECT_FALSE(env::applyToKernelPolicy(set).*s.option);
        ScopedVariable bad(s.name, "yes");
        EXPECT_EQ(errorOf([] { env::applyToKernelPolicy({}); }),
                  std::string("invalid argument: ") + s.name + " must be on or off (got 'yes')");
        EXPECT_EQ(kernelPolicyFromEnvironment().status().code(), ErrorCode::InvalidArgument);
    }
}

TEST(Environment, AutoAndEmptyLeaveThePolicy) {
    ScopedVariable tiles("VKINFER_CONV_TILES", "auto");
    ScopedVariable direct("VKINFER_DIRECT_CONV", "");
    const KernelPolicy p = env::applyToKernelPolicy({});
    EXPECT_EQ(p.convTiles, ConvTiles::Auto);
    EXPECT_EQ(p.directConv, DirectConv::Auto);
}

TEST(Environment, UnknownValuesNameTheVariableAndWhatItTakes) {
    {
        ScopedVariable v("VKINFER_CONV_TILES", "huge");
        EXPECT_EQ(errorOf([] { env::applyToKernelPolicy({}); }),
                  "invalid argument: VKINFER_CONV_TILES must be auto, small or large (got 'huge')");
    }
    {
        ScopedVariable v("VKINFER_DIRECT_CONV", "sometimes");
        EXPECT_EQ(errorOf([] { env::applyToKernelPolicy({}); }),
                  "invalid argument: VKINFER_DIRECT_CONV must be auto, off or always (got 'sometimes')");
    }
    {
        ScopedVariable v("VKINFER_COOPMAT", "bogus");
        EXPECT_EQ(errorOf([] { env::preferNvCooperativeMatrix(); }),
                  "invalid argument: VKINFER_COOPMAT must be auto or nv (got 'bogus')");
    }
}

TEST(Environment, CooperativeMatrixForm) {
    ScopedVariable v("VKINFER_COOPMAT", "nv");
    EXPECT_TRUE(env::preferNvCooperativeMatrix());
    ScopedVariable w("VKINFER_COOPMAT", "auto");
    EXPECT_FALSE(env::preferNvCooperativeMatrix());
}

TEST(Environment, ValidateTurnsOnWhatTheOptionLeavesOff) {
    {
        ScopedVariable v("VKINFER_VALIDATE", "0");
        EXPECT_FALSE(env::validate(false));
        EXPECT_TRUE(env::validate(true));
    }
    ScopedVariable v("VKINFER_VALIDATE", "1");
    EXPECT_TRUE(env::validate(false));
}

}  // namespace
}  // namespace vkinfer
