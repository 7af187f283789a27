#include "output_file.hpp"

#include "diagnostic.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace eqsat::ops {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
  throw DiagnosticError(SourceLocation{path, 0, 0}, "cannot write file: " + reason);
}

[[noreturn]] void fail(const std::string& path, int error) {
  fail(path, std::strerror(error));
}

// Room a temporary's name needs beyond the target's: '.', ".tmp-", a pid
// and a counter of up to 10 digits each, '-'.
constexpr std::size_t kTemporarySuffixBytes = 1 + 5 + 10 + 1 + 10;
constexpr std::size_t kMaxNameBytes = 255;

// The part of the target's file name a temporary keeps.
std::string temporary_stem(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  return fmt::format(".{}.tmp-", name.substr(0, kMaxNameBytes - kTemporarySuffixBytes));
}

// Writes all of `data` to `fd`; false with errno set on failure.
bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// Writes `parts` through the special file `path` (of mode `mode`) as a
// stream. Opened without blocking, so that a pipe no one reads is refused
// rather than waited on forever.
void write_stream(const std::string& path, mode_t mode,
                  std::initializer_list<std::string_view> parts) {
  if (S_ISSOCK(mode)) fail(path, "it is a socket");
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENXIO && S_ISFIFO(mode)) fail(path, "it is a named pipe that no process reads");
    fail(path, errno);
  }
  const int flags = ::fcntl(fd, F_GETFL);
  bool ok = flags >= 0 && ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0;
  for (std::string_view part : parts) ok = ok && write_all(fd, part);
  const int error = ok ? 0 : errno;
  ::close(fd);
  if (!ok) fail(path, error);
}

}  // namespace

std::string temporary_path_for(const std::string& path, long pid, unsigned n) {
  return (fs::path(path).parent_path() / fmt::format("{}{}-{}", temporary_stem(path), pid, n))
      .string();
}

int remove_stale_temporaries(const std::string& path) {
  const std::string stem = temporary_stem(path);
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  int removed = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(stem)) continue;
    // The rest is exactly PID-N.
    const char* p = name.data() + stem.size();
    const char* last = name.data() + name.size();
    long pid = 0;
    unsigned n = 0;
    auto [after_pid, e1] = std::from_chars(p, last, pid);
    if (e1 != std::errc() || after_pid == p || after_pid == last || *after_pid != '-') continue;
    auto [after_n, e2] = std::from_chars(after_pid + 1, last, n);
    if (e2 != std::errc() || after_n == after_pid + 1 || after_n != last) continue;
    if (pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours
    if (::unlink(it->path().c_str()) == 0) ++removed;
  }
  return removed;
}

void write_file_atomically(const std::string& path, std::initializer_list<std::string_view> parts) {
  if (struct stat st{}; ::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail(path, "it is a directory");
    if (!S_ISREG(st.st_mode)) return write_stream(path, st.st_mode, parts);
  }
  remove_stale_temporaries(path);
  static std::atomic<unsigned> counter{0};
  const std::string temp = temporary_path_for(path, ::getpid(), counter++);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) fail(path, errno);
  bool ok = true;
  for (std::string_view part : parts) ok = ok && write_all(fd, part);
  int error = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (ok && std::rename(temp.c_str(), path.c_str()) != 0) {
    ok = false;
    error = errno;
  }
  if (!ok) {
    ::unlink(temp.c_str());
    fail(path, error);
  }
}

}  // namespace eqsat::ops
