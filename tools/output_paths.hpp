// Output paths checked before any work (docs/architecture.md, decision 12): a
// computation is never run only to find that its results cannot be
// written. Files themselves are written atomically by
// ops::write_file_atomically (ops/output_file.hpp).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

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

// A file a command writes: the option naming it (`--report`) and its path.
// `replaces_inputs_last`: it is written only once the work succeeded, so it
// may be an input marked `rewritable` (optimize's `-o g.eg` on g.eg).
struct OutputFile {
  std::string_view option;
  std::string path;
  bool replaces_inputs_last = false;
};

// A file a command reads: what it is in messages (`the input graph`) and
// its path. `rewritable`: an output written last may replace it (the graph
// itself, never the data it loads).
struct InputFile {
  std::string what;
  std::string path;
  bool rewritable = false;
};

// The check every command makes before any work, on every file it will
// write: none is an input (it would be lost if the command failed), no two
// are the same file (but for a character device such as /dev/null, written
// through as a stream), and each passes check_output_file.
void check_outputs(const std::vector<OutputFile>& outputs, const std::vector<InputFile>& inputs);

// Creates `dir` and its parents when missing and checks that files can be
// created in it.
void prepare_output_dir(const std::string& dir, std::string_view option);

// `DIR/NAME.EXT` for an output named NAME. Refuses a name that would write
// outside DIR: empty, absolute, `.`, `..` or containing `/`.
std::string output_file_in(const std::string& dir, const std::string& name, std::string_view ext);

// True when `a` and `b` name the same file, whether or not it exists yet.
bool same_file(const std::string& a, const std::string& b);

}  // namespace eqsat::tools
