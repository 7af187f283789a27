// Output paths checked before any work: directories created and probed,
// output names kept inside their directory, same-file detection.
#include "tools/output_paths.hpp"

#include "run_eqsat.hpp"

#include <catch2/catch.hpp>

using namespace eqsat::tools;
using eqsat::testing::Scratch;

TEST_CASE("an output directory is created - one that cannot be is refused with the reason") {
  Scratch s;
  CHECK_NOTHROW(prepare_output_dir(s.path("a/b/c"), "--out"));
  CHECK(std::filesystem::is_directory(s.path("a/b/c")));
  const std::string file = s.write("afile", "x");
  CHECK_THROWS_WITH(prepare_output_dir(file + "/sub", "--out"),
                    "error: --out " + file + "/sub: cannot create directory: Not a directory");
  CHECK_THROWS_WITH(prepare_output_dir(file, "--out"),
                    "error: --out " + file + ": cannot create directory: Not a directory");
}

TEST_CASE("an output file needs an existing directory that accepts files") {
  Scratch s;
  CHECK_NOTHROW(check_output_file(s.path("r.json"), "--report"));
  CHECK_FALSE(std::filesystem::exists(s.path("r.json")));  // checking writes nothing
  CHECK_THROWS_WITH(check_output_file(s.path("no/r.json"), "--report"),
                    "error: --report " + s.path("no/r.json") +
                        ": cannot create it: " + s.path("no") + ": No such file or directory");
  const std::string file = s.write("afile", "x");  // the errno of stat: ENOTDIR, not ENOENT
  CHECK_THROWS_WITH(
      check_output_file(file + "/sub/o.eg", "-o"),
      "error: -o " + file + "/sub/o.eg: cannot create it: " + file + "/sub: Not a directory");
  CHECK_THROWS_WITH(check_output_file(s.dir().string(), "-o"),
                    "error: -o " + s.dir().string() + ": it is a directory");
  // /proc accepts no new files, even from root.
  CHECK_THROWS_WITH(check_output_file("/proc/eqsat.json", "--report"),
                    Catch::StartsWith("error: --report /proc/eqsat.json: cannot create files in "
                                      "/proc: "));
}

TEST_CASE("outputs are checked against the inputs and each other") {
  Scratch s;
  const std::string g = s.write("g.eg", "(output 1)");
  const std::vector<InputFile> inputs{{"the input graph", g}};
  CHECK_NOTHROW(check_outputs({{"-o", s.path("a")}, {"--report", s.path("b")}}, inputs));
  CHECK_THROWS_WITH(
      check_outputs({{"--report", s.path("./g.eg")}}, inputs),
      "error: --report " + s.path("./g.eg") + ": is the input graph; it would be lost");
  CHECK_NOTHROW(check_outputs({{"-o", g, /*replaces_inputs_last=*/true}}, inputs));
  CHECK_THROWS_WITH(check_outputs({{"-o", s.path("a")}, {"--json", s.path("a")}}, inputs),
                    "error: --json " + s.path("a") + ": is also the -o file; one would be lost");
  CHECK_THROWS_WITH(check_outputs({{"--json", s.path("no/a")}}, inputs),
                    Catch::StartsWith("error: --json " + s.path("no/a") + ": cannot create it"));
}

TEST_CASE("output names never leave their directory") {
  CHECK(output_file_in("out", "total", ".npy") == "out/total.npy");
  for (const std::string bad : {"../escaped", "/abs", "a/b", "..", ".", ""})
    CHECK_THROWS_WITH(output_file_in("out", bad, ".npy"),
                      "error: output name '" + bad +
                          "' would be written outside out; give outputs plain file names");
}

TEST_CASE("same_file sees through spellings - whether or not the file exists") {
  Scratch s;
  const std::string g = s.write("g.eg", "(output 1)");
  CHECK(same_file(g, s.path("./g.eg")));
  std::filesystem::create_directory(s.path("sub"));
  CHECK(same_file(g, s.path("sub/../g.eg")));
  CHECK(same_file(s.path("new.json"), s.path("./new.json")));
  // Relative, missing, no existing prefix on one side (`-o b.eg --report ./b.eg`).
  CHECK(same_file("eqsat-no-such-file.eg", "./eqsat-no-such-file.eg"));
  CHECK_FALSE(same_file(g, s.path("h.eg")));
}
