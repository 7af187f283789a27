// Output paths checked before any work (docs/architecture.md, decision 12): a
// computation is never run only to find that its results cannot be
// written. Files themselves are written atomically by
// ops::write_file_atomically (ops/output_file.hpp).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace eqsat::tools {

// An output path that cannot be used; what() is the whole message,
// `error: OPTION PATH: REASON`.
class OutputPathError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Checks that a file can be created at `path`: its directory exists and
// accepts new files (probed by creating and removing one), and `path` is
// not a directory. `option` names the flag in messages (`--report`).
void check_output_file(const std::string& path, std::string_view option);

// check_output_file for a file a command writes from `input`, which it
// must not replace (the input would be lost if the command failed).
void check_output_beside_input(const std::string& path, const std::string& input,
                               std::string_view option);

// Creates `dir` and its parents when missing and checks that files can be
// created in it.
void prepare_output_dir(const std::string& dir, std::string_view option);

// `DIR/NAME.EXT` for an output named NAME. Refuses a name that would write
// outside DIR: empty, absolute, `.`, `..` or containing `/`.
std::string output_file_in(const std::string& dir, const std::string& name, std::string_view ext);

// True when `a` and `b` name the same file, whether or not it exists yet.
bool same_file(const std::string& a, const std::string& b);

}  // namespace eqsat::tools
