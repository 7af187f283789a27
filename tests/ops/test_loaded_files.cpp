// Tests of ops/loaded_files.hpp: the `.npy` files a graph file loads, found
// from its s-expressions (bodies included), and none in a file whose text
// never spells `load` (which is not parsed at all).
#include "ops/loaded_files.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace eqsat::ops;
namespace fs = std::filesystem;

namespace {
// `text` written to a fresh file of this test's directory; its path.
std::string graph_file(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / "eqsat_test_loaded_files";
  fs::create_directories(dir);
  const fs::path path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}
}  // namespace

TEST_CASE("the files a graph loads, in the order written, bodies included") {
  const std::string file = graph_file("loads.eg",
                                      "(input n i64)\n"
                                      "(let w (load \"w.npy\"))\n"
                                      "(def f ((x (f64 3))) (add x (load \"/abs/b.npy\")))\n"
                                      "(output (add w (call f (load \"sub/c.npy\"))))\n");
  const std::string dir = fs::path(file).parent_path().string();
  CHECK(files_loaded_by(file) ==
        std::vector<std::string>{dir + "/w.npy", "/abs/b.npy", dir + "/sub/c.npy"});
}

TEST_CASE("a graph that never spells load, or only in other words, loads nothing") {
  CHECK(files_loaded_by(graph_file("none.eg", "(input x f64)\n(output (exp x))\n")).empty());
  // The word in a comment, a name and a string: no `(load "...")` form.
  CHECK(files_loaded_by(graph_file("words.eg",
                                   "; load nothing\n(input loader f64)\n"
                                   "(output \"load\" (exp loader))\n"))
            .empty());
  // `load` with something other than one string is not a file.
  CHECK(files_loaded_by(graph_file("odd.eg", "(output (load x))\n(output (load \"a\" \"b\"))\n"))
            .empty());
}

TEST_CASE("a graph that cannot be read or parsed loads nothing (its parse says why)") {
  CHECK(files_loaded_by("/nonexistent/graph.eg").empty());
  CHECK(files_loaded_by(graph_file("bad.eg", "(let w (load \"w.npy\")")).empty());
}
