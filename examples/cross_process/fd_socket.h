// Messages and file descriptors over a Unix stream socket (SCM_RIGHTS), and spawning a helper
// process with one end of a socket pair: what two processes sharing Vulkan memory and
// semaphores by fd need besides Vulkan. Used by the cross-process example
// (examples/cross_process/) and by the interop tests and their helper processes
// (tests/interop/). Failures throw std::runtime_error.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace vkinfer::fdsocket {

// Sends or receives exactly `bytes` bytes; a closed connection is an error.
void sendAll(int socket, const void* data, size_t bytes);
void receiveAll(int socket, void* data, size_t bytes);
// `bytes` (at least one) with `fd` alongside. The receiver gets its own descriptor (close-on-
// exec), or -1 when none came; the sender still owns and closes `fd`.
void sendWithFd(int socket, const void* data, size_t bytes, int fd);
void receiveWithFd(int socket, void* data, size_t bytes, int* fd);

// Number of open file descriptors of this process (entries of /proc/self/fd).
int openFdCount();

// A helper program started (fork + exec, posix_spawn) with one end of a socket pair as its
// fd 3 and no other descriptor of this process beyond 0-2; `socket` is this process's end.
struct SpawnedProcess {
    pid_t pid = -1;
    int socket = -1;
};
// argv[0] is `path`; `arguments` follow. Throws naming the program when it cannot start.
SpawnedProcess spawnWithSocket(const std::string& path, const std::vector<std::string>& arguments);
// "exited with status 3", "was killed by signal 9": for error messages about a waitpid status.
std::string describeExit(int status);

}  // namespace vkinfer::fdsocket
