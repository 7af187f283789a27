// The `.npy` files a graph file reads with `(load "FILE.npy")`: inputs of
// every command that reads the graph, which no output may replace
// (tools/output_paths.hpp). Found from the s-expressions alone, so a
// command can check its outputs before it parses the graph or reads any
// array.
#pragma once

#include <string>
#include <vector>

namespace eqsat::ops {

// Where `(load "PATH")` in a graph file of directory `base_dir` reads:
// PATH itself when absolute, else relative to the graph's directory.
std::string load_path(const std::string& base_dir, const std::string& path);

// Every file `graph_file` loads, in the order written (bodies included);
// empty when the file cannot be read as s-expressions (its parse reports
// why).
std::vector<std::string> files_loaded_by(const std::string& graph_file);

}  // namespace eqsat::ops
