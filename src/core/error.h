// Internal error handling. Inside the library, failures throw vkinfer::Error; every public
// entry point catches it (guardStatus/guardResult) and returns a Status, so nothing
// crosses the API as an exception.
#pragma once

#include <fmt/format.h>

#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "vkinfer/status.h"

namespace vkinfer {

class Error : public std::runtime_error {
public:
    explicit Error(Status status) : std::runtime_error(status.message()), status_(std::move(status)) {}
    const Status& status() const { return status_; }

private:
    Status status_;
};

template <class... Args>
[[noreturn]] void fail(ErrorCode code, fmt::format_string<Args...> format, Args&&... args) {
    throw Error(Status(code, fmt::format(format, std::forward<Args>(args)...)));
}

// Converts whatever escapes `body` into a Status.
template <class F>
Status guardStatus(F&& body) {
    try {
        body();
        return Status();
    } catch (const Error& e) {
        return e.status();
    } catch (const std::bad_alloc&) {
        return Status(ErrorCode::OutOfMemory, "out of host memory");
    } catch (const std::exception& e) {
        return Status(ErrorCode::Internal, e.what());
    }
}

template <class T, class F>
Result<T> guardResult(F&& body) {
    try {
        return Result<T>(body());
    } catch (const Error& e) {
        return e.status();
    } catch (const std::bad_alloc&) {
        return Status(ErrorCode::OutOfMemory, "out of host memory");
    } catch (const std::exception& e) {
        return Status(ErrorCode::Internal, e.what());
    }
}

// Unwraps a Result inside the library, rethrowing its failure.
template <class T>
T unwrap(Result<T>&& r) {
    if (!r.ok()) throw Error(r.status());
    return std::move(r).value();
}
inline void unwrap(const Status& s) {
    if (!s.ok()) throw Error(s);
}

}  // namespace vkinfer
