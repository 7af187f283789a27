#include "egraph/extract/child_with_deadline.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>

namespace eqsat::egraph {

namespace {

bool write_all(int fd, const char* bytes, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    bytes += written;
    size -= static_cast<std::size_t>(written);
  }
  return true;
}

}  // namespace

std::optional<std::vector<char>> run_in_child(const std::function<std::vector<char>()>& work,
                                              double seconds, bool* ran_here) {
  if (ran_here) *ran_here = false;
  int fds[2];
  if (::pipe(fds) != 0) {
    if (ran_here) *ran_here = true;
    return work();
  }
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    if (ran_here) *ran_here = true;
    return work();
  }
  if (child == 0) {
    ::close(fds[0]);
    const std::vector<char> out = work();
    ::_exit(write_all(fds[1], out.data(), out.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  // Killing and reaping the child takes a moment too.
  const double margin = std::max(0.01, 0.02 * seconds);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(seconds - margin));
  std::vector<char> bytes;
  bool complete = false;
  while (true) {
    const double left =
        std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0.0) break;
    pollfd waiting{fds[0], POLLIN, 0};
    const int ready = ::poll(&waiting, 1, static_cast<int>(std::ceil(left * 1000.0)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    char buffer[1 << 16];
    const ssize_t got = ::read(fds[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      complete = got == 0;
      break;
    }
    bytes.insert(bytes.end(), buffer, buffer + got);
  }
  ::close(fds[0]);
  if (!complete) ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!complete || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return bytes;
}

}  // namespace eqsat::egraph
