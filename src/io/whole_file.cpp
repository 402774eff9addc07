#include "io/whole_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/error.h"

namespace vkinfer::io {

std::string readWholeFile(const std::string& path, std::string_view what) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) fail(ErrorCode::InvalidArgument, "{} '{}' is a folder", what, path);
    std::ifstream f(path, std::ios::binary);
    if (!f) fail(ErrorCode::NotFound, "cannot open {} '{}': {}", what, path, std::strerror(errno));
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (f.bad()) fail(ErrorCode::ParseError, "cannot read {} '{}': {}", what, path, std::strerror(errno));
    return bytes;
}

}  // namespace vkinfer::io
