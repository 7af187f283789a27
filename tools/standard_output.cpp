#include "standard_output.hpp"

#include "command.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <poll.h>
#include <unistd.h>

namespace eqsat::tools {

namespace {
// The reason of a write to standard output that failed before the final
// flush (stdio keeps the error flag, not errno): a pipe left with no
// reader reports POLLERR on its write end, and every write there is EPIPE.
int earlier_error() {
  pollfd p{STDOUT_FILENO, POLLOUT, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0 ? EPIPE : 0;
}
}  // namespace

void ignore_broken_pipes() {
  std::signal(SIGPIPE, SIG_IGN);
}

int finish_standard_output(int status, std::ostream& err) {
  // std::cout is synchronized with stdio: its text is in stdout's buffer.
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int flush_error = errno;
  if (flushed && !std::ferror(stdout) && std::cout.good()) return status;
  const int error = flushed ? earlier_error() : flush_error;
  err << "error: cannot write standard output: "
      << (error != 0 ? std::strerror(error) : "a write failed") << "\n";
  return status == Success ? static_cast<int>(UserError) : status;
}

}  // namespace eqsat::tools
