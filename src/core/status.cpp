#include "vkinfer/status.h"

#include "vkinfer/vkinfer.h"

namespace vkinfer {

const char* errorCodeName(ErrorCode code) {
    switch (code) {
        case ErrorCode::Ok: return "ok";
        case ErrorCode::InvalidArgument: return "invalid argument";
        case ErrorCode::NotFound: return "not found";
        case ErrorCode::ParseError: return "parse error";
        case ErrorCode::Unsupported: return "unsupported";
        case ErrorCode::ShapeError: return "shape error";
        case ErrorCode::VulkanError: return "Vulkan error";
        case ErrorCode::ValidationError: return "validation error";
        case ErrorCode::DeviceLost: return "device lost";
        case ErrorCode::Internal: return "internal error";
        case ErrorCode::OutOfMemory: return "out of memory";
    }
    return "unknown error";
}

std::string Status::toString() const {
    if (ok()) return "ok";
    return std::string(errorCodeName(code_)) + ": " + message_;
}

const char* versionString() { return "0.1.0"; }

}  // namespace vkinfer
