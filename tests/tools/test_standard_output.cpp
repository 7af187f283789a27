// A reader that closes early: eqsat ignores SIGPIPE, so a write to a pipe
// or FIFO nobody reads any more is a named error with the OS reason, exit
// 1, instead of a death by signal (exit 141) with a temporary left behind.
#include "run_eqsat.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using eqsat::testing::read_file;
using eqsat::testing::Scratch;

namespace {

// Starts `eqsat ARGS...` in `dir` with SIGPIPE at its default (as a shell
// would start it), standard output `out_fd` and standard error the file
// `dir/.stderr`; returns its process id.
pid_t start_eqsat(const Scratch& dir, const std::vector<std::string>& args, int out_fd) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::signal(SIGPIPE, SIG_DFL);
    const int err = ::open(dir.path(".stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (::chdir(dir.dir().c_str()) != 0 || err < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err, 2) < 0)
      ::_exit(99);
    std::vector<char*> argv{const_cast<char*>(EQSAT_BINARY)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(EQSAT_BINARY, argv.data());
    ::_exit(98);
  }
  return pid;
}

// The exit status of `pid`, or 128 + the signal that ended it.
int wait_status(pid_t pid) {
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

std::vector<std::string> files_in(const Scratch& s) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(s.dir()))
    names.push_back(e.path().filename().string());
  std::ranges::sort(names);
  return names;
}

}  // namespace

TEST_CASE("standard output to a pipe whose reader closed is a named error - exit 1") {
  Scratch s;
  s.write("g.eg", "(input x (f64 3))\n(output y (exp x))\n");
  for (const std::vector<std::string>& args : {std::vector<std::string>{"print", "g.eg"},
                                               {"optimize", "g.eg"},
                                               {"run", "g.eg", "--random", "0"}}) {
    INFO(args[0]);
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    ::close(fds[0]);  // the reader is gone before eqsat writes a byte
    const pid_t pid = start_eqsat(s, args, fds[1]);
    ::close(fds[1]);
    CHECK(wait_status(pid) == 1);
    CHECK(read_file(s.path(".stderr")) == "error: cannot write standard output: Broken pipe\n");
  }
}

TEST_CASE("a FIFO output whose reader closes mid-write is a named error - nothing left behind") {
  Scratch s;
  // y is 8 MB: far more than a pipe holds, so eqsat is still writing.
  s.write("g.eg", "(output y (full 1.5 :shape (1000000)))\n");
  REQUIRE(::mkfifo(s.path("y.npy").c_str(), 0600) == 0);
  const int reader = ::open(s.path("y.npy").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  REQUIRE(reader >= 0);
  const int null = ::open("/dev/null", O_WRONLY);
  const pid_t pid = start_eqsat(s, {"run", "g.eg", "--no-opt", "--out", "."}, null);
  ::close(null);
  // Read the first bytes eqsat writes, then close: the rest has no reader.
  pollfd p{reader, POLLIN, 0};
  REQUIRE(::poll(&p, 1, 60'000) == 1);
  char byte = 0;
  CHECK(::read(reader, &byte, 1) == 1);
  ::close(reader);
  CHECK(wait_status(pid) == 1);
  CHECK(read_file(s.path(".stderr")) == "./y.npy: error: cannot write file: Broken pipe\n");
  // The FIFO is still a FIFO, and no temporary is left beside it.
  CHECK(std::filesystem::is_fifo(s.path("y.npy")));
  CHECK(files_in(s) == std::vector<std::string>{".stderr", "g.eg", "y.npy"});
}
