// Separate-context execution: submit/wait with several frames in flight, and the timings
// RunStats reports.
#include <gtest/gtest.h>

#include <cstring>

#include "support/gpu_context.h"
#include "support/onnx_builder.h"
#include "support/small_models.h"

namespace vkinfer::testing {
namespace {


Tensor frameInput(int k) {
    Tensor t(DataType::Float32, {1, 4, 8, 8});
    for (int64_t i = 0; i < t.elementCount(); ++i) t.as<float>()[i] = static_cast<float>((i + 7 * k) % 17) - 8.0f;
    return t;
}

void expectFrameOutput(const std::vector<NamedTensor>& out, int k) {
    ASSERT_EQ(out.size(), 1u);
    Tensor in = frameInput(k);
    for (int64_t i = 0; i < in.elementCount(); ++i)
        ASSERT_EQ(out[0].tensor.as<float>()[i], std::max(in.as<float>()[i] * 2.0f + 1.0f, 0.0f)) << "frame " << k << " at " << i;
}

TEST(AsyncSubmit, FramesInFlightEachGetTheirOwnOutputs) {
    VKINFER_REQUIRE_GPU();
    SessionOptions opts;
    opts.framesInFlight = 3;
    auto session = Session::create(gpuContext(), affineModel(), opts);
    ASSERT_TRUE(session.ok()) << session.status().toString();
    std::vector<Ticket> tickets;
    for (int k = 0; k < 3; ++k) {
        auto t = session->submit({{"x", frameInput(k)}});
        ASSERT_TRUE(t.ok()) << t.status().toString();
        EXPECT_EQ(t->frame, static_cast<uint32_t>(k));
        tickets.push_back(*t);
    }
    EXPECT_LT(tickets[0].value, tickets[1].value);
    for (int k = 2; k >= 0; --k) {  // any order
        auto out = session->wait(tickets[k]);
        ASSERT_TRUE(out.ok()) << out.status().toString();
        expectFrameOutput(*out, k);
        auto done = session->isDone(tickets[k]);
        ASSERT_TRUE(done.ok());
        EXPECT_TRUE(*done);
    }
    // Waiting twice is an error naming the ticket.
    auto again = session->wait(tickets[0]);
    EXPECT_FALSE(again.ok());
    EXPECT_NE(again.status().message().find("not outstanding"), std::string::npos) << again.status().message();
}

TEST(AsyncSubmit, ReusingASlotExpiresItsOldTicket) {
    VKINFER_REQUIRE_GPU();
    SessionOptions opts;
    opts.framesInFlight = 2;
    auto session = Session::create(gpuContext(), affineModel(), opts);
    ASSERT_TRUE(session.ok());
    std::vector<Ticket> t;
    for (int k = 0; k < 3; ++k) t.push_back(*session->submit({{"x", frameInput(k)}}));
    EXPECT_EQ(t[2].frame, t[0].frame);
    EXPECT_FALSE(session->wait(t[0]).ok()) << "frame 0 was reused by the third submission";
    auto out2 = session->wait(t[2]);
    ASSERT_TRUE(out2.ok()) << out2.status().toString();
    expectFrameOutput(*out2, 2);
    auto out1 = session->wait(t[1]);
    ASSERT_TRUE(out1.ok());
    expectFrameOutput(*out1, 1);
}

TEST(AsyncSubmit, FrameSlotsBoundsAreChecked) {
    VKINFER_REQUIRE_GPU();
    SessionOptions opts;
    opts.framesInFlight = 0;
    EXPECT_FALSE(Session::create(gpuContext(), affineModel(), opts).ok());
    opts.framesInFlight = 2;
    auto session = Session::create(gpuContext(), affineModel(), opts);
    ASSERT_TRUE(session.ok());
    EXPECT_FALSE(session->stageInput(2, {"x", frameInput(0)}).ok());
    EXPECT_FALSE(session->readOutputs(0).ok()) << "nothing recorded or run yet";
}

// SessionOptions::profile: one GPU time per planned dispatch, adding up to no more than the
// time around all dispatches; outputs unchanged; nothing per dispatch without it.
TEST(RunStatsTimes, ProfileGivesOneTimePerDispatch) {
    VKINFER_REQUIRE_GPU();
    if (!gpuContext().device().timestamps) GTEST_SKIP() << "no timestamp support";
    Model model = affineModel();
    OnnxBuilder two;  // two dependent dispatches (Softmax does not fuse into the Relu)
    two.input("x", {1, 4, 8, 8}).output("y");
    two.node("Relu", {"x"}, {"r"});
    attr(two.node("Softmax", {"r"}, {"y"}), "axis", int64_t{1});
    Model chained = *two.build();
    for (const Model* m : {&model, &chained}) {
        auto plan = planSummary(*m, {});
        ASSERT_TRUE(plan.ok()) << plan.status().toString();
        for (uint32_t frames : {1u, 2u}) {
            SessionOptions opts;
            opts.profile = true;
            opts.framesInFlight = frames;
            auto session = Session::create(gpuContext(), *m, opts);
            ASSERT_TRUE(session.ok()) << session.status().toString();
            for (int k = 0; k < 3; ++k) {
                RunStats stats;
                auto out = session->run({{"x", frameInput(k)}}, &stats);
                ASSERT_TRUE(out.ok()) << out.status().toString();
                if (m == &model) expectFrameOutput(*out, k);
                ASSERT_EQ(stats.dispatchMs.size(), static_cast<size_t>(plan->dispatches));
                double sum = 0;
                for (double ms : stats.dispatchMs) {
                    EXPECT_GE(ms, 0.0);
                    sum += ms;
                }
                EXPECT_LE(sum, stats.gpuMs + 1e-6);
                EXPECT_GT(stats.gpuMs, 0.0);
            }
        }
        auto plain = Session::create(gpuContext(), *m);
        ASSERT_TRUE(plain.ok());
        RunStats stats;
        ASSERT_TRUE(plain->run({{"x", frameInput(0)}}, &stats).ok());
        EXPECT_TRUE(stats.dispatchMs.empty());
        EXPECT_GE(stats.gpuMs, 0.0);
    }
}

// SessionOptions::queue on a context vkinfer created: the asynchronous-compute session runs
// on a compute family without graphics where the device has one (the H200: the context's
// queue already), else on the context's queue, saying so (lavapipe); either way its frames
// in flight give the same outputs as a session on the context's queue.
TEST(AsyncSubmit, AsyncComputeQueueGivesTheSameOutputs) {
    VKINFER_REQUIRE_GPU();
    const QueueInfo& async = gpuContext().queue(SessionQueue::AsyncCompute);
    const QueueInfo& main = gpuContext().queue(SessionQueue::Context);
    EXPECT_FALSE(main.fellBack);
    EXPECT_FALSE(main.description.empty());
    EXPECT_EQ(async.fellBack, !async.computeOnly) << async.description;
    if (async.fellBack) {
        EXPECT_EQ(async.family, main.family);
        EXPECT_NE(async.description.find("no compute queue family without graphics"), std::string::npos)
            << async.description;
    }
    SessionOptions opts;
    opts.framesInFlight = 2;
    opts.queue = SessionQueue::AsyncCompute;
    auto session = Session::create(gpuContext(), affineModel(), opts);
    ASSERT_TRUE(session.ok()) << session.status().toString();
    EXPECT_EQ(session->queue().family, async.family);
    std::vector<Ticket> tickets;
    for (int k = 0; k < 3; ++k) {
        if (k >= 2) {
            auto out = session->wait(tickets[k - 2]);
            ASSERT_TRUE(out.ok()) << out.status().toString();
            expectFrameOutput(*out, k - 2);
        }
        auto t = session->submit({{"x", frameInput(k)}});
        ASSERT_TRUE(t.ok()) << t.status().toString();
        tickets.push_back(*t);
    }
    auto last = session->wait(tickets[2]);
    ASSERT_TRUE(last.ok()) << last.status().toString();
    expectFrameOutput(*last, 2);
}

}  // namespace
}  // namespace vkinfer::testing
