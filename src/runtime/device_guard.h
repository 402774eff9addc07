// Entry points that touch the device go through these instead of guardStatus/guardResult:
// they refuse to run on a device already lost, and record the loss when their own call
// reports VK_ERROR_DEVICE_LOST (see ContextImpl::lost).
#pragma once

#include "core/error.h"
#include "runtime/context_impl.h"

namespace vkinfer::detail {

template <class F>
auto throughDevice(ContextImpl& ctx, const char* call, F&& body) {
    ctx.throwIfLost(call);
    try {
        return body();
    } catch (const Error& e) {
        if (e.status().code() == ErrorCode::DeviceLost) ctx.markLost(call, e.status().message());
        throw;
    }
}

template <class F>
Status guardDevice(ContextImpl& ctx, const char* call, F&& body) {
    return guardStatus([&] { throughDevice(ctx, call, body); });
}

template <class T, class F>
Result<T> guardDeviceResult(ContextImpl& ctx, const char* call, F&& body) {
    return guardResult<T>([&] { return throughDevice(ctx, call, body); });
}

}  // namespace vkinfer::detail
