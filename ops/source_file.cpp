#include "source_file.hpp"

#include "diagnostic.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <sys/stat.h>

namespace eqsat::ops {

std::string cannot_read_message(const std::string& path) {
  const int error = errno;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return "cannot read file: it is a directory";
  return fmt::format("cannot read file: {}", std::strerror(error != 0 ? error : EIO));
}

std::string read_source_file(const std::string& path, std::size_t max_bytes) {
  auto fail = [&](const std::string& message) -> std::string {
    throw DiagnosticError(SourceLocation{path, 0, 0}, message);
  };
  errno = 0;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return fail(cannot_read_message(path));
  struct stat st {};
  if (::fstat(fileno(f.get()), &st) == 0 && S_ISDIR(st.st_mode))
    return fail("cannot read file: it is a directory");
  // Read in chunks up to one byte past the limit: a device or a pipe has no
  // size to ask for in advance.
  std::string text;
  char chunk[1 << 16];
  while (true) {
    errno = 0;
    const std::size_t n = std::fread(chunk, 1, sizeof chunk, f.get());
    text.append(chunk, n);
    if (text.size() > max_bytes)
      return fail(fmt::format(
          "cannot read file: larger than the limit of {} bytes for a source file", max_bytes));
    if (n < sizeof chunk) break;
  }
  if (std::ferror(f.get())) return fail(cannot_read_message(path));
  return text;
}

}  // namespace eqsat::ops
