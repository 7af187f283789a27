// Output paths checked before any work: directories created and probed,
// output names kept inside their directory, same-file detection.
#include "tools/output_paths.hpp"

#include "run_eqsat.hpp"

#include "ops/npy.hpp"
#include "ops/source_file.hpp"

#include <sys/stat.h>

#include <catch2/catch.hpp>

using namespace eqsat::tools;
using eqsat::testing::run_eqsat;
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
  const std::vector<InputFile> inputs{{"the input graph", g, /*rewritable=*/true},
                                      {"a file the graph loads", s.path("w.npy")}};
  CHECK_NOTHROW(check_outputs({{"-o", s.path("a")}, {"--report", s.path("b")}}, inputs));
  CHECK_THROWS_WITH(
      check_outputs({{"--report", s.path("./g.eg")}}, inputs),
      "error: --report " + s.path("./g.eg") + ": is the input graph; it would be lost");
  CHECK_NOTHROW(check_outputs({{"-o", g, /*replaces_inputs_last=*/true}}, inputs));
  // Written last or not, an output never replaces data the graph reads.
  CHECK_THROWS_WITH(
      check_outputs({{"-o", s.path("w.npy"), /*replaces_inputs_last=*/true}}, inputs),
      "error: -o " + s.path("w.npy") + ": is a file the graph loads; it would be lost");
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

TEST_CASE("files a graph loads are inputs - no output of any command replaces them") {
  Scratch s;
  eqsat::ops::write_npy(s.path("w.npy"), eqsat::ops::Array::filled(eqsat::ops::DType::F64, {3}, 1));
  const std::string weights = eqsat::ops::read_source_file(s.path("w.npy"));
  // Its output is named like the file it loads: `--out .` would write w.npy.
  s.write("g.eg", "(output w (mul (load \"w.npy\") 100))\n");
  for (const std::string command :
       {"run g.eg --out .", "optimize g.eg --report w.npy", "optimize g.eg -o w.npy",
        "optimize g.eg --egraph-json ./w.npy", "dot g.eg -o w.npy", "html g.eg -o w.npy",
        "profile g.eg --json w.npy"}) {
    INFO(command);
    const auto r = run_eqsat(s, command);
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("w.npy: is a file the graph loads; it would be lost"));
    CHECK(r.out.empty());
    CHECK(eqsat::ops::read_source_file(s.path("w.npy")) == weights);
  }
  // A loaded file in another folder, named from a graph elsewhere.
  std::filesystem::create_directory(s.path("sub"));
  s.write("sub/h.eg", "(output (load \"../w.npy\"))\n");
  CHECK(run_eqsat(s, "optimize sub/h.eg -o w.npy").status == 1);
  CHECK(eqsat::ops::read_source_file(s.path("w.npy")) == weights);
}

TEST_CASE("a special file named as an output is written through - never replaced") {
  Scratch s;
  s.write("g.eg", "(input x (f64 3))\n(output (exp x))\n");
  for (const std::string command :
       {"optimize g.eg -o /dev/null", "optimize g.eg -o o.eg --report /dev/null",
        "dot g.eg -o /dev/null", "html g.eg -o /dev/null"}) {
    INFO(command);
    const auto r = run_eqsat(s, command);
    CHECK(r.status == 0);
    CHECK(r.out.empty());
    struct stat st {};
    REQUIRE(::stat("/dev/null", &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
  }
  auto r = run_eqsat(s, "optimize g.eg -o /dev/full");
  CHECK(r.status == 1);
  CHECK(r.err == "/dev/full: error: cannot write file: No space left on device\n");
  REQUIRE(::mkfifo(s.path("pipe").c_str(), 0600) == 0);
  r = run_eqsat(s, "optimize g.eg --report pipe");
  CHECK(r.status == 1);
  CHECK(r.err == "pipe: error: cannot write file: it is a named pipe that no process reads\n");
  struct stat st {};
  REQUIRE(::stat(s.path("pipe").c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
}

TEST_CASE("two outputs to one character device are written through - two to one file are refused") {
  Scratch s;
  s.write("g.eg", "(input x (f64 3))\n(output (exp x))\n");
  CHECK_NOTHROW(check_outputs({{"-o", "/dev/null"}, {"--report", "/dev/null"}}, {}));
  auto r = run_eqsat(s, "optimize g.eg -o /dev/null --report /dev/null --egraph-json /dev/null");
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  r = run_eqsat(s, "optimize g.eg -o /dev/full --report /dev/full");
  CHECK(r.status == 1);
  CHECK(r.err == "/dev/full: error: cannot write file: No space left on device\n");
  // A regular file named twice, even through another spelling, still is.
  r = run_eqsat(s, "optimize g.eg -o out.json --report ./out.json");
  CHECK(r.status == 1);
  CHECK(r.err == "error: --report ./out.json: is also the -o file; one would be lost\n");
  CHECK_FALSE(std::filesystem::exists(s.path("out.json")));
  // So is a named pipe: its reader would get the two outputs as one stream.
  REQUIRE(::mkfifo(s.path("pipe").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(check_outputs({{"-o", s.path("pipe")}, {"--report", s.path("pipe")}}, {}),
                    Catch::EndsWith("is also the -o file; one would be lost"));
}

TEST_CASE("an output name longer than the file system allows is refused before any work") {
  Scratch s;
  const std::string long_name(300, 'n');
  CHECK_THROWS_WITH(check_output_file(s.path(long_name), "-o"),
                    Catch::EndsWith(": the file name is 300 bytes, longer than the file system "
                                    "allows (255)"));
  CHECK_NOTHROW(check_output_file(s.path(std::string(255, 'n')), "-o"));
  CHECK_THROWS_WITH(check_output_file(std::string(5000, 'd'), "-o"),
                    Catch::Contains("the path is 5000 bytes, longer than the system allows"));
  // run: the first output would be written, the second cannot: neither is.
  s.write("g.eg",
          "(input x (f64 3))\n(output first (exp x))\n(output " + long_name + " (neg x))\n");
  auto r = run_eqsat(s, "run g.eg --random 0 --out out");
  CHECK(r.status == 1);
  CHECK(r.out.empty());
  CHECK_FALSE(std::filesystem::exists(s.path("out/first.npy")));
  // optimize -o: refused before the optimization, which prints nothing.
  r = run_eqsat(s, "optimize g.eg -o " + long_name + ".eg");
  CHECK(r.status == 1);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("longer than the file system allows (255)"));
  CHECK(r.err.size() < 400);  // the name is shortened in the message
}
