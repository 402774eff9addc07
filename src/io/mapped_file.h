// A read-only file mapped into memory (mmap, MAP_PRIVATE), shared by everything that reads
// it: a model file while it is parsed, an external data file for as long as a tensor
// borrows its bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace vkinfer::io {

class MappedFile {
public:
    // Why open() returned null.
    struct Failure {
        int error = 0;                // errno of open/fstat
        bool notRegularFile = false;  // a folder, device, FIFO or socket
        bool isDirectory = false;
    };

    // Opens `path` (following no symbolic link in its last component when noFollow) and maps
    // it. A regular file that cannot be mapped (a file system without mmap) stays open and is
    // read with pread instead. Returns null, with the reason in *failure, when the file cannot
    // be opened or is not a regular file.
    static std::shared_ptr<const MappedFile> open(const std::string& path, Failure* failure, bool noFollow = false);

    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile();

    const std::string& path() const { return path_; }
    uint64_t size() const { return size_; }
    // The file's bytes, or null when it is empty or could not be mapped (then use read()).
    const std::byte* data() const { return data_; }
    // Copies bytes [offset, offset + n), which must lie inside the file, to `dst`. Throws
    // Error(Internal) naming the file if reading fails.
    void read(uint64_t offset, uint64_t n, void* dst) const;

private:
    MappedFile() = default;
    std::string path_;
    uint64_t size_ = 0;
    const std::byte* data_ = nullptr;
    int fd_ = -1;  // kept open only when the file is not mapped
};

}  // namespace vkinfer::io
