// Runs the built `eqsat` program from a test: its exit status, stdout and
// stderr, in a fresh scratch directory per Scratch object (removed after).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <sys/wait.h>

namespace eqsat::testing {

// A fresh directory under the system's temporary directory.
class Scratch {
 public:
  Scratch() {
    std::string pattern = (std::filesystem::temp_directory_path() / "eqsat-test-XXXXXX").string();
    dir_ = ::mkdtemp(pattern.data());
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::permissions(dir_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(dir_, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // Writes `text` to `name` in the directory; returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }

 private:
  std::filesystem::path dir_;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct RunResult {
  int status = -1;  // the exit status, or 128 + signal
  std::string out;
  std::string err;
};

// Runs `eqsat ARGS` (a shell-quoted argument string) with `scratch` as the
// working directory; `env` (`NAME=VALUE ...`) is set for it.
inline RunResult run_eqsat(const Scratch& scratch, const std::string& args,
                           const std::string& env = "") {
  const std::string out = scratch.path(".stdout"), err = scratch.path(".stderr");
  const std::string command = "cd '" + scratch.dir().string() + "' && " + env +
                              " '" EQSAT_BINARY "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int raw = std::system(command.c_str());
  RunResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

}  // namespace eqsat::testing
