// submitInference: the host's images and buffers (RecordIO) run on the session's own queue,
// for sessions whose device the host cannot record into (Context::create) or that it does
// not want to: recorded into the frame slot's own command buffer and submitted like
// Session::submit, so tickets, waits, fences and exported semaphores work as for it.
#include "core/error.h"
#include "interop/recording.h"
#include "runtime/device_guard.h"
#include "runtime/session_impl.h"
#include "vkinfer/interop.h"

namespace vkinfer {

Result<Ticket> submitInference(Session& session, const RecordIO& io) {
    if (!session.impl()) return Status(ErrorCode::InvalidArgument, "submitInference: the session is empty");
    return detail::guardDeviceResult<Ticket>(*session.impl()->context.impl(), "submitInference", [&] {
        detail::SessionImpl& s = *session.impl();
        if (io.timestampPool)
            fail(ErrorCode::InvalidArgument,
                 "submitInference: RecordIO::timestampPool is for recordInference; here Session::wait with RunStats "
                 "gives the GPU times (SessionOptions::timestamps, profile)");
        interop::RecordingTarget target = interop::resolveRecording(s, io, "submitInference");
        uint64_t ticket = s.submitWith(target.plan, io.frame, [&](rt::FrameSlot& slot, uint64_t value) {
            auto record = [&](VkCommandBuffer cmd, VkQueryPool timestamps, VkQueryPool profileQueries) {
                // The phases recordInference stamps are the run's (rt::TimestampLayout 0..3).
                interop::recordInto(s, target.plan, slot, cmd, io, {timestamps, 0, profileQueries});
            };
            target.plan.submitRecording(slot, record, value, s.pendingWaits, s.timelineSemaphore());
        });
        s.ctx().checkValidation("submission");
        return Ticket{ticket, io.frame};
    });
}

}  // namespace vkinfer
