#include "io/external_data.h"

#include <charconv>
#include <cstring>

#include "core/error.h"
#include "core/host_alloc.h"

namespace vkinfer::io {

namespace fs = std::filesystem;

namespace {

struct Entries {
    std::string location;
    bool hasLocation = false;
    uint64_t offset = 0;
    bool hasLength = false;
    uint64_t length = 0;
};

uint64_t parseSize(const std::string& value, const char* key, const std::string& what) {
    uint64_t v = 0;
    const char* end = value.data() + value.size();
    auto [p, ec] = std::from_chars(value.data(), end, v);
    if (value.empty() || ec != std::errc() || p != end)
        fail(ErrorCode::ParseError,
             "tensor '{}': external data {} '{}' is not a byte count (a non-negative decimal integer)", what, key, value);
    return v;
}

Entries entriesOf(const onnx::TensorProto& proto, const std::string& what) {
    Entries e;
    for (const auto& kv : proto.external_data()) {  // the last of repeated keys wins
        if (kv.key() == "location") {
            e.location = kv.value();
            e.hasLocation = true;
        } else if (kv.key() == "offset") {
            e.offset = parseSize(kv.value(), "offset", what);
        } else if (kv.key() == "length") {
            e.length = parseSize(kv.value(), "length", what);
            e.hasLength = true;
        }
        // "checksum" (SHA-1 of the whole file) and "basepath" (added by some loaders) are
        // not needed to read the data.
    }
    return e;
}

// `p` is `root` or below it (both absolute and normalized).
bool isWithin(const fs::path& p, const fs::path& root) {
    auto r = root.begin(), q = p.begin();
    for (; r != root.end(); ++r, ++q) {
        if (r->empty()) continue;  // a trailing separator's empty last component
        if (q == p.end() || *q != *r) return false;
    }
    return true;
}

}  // namespace

ExternalData::ExternalData(std::string modelFolder) : folder_(std::move(modelFolder)) {}

std::shared_ptr<const MappedFile> ExternalData::fileFor(const std::string& location, const std::string& what) {
    if (folder_.empty())
        fail(ErrorCode::InvalidArgument,
             "tensor '{}' keeps its data in the external file '{}', but the model was loaded from memory, so there is no "
             "folder to find it in (load the model from its file, or give Model::fromBytes the model's folder)",
             what, location);
    if (location.empty()) fail(ErrorCode::InvalidArgument, "tensor '{}': its external data has an empty location", what);
    if (location.find('\0') != std::string::npos)
        fail(ErrorCode::InvalidArgument, "tensor '{}': external data location '{}' contains a NUL character", what,
             location.c_str());
    const fs::path loc(location);
    if (loc.is_absolute() || loc.has_root_directory() || loc.has_root_name())
        fail(ErrorCode::InvalidArgument,
             "tensor '{}': external data location '{}' is an absolute path; it must be relative to the model's "
             "folder '{}'",
             what, location, folder_);
    const fs::path normal = loc.lexically_normal();
    if (normal.empty() || *normal.begin() == "..")
        fail(ErrorCode::InvalidArgument, "tensor '{}': external data location '{}' leaves the model's folder '{}'", what,
             location, folder_);

    std::error_code ec;
    if (canonicalFolder_.empty()) {
        canonicalFolder_ = fs::weakly_canonical(fs::absolute(folder_, ec), ec);
        if (ec)
            fail(ErrorCode::NotFound, "tensor '{}': the model's folder '{}' cannot be resolved: {}", what, folder_,
                 ec.message());
    }
    const fs::path joined = fs::path(folder_) / normal;
    // Symbolic links anywhere on the way (the file or a folder) are resolved before the
    // comparison, so a link pointing outside the model's folder is caught.
    const fs::path resolved = fs::weakly_canonical(fs::absolute(joined, ec), ec);
    if (ec)
        fail(ErrorCode::NotFound, "tensor '{}': external data file '{}' (location '{}') cannot be resolved: {}", what,
             joined.string(), location, ec.message());
    if (!isWithin(resolved, canonicalFolder_))
        fail(ErrorCode::InvalidArgument,
             "tensor '{}': external data location '{}' resolves to '{}', outside the model's folder '{}' (through a "
             "symbolic link)",
             what, location, resolved.string(), canonicalFolder_.string());

    auto it = files_.find(resolved.string());
    if (it != files_.end()) return it->second;
    MappedFile::Failure why;
    // The resolved path has no links left; O_NOFOLLOW refuses one swapped in since.
    auto file = MappedFile::open(resolved.string(), &why, /*noFollow=*/true);
    if (!file) {
        if (why.isDirectory)
            fail(ErrorCode::InvalidArgument, "tensor '{}': external data location '{}' ('{}') is a folder, not a file",
                 what, location, joined.string());
        if (why.notRegularFile)
            fail(ErrorCode::InvalidArgument, "tensor '{}': external data location '{}' ('{}') is not a regular file",
                 what, location, joined.string());
        if (why.error == ENOENT || why.error == ENOTDIR)
            fail(ErrorCode::NotFound, "tensor '{}': external data file '{}' (location '{}') does not exist", what,
                 joined.string(), location);
        fail(ErrorCode::NotFound, "tensor '{}': cannot open external data file '{}' (location '{}'): {}", what,
             joined.string(), location, std::strerror(why.error));
    }
    files_.emplace(resolved.string(), file);
    return file;
}

Tensor ExternalData::read(const onnx::TensorProto& proto, DataType type, const std::vector<int64_t>& dims,
                          uint64_t bytes, const std::string& what) {
    const Entries e = entriesOf(proto, what);
    if (!e.hasLocation)
        fail(ErrorCode::ParseError,
             "tensor '{}' keeps its data in an external file but names none (no 'location' entry)", what);
    if (e.hasLength && e.length != bytes)
        fail(ErrorCode::ParseError, "tensor '{}': external data length is {} bytes, but shape {} of {} needs {}", what,
             e.length, shapeToString(dims), dataTypeName(type), bytes);
    auto file = fileFor(e.location, what);
    // No length: the tensor's bytes from `offset` (ONNX readers take the rest of the file;
    // a file longer than that is accepted here).
    if (e.offset > file->size() || file->size() - e.offset < bytes)
        fail(ErrorCode::ParseError,
             "tensor '{}': external data file '{}' holds {} bytes, but the tensor needs {} bytes (shape {} of {}) at "
             "offset {}{}: the file is too short",
             what, file->path(), file->size(), bytes, shapeToString(dims), dataTypeName(type), e.offset,
             e.hasLength ? fmt::format(" (length {})", e.length) : std::string());
    if (bytes == 0) return Tensor(type, dims);
    const size_t align = dataTypeSize(type);
    if (file->data() && reinterpret_cast<uintptr_t>(file->data() + e.offset) % align == 0)
        return Tensor::borrow(type, dims, file->data() + e.offset, std::shared_ptr<const void>(file, file->data()));
    // Not mapped, or at an offset misaligned for the element type: one copy.
    Tensor t = allocateTensor(type, dims, "tensor '" + what + "'");
    file->read(e.offset, bytes, t.data());
    return t;
}

}  // namespace vkinfer::io
