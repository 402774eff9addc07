// submitInference (interop.h) on a context of the engine's own, apart from images (those are
// in shared_image_test.cpp): inputs staged with Session::stageInput, outputs no image takes
// returned by Session::wait, GPU times (with per-dispatch times when profiling), frame slots
// shared with Session::submit, and the errors, after which the session still runs. Runs under
// the validation layer with synchronization validation (VKINFER_VALIDATE=1): a message fails
// the call that provoked it.
#include <gtest/gtest.h>
#include <vkinfer/interop.h>

#include <cmath>

#include "support/gpu_context.h"
#include "support/small_models.h"

namespace vkinfer::testing {
namespace {

// Frame k's input: distinct per frame, with negatives so that the Relu matters.
Tensor frameInput(int k) {
    Tensor x(DataType::Float32, {1, 4, 8, 8});
    for (int64_t i = 0; i < x.elementCount(); ++i) x.as<float>()[i] = float(int(i % 23) - 11) * 0.25f + float(k);
    return x;
}

// affineModel's y = relu(2x + 1), exact in float32.
void expectAffine(const std::vector<NamedTensor>& out, const Tensor& x) {
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].name, "y");
    ASSERT_EQ(out[0].tensor.elementCount(), x.elementCount());
    for (int64_t i = 0; i < x.elementCount(); ++i)
        ASSERT_EQ(out[0].tensor.as<float>()[i], std::max(0.0f, x.as<float>()[i] * 2 + 1)) << "element " << i;
}

TEST(SubmitInference, StagedInputsOutputsFromWaitAndGpuTimes) {
    VKINFER_REQUIRE_GPU();
    SessionOptions so;
    so.framesInFlight = 2;
    so.profile = true;
    auto session = Session::create(gpuContext(), affineModel(), so);
    ASSERT_TRUE(session.ok()) << session.status().toString();
    // Two frames in flight on both slots, then each slot again: its earlier run was waited for.
    std::vector<Ticket> tickets;
    for (int k = 0; k < 4; ++k) {
        RecordIO io;
        io.frame = uint32_t(k % 2);
        if (k >= 2) {
            auto out = session->wait(tickets[k - 2]);
            ASSERT_TRUE(out.ok()) << out.status().toString();
            expectAffine(*out, frameInput(k - 2));
        }
        ASSERT_TRUE(session->stageInput(io.frame, {"x", frameInput(k)}).ok());
        auto t = submitInference(*session, io);
        ASSERT_TRUE(t.ok()) << t.status().toString();
        EXPECT_EQ(t->frame, io.frame);
        if (!tickets.empty()) {
            EXPECT_GT(t->value, tickets.back().value);
        }
        tickets.push_back(*t);
    }
    for (int k = 2; k < 4; ++k) {
        RunStats stats;
        auto out = session->wait(tickets[k], &stats);
        ASSERT_TRUE(out.ok()) << out.status().toString();
        expectAffine(*out, frameInput(k));
        EXPECT_GT(stats.gpuMs, 0.0);
        EXPECT_GE(stats.transferGpuMs, 0.0);
        // Profiling: a time per dispatch, within the inference's.
        EXPECT_FALSE(stats.dispatchMs.empty());
        double sum = 0;
        for (double ms : stats.dispatchMs) sum += ms;
        EXPECT_LE(sum, stats.gpuMs + 1e-6);
    }
    auto messages = gpuContext().takeValidationMessages();
    EXPECT_TRUE(messages.empty()) << ::testing::PrintToString(messages);
}

TEST(SubmitInference, SharesFrameSlotsWithSubmit) {
    VKINFER_REQUIRE_GPU();
    auto session = Session::create(gpuContext(), affineModel());  // one frame slot
    ASSERT_TRUE(session.ok()) << session.status().toString();
    auto first = session->submit({{"x", frameInput(1)}});
    ASSERT_TRUE(first.ok()) << first.status().toString();
    // The same slot: the submission waits for the first, whose ticket ends (its outputs would
    // be overwritten).
    ASSERT_TRUE(session->stageInput(0, {"x", frameInput(2)}).ok());
    auto second = submitInference(*session, RecordIO{});
    ASSERT_TRUE(second.ok()) << second.status().toString();
    auto gone = session->wait(*first);
    EXPECT_EQ(gone.status().code(), ErrorCode::InvalidArgument) << gone.status().toString();
    auto out = session->wait(*second);
    ASSERT_TRUE(out.ok()) << out.status().toString();
    expectAffine(*out, frameInput(2));
    // And back: Session::run after submitInference on the same slot.
    auto again = session->run({{"x", frameInput(3)}});
    ASSERT_TRUE(again.ok()) << again.status().toString();
    expectAffine(*again, frameInput(3));
}

TEST(SubmitInference, ErrorsNameTheCallAndLeaveTheSessionUsable) {
    VKINFER_REQUIRE_GPU();
    Session empty;
    auto none = submitInference(empty, RecordIO{});
    EXPECT_EQ(none.status().code(), ErrorCode::InvalidArgument);
    EXPECT_NE(none.status().message().find("submitInference"), std::string::npos) << none.status().toString();

    auto session = Session::create(gpuContext(), affineModel());
    ASSERT_TRUE(session.ok()) << session.status().toString();
    RecordIO outOfRange;
    outOfRange.frame = 3;
    auto r = submitInference(*session, outOfRange);
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidArgument);
    EXPECT_NE(r.status().message().find("submitInference: frame 3 is out of range"), std::string::npos)
        << r.status().toString();

    RecordIO pooled;
    pooled.timestampPool = reinterpret_cast<VkQueryPool>(uint64_t(1));  // never used: refused first
    r = submitInference(*session, pooled);
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidArgument);
    EXPECT_NE(r.status().message().find("timestampPool"), std::string::npos) << r.status().toString();

    RecordIO unknown;
    unknown.bufferOutputs.push_back({"nope", BufferOutput{}});
    ASSERT_TRUE(session->stageInput(0, {"x", frameInput(0)}).ok());
    r = submitInference(*session, unknown);
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidArgument);
    EXPECT_NE(r.status().message().find("nope"), std::string::npos) << r.status().toString();

    // Nothing was submitted by the failures; the staged input is still there for the next.
    auto t = submitInference(*session, RecordIO{});
    ASSERT_TRUE(t.ok()) << t.status().toString();
    auto out = session->wait(*t);
    ASSERT_TRUE(out.ok()) << out.status().toString();
    expectAffine(*out, frameInput(0));
    auto messages = gpuContext().takeValidationMessages();
    EXPECT_TRUE(messages.empty()) << ::testing::PrintToString(messages);
}

}  // namespace
}  // namespace vkinfer::testing
