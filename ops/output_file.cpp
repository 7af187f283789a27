#include "output_file.hpp"

#include "diagnostic.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <unistd.h>

namespace eqsat::ops {

namespace {

[[noreturn]] void fail(const std::string& path, int error) {
  throw DiagnosticError(SourceLocation{path, 0, 0},
                        fmt::format("cannot write file: {}", std::strerror(error)));
}

// A name in the target's directory that no other writer uses: hidden, with
// the process id and a counter.
std::string temporary_path_for(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path target(path);
  return (target.parent_path() /
          fmt::format(".{}.tmp-{}-{}", target.filename().string(), ::getpid(), counter++))
      .string();
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

}  // namespace

void write_file_atomically(const std::string& path, std::initializer_list<std::string_view> parts) {
  if (std::error_code ec; std::filesystem::is_directory(path, ec))
    throw DiagnosticError(SourceLocation{path, 0, 0}, "cannot write file: it is a directory");
  const std::string temp = temporary_path_for(path);
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
