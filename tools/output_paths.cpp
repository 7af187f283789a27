#include "output_paths.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace eqsat::tools {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(std::string_view option, const std::string& path, std::string_view reason) {
  throw OutputPathError(fmt::format("error: {} {}: {}", option, path, reason));
}

// Creates and removes a file in `dir`: the one test that answers "can I
// write here" for permissions, read-only file systems and root alike.
void probe_directory(const fs::path& dir, std::string_view option, const std::string& shown) {
  const fs::path probe = dir / fmt::format(".eqsat-probe-{}", ::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    fail(option, shown,
         fmt::format("cannot create files in {}: {}", dir.empty() ? "." : dir.string(),
                     std::strerror(errno)));
  ::close(fd);
  ::unlink(probe.c_str());
}

// A character device (`/dev/null`, a terminal) is written through as a
// stream: two outputs written to it in turn lose nothing.
bool is_character_device(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

// `path` as quoted in a message: at most 200 bytes.
std::string shorten(const std::string& path) {
  if (path.size() <= 200) return path;
  return path.substr(0, 100) + fmt::format("...({} bytes)...", path.size()) +
         path.substr(path.size() - 60);
}

}  // namespace

void check_output_file(const std::string& path, std::string_view option) {
  if (path.empty()) fail(option, "''", "an empty path");
  if (path.size() >= PATH_MAX)
    fail(option, shorten(path),
         fmt::format("the path is {} bytes, longer than the system allows ({})", path.size(),
                     PATH_MAX - 1));
  if (struct stat st{}; ::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail(option, path, "it is a directory");
    // A device or pipe is written through, never replaced
    // (ops/output_file.hpp): it needs no new file in its directory.
    if (S_ISSOCK(st.st_mode)) fail(option, path, "it is a socket");
    if (!S_ISREG(st.st_mode)) {
      if (::access(path.c_str(), W_OK) != 0) fail(option, path, std::strerror(errno));
      return;
    }
  }
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  const std::string name = fs::path(path).filename().string();
  const long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  const std::size_t most = name_max > 0 ? static_cast<std::size_t>(name_max) : NAME_MAX;
  if (name.size() > most)
    fail(option, shorten(path),
         fmt::format("the file name is {} bytes, longer than the file system allows ({})",
                     name.size(), most));
  // The errno of stat itself: ENOTDIR for `afile/sub`, EACCES, ELOOP...
  struct stat st {};
  const int error = ::stat(dir.c_str(), &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
  if (error != 0)
    fail(option, path, fmt::format("cannot create it: {}: {}", dir.string(), std::strerror(error)));
  probe_directory(dir, option, path);
}

void check_outputs(const std::vector<OutputFile>& outputs, const std::vector<InputFile>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const OutputFile& out = outputs[i];
    for (const InputFile& in : inputs)
      if (!(out.replaces_inputs_last && in.rewritable) && same_file(out.path, in.path))
        fail(out.option, out.path, fmt::format("is {}; it would be lost", in.what));
    for (std::size_t j = 0; j < i; ++j)
      if (same_file(out.path, outputs[j].path) && !is_character_device(out.path))
        fail(out.option, out.path,
             fmt::format("is also the {} file; one would be lost", outputs[j].option));
    check_output_file(out.path, out.option);
  }
}

void prepare_output_dir(const std::string& dir, std::string_view option) {
  std::error_code ec;
  if (dir.empty()) fail(option, "''", "an empty path");
  fs::create_directories(dir, ec);
  if (ec) fail(option, dir, fmt::format("cannot create directory: {}", ec.message()));
  if (!fs::is_directory(dir, ec)) fail(option, dir, "not a directory");
  probe_directory(dir, option, dir);
}

std::string output_file_in(const std::string& dir, const std::string& name, std::string_view ext) {
  const bool plain = !name.empty() && name != "." && name != ".." &&
                     name.find('/') == std::string::npos && name.find('\0') == std::string::npos;
  if (!plain)
    throw OutputPathError(fmt::format(
        "error: output name '{}' would be written outside {}; give outputs plain file names", name,
        dir));
  return (fs::path(dir) / (name + std::string(ext))).string();
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;  // both exist: same inode
  // Absolute first: weakly_canonical leaves a relative path with no
  // existing prefix (`b.eg`) relative, unlike `./b.eg`.
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ec), ec);
  if (ec) return false;
  const fs::path cb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return !ec && ca == cb;
}

}  // namespace eqsat::tools
