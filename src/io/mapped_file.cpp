#include "io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace vkinfer::io {

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path, Failure* failure, bool noFollow) {
    *failure = {};
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (noFollow ? O_NOFOLLOW : 0));
    if (fd < 0) {
        failure->error = errno;
        failure->isDirectory = errno == EISDIR;
        return nullptr;
    }
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        failure->error = errno;
        failure->notRegularFile = true;
        failure->isDirectory = S_ISDIR(st.st_mode);
        ::close(fd);
        return nullptr;
    }
    std::shared_ptr<MappedFile> f(new MappedFile());
    f->path_ = path;
    f->size_ = static_cast<uint64_t>(st.st_size);
    if (f->size_ > 0) {
        void* p = mmap(nullptr, static_cast<size_t>(f->size_), PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) f->data_ = static_cast<const std::byte*>(p);
    }
    if (f->data_ || f->size_ == 0) ::close(fd);
    else f->fd_ = fd;
    return f;
}

MappedFile::~MappedFile() {
    if (data_) munmap(const_cast<std::byte*>(data_), static_cast<size_t>(size_));
    if (fd_ >= 0) ::close(fd_);
}

void MappedFile::read(uint64_t offset, uint64_t n, void* dst) const {
    if (offset > size_ || n > size_ - offset)
        fail(ErrorCode::Internal, "'{}': reading {} bytes at offset {} of a {}-byte file", path_, n, offset, size_);
    if (data_) {
        std::memcpy(dst, data_ + offset, static_cast<size_t>(n));
        return;
    }
    auto* out = static_cast<std::byte*>(dst);
    while (n > 0) {  // pread may return fewer bytes than asked (and at most ~2 GiB at a time)
        ssize_t got = pread(fd_, out, static_cast<size_t>(std::min<uint64_t>(n, 1u << 30)), static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0)
            fail(ErrorCode::Internal, "'{}': reading at offset {} failed: {}", path_, offset,
                 got < 0 ? std::strerror(errno) : "unexpected end of file (was it truncated?)");
        out += got;
        offset += static_cast<uint64_t>(got);
        n -= static_cast<uint64_t>(got);
    }
}

}  // namespace vkinfer::io
