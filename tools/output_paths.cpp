#include "output_paths.hpp"

#include <fmt/format.h>

#include <cerrno>
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

}  // namespace

void check_output_file(const std::string& path, std::string_view option) {
  std::error_code ec;
  if (path.empty()) fail(option, "''", "an empty path");
  if (fs::is_directory(path, ec)) fail(option, path, "it is a directory");
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
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
    if (!out.replaces_inputs_last)
      for (const InputFile& in : inputs)
        if (same_file(out.path, in.path))
          fail(out.option, out.path, fmt::format("is {}; it would be lost", in.what));
    for (std::size_t j = 0; j < i; ++j)
      if (same_file(out.path, outputs[j].path))
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
