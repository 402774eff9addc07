#include "fd_socket.h"

#include <dirent.h>
#include <errno.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

extern char** environ;

namespace vkinfer::fdsocket {

void sendAll(int socket, const void* data, size_t bytes) {
    const auto* p = static_cast<const char*>(data);
    while (bytes > 0) {
        ssize_t n = send(socket, p, bytes, MSG_NOSIGNAL);  // a closed peer is an error, not SIGPIPE
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::runtime_error(std::string("send: ") + std::strerror(errno));
        p += n;
        bytes -= static_cast<size_t>(n);
    }
}

void receiveAll(int socket, void* data, size_t bytes) {
    auto* p = static_cast<char*>(data);
    while (bytes > 0) {
        ssize_t n = recv(socket, p, bytes, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw std::runtime_error(std::string("recv: ") + std::strerror(errno));
        if (n == 0) throw std::runtime_error("recv: the other side closed the connection");
        p += n;
        bytes -= static_cast<size_t>(n);
    }
}

void sendWithFd(int socket, const void* data, size_t bytes, int fd) {
    if (bytes == 0) throw std::runtime_error("sendWithFd needs at least one byte of payload");
    iovec iov{const_cast<void*>(data), bytes};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
    ssize_t n;
    do n = sendmsg(socket, &msg, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n < 0) throw std::runtime_error(std::string("sendmsg: ") + std::strerror(errno));
    // The fd went with the first byte; the rest is plain payload.
    if (static_cast<size_t>(n) < bytes) sendAll(socket, static_cast<const char*>(data) + n, bytes - static_cast<size_t>(n));
}

void receiveWithFd(int socket, void* data, size_t bytes, int* fd) {
    if (fd) *fd = -1;
    iovec iov{data, bytes};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    ssize_t n;
    do n = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n < 0) throw std::runtime_error(std::string("recvmsg: ") + std::strerror(errno));
    if (n == 0) throw std::runtime_error("recvmsg: the other side closed the connection");
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int received = -1;
            std::memcpy(&received, CMSG_DATA(c), sizeof(int));
            if (fd) *fd = received;
            else close(received);
        }
    }
    if (static_cast<size_t>(n) < bytes) receiveAll(socket, static_cast<char*>(data) + n, bytes - static_cast<size_t>(n));
}

int openFdCount() {
    DIR* dir = opendir("/proc/self/fd");
    if (!dir) throw std::runtime_error("cannot list /proc/self/fd");
    int n = 0;
    while (dirent* e = readdir(dir))
        if (e->d_name[0] != '.') ++n;
    closedir(dir);
    return n - 1;  // the listing's own descriptor
}

SpawnedProcess spawnWithSocket(const std::string& path, const std::vector<std::string>& arguments) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, sv[1], 3);  // dup2 clears close-on-exec
    posix_spawn_file_actions_addclosefrom_np(&actions, 4);  // Vulkan fds travel by the socket only
    std::vector<std::string> args{path};
    args.insert(args.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    SpawnedProcess p;
    int rc = posix_spawn(&p.pid, path.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(sv[1]);
    if (rc != 0) {
        close(sv[0]);
        throw std::runtime_error("cannot start " + path + ": " + std::strerror(rc));
    }
    p.socket = sv[0];
    return p;
}

std::string describeExit(int status) {
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
    return "ended (status " + std::to_string(status) + ")";
}

}  // namespace vkinfer::fdsocket
