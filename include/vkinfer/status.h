// Error reporting for the public API.
//
// No vkinfer entry point throws: each returns a Status or a Result<T>. A failed
// Status carries a code, a message that names what was at fault (node, op,
// tensor, file or Vulkan call) and, for Vulkan failures, the VkResult value.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace vkinfer {

enum class ErrorCode : int32_t {
    Ok = 0,
    InvalidArgument,   // a caller-supplied value is wrong (name, shape, option)
    NotFound,          // a file, input or device does not exist
    ParseError,        // a model or tensor file is malformed or truncated
    Unsupported,       // an operator, opset, data type or feature is not supported
    ShapeError,        // shapes do not agree (reported while inferring shapes)
    VulkanError,       // a Vulkan call failed; vkResult() holds the VkResult
    ValidationError,   // the Khronos validation layer reported a message
    DeviceLost,        // the device was lost (VK_ERROR_DEVICE_LOST); the context cannot run again
    Internal,
    OutOfMemory,       // host or device memory could not be allocated; the message names what and how much
};

const char* errorCodeName(ErrorCode code);

class [[nodiscard]] Status {
public:
    Status() = default;
    Status(ErrorCode code, std::string message, int32_t vk_result = 0)
        : code_(code), message_(std::move(message)), vk_result_(vk_result) {}

    static Status okStatus() { return {}; }

    bool ok() const { return code_ == ErrorCode::Ok; }
    explicit operator bool() const { return ok(); }
    ErrorCode code() const { return code_; }
    const std::string& message() const { return message_; }
    // The VkResult of the failed Vulkan call (0 = VK_SUCCESS when not a Vulkan error).
    int32_t vkResult() const { return vk_result_; }
    // "<code name>: <message>".
    std::string toString() const;

private:
    ErrorCode code_ = ErrorCode::Ok;
    std::string message_;
    int32_t vk_result_ = 0;
};

// Either a value or a failed Status (like C++23 std::expected).
template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
    Result(Status status) : v_(std::move(status)) {  // NOLINT(google-explicit-constructor)
        if (std::get<Status>(v_).ok())
            v_ = Status(ErrorCode::Internal, "Result constructed from an OK status without a value");
    }

    bool ok() const { return std::holds_alternative<T>(v_); }
    explicit operator bool() const { return ok(); }

    // Precondition for the accessors below: ok().
    T& value() & { return std::get<T>(v_); }
    const T& value() const& { return std::get<T>(v_); }
    T&& value() && { return std::get<T>(std::move(v_)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    // The failure, or an OK status when a value is held.
    Status status() const { return ok() ? Status() : std::get<Status>(v_); }

private:
    std::variant<T, Status> v_;
};

}  // namespace vkinfer
