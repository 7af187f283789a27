// `eqsat profile`: --json checked before any work (its memory limit is
// tested with run's, in test_memory_limit.cpp).
#include "run_eqsat.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

using eqsat::testing::read_file;
using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

TEST_CASE("profile: --json is checked before any work and never replaces an input") {
  Scratch s;
  const std::string graph = "(input x (f64 3))\n(output (exp x))\n";
  s.write("g.eg", graph);
  s.write("afile", "a file, not a directory");
  auto r = run_eqsat(s, "profile --json g.eg g.eg --random 0");
  CHECK(r.status == 1);
  CHECK(r.err == "error: --json g.eg: is the input graph; it would be lost\n");
  CHECK(read_file(s.path("g.eg")) == graph);
  r = run_eqsat(s, "profile g.eg --random 0 --json nodir/p.json");
  CHECK(r.status == 1);
  CHECK(r.err ==
        "error: --json nodir/p.json: cannot create it: nodir: No such file or directory\n");
  CHECK(r.out.empty());  // nothing was timed
  r = run_eqsat(s, "profile g.eg --random 0 --repeat 2 --json p.json");
  CHECK(r.status == 0);
  CHECK_THAT(read_file(s.path("p.json")), Catch::StartsWith("{\n  \"runs\": 2,"));
}

TEST_CASE("profile: every loop row has its FILE:LINE:COL, two loops two places") {
  Scratch s;
  s.write("loops.eg",
          "(input x (f64 ?))\n"
          "(let a (scan :sit-sot ((const f64 0.0)) :sequences (x)\n"
          "  (fn (v h) (tanh (add h v)))))\n"
          "(let b (scan :sit-sot ((const f64 1.0)) :sequences (x)\n"
          "  (fn (v h) (sin (mul h v)))))\n"
          "(output (get 0 a))\n"
          "(output (get 0 b))\n");
  auto scan_rows = [&](const std::string& flags) {
    const auto r = run_eqsat(s, "profile loops.eg --random 0 --repeat 1" + flags);
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    std::vector<std::string> rows;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);)
      if (line.find("scan") != std::string::npos) rows.push_back(line.substr(line.find("scan")));
    std::ranges::sort(rows);  // the profile lists the slowest first
    return rows;
  };
  // As written: each loop where it is written.
  CHECK(scan_rows(" --no-opt") ==
        std::vector<std::string>{"scan at loops.eg:2:8", "scan at loops.eg:4:8"});
  // Optimized, the two loops are fused into one the optimizer built: it is
  // located at the first output that reads it.
  CHECK(scan_rows("") == std::vector<std::string>{"scan at loops.eg:6:9"});
}
