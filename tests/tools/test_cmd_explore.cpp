// `eqsat explore`: one summary line per graph, each graph written to
// DIR/rank-N.eg and readable again, the ranks in non-decreasing cost, the
// same bytes in two runs, and an unusable --out refused before any work.
#include "run_eqsat.hpp"

#include <catch2/catch.hpp>

#include <regex>
#include <sstream>
#include <vector>

using eqsat::testing::read_file;
using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

namespace {
const char* kChain =
    "(input a (f64 20 15)) (input b (f64 15 30)) (input c (f64 30 2)) (input d (f64 2 1))\n"
    "(output (dot (dot (dot a b) c) d))\n";
}

TEST_CASE("explore: the ranked graphs go to DIR/rank-N.eg") {
  Scratch s;
  s.write("chain.eg", kChain);
  const auto r = run_eqsat(s, "explore chain.eg --top 3 --out alt");
  REQUIRE(r.status == 0);
  std::istringstream lines(r.out);
  std::string line;
  std::vector<double> costs;
  const std::regex form(R"(rank (\d+)  cost ([0-9.]+).*  -> alt/rank-(\d+)\.eg)");
  while (std::getline(lines, line)) {
    std::smatch m;
    REQUIRE(std::regex_match(line, m, form));
    CHECK(m[1] == m[3]);
    costs.push_back(std::stod(m[2]));
    const auto printed = run_eqsat(s, "print alt/rank-" + std::string(m[1]) + ".eg");
    CHECK(printed.status == 0);
  }
  REQUIRE(costs.size() == 3);
  CHECK(std::ranges::is_sorted(costs));
  // The same bytes again.
  const std::string first = read_file(s.path("alt/rank-2.eg"));
  REQUIRE(run_eqsat(s, "explore chain.eg --top 3 --out alt").status == 0);
  CHECK(read_file(s.path("alt/rank-2.eg")) == first);
}

TEST_CASE("explore: without --out each graph follows its line") {
  Scratch s;
  s.write("chain.eg", kChain);
  const auto r = run_eqsat(s, "explore chain.eg --top 2");
  REQUIRE(r.status == 0);
  CHECK(r.out.rfind("; rank 1  cost ", 0) == 0);
  CHECK(r.out.find("\n; rank 2  cost ") != std::string::npos);
  CHECK(r.out.find("(output (dot a (dot b (dot c d))))") != std::string::npos);
}

TEST_CASE("explore: an --out that cannot be a directory is refused first") {
  Scratch s;
  s.write("chain.eg", kChain);
  s.write("file", "x");
  const auto r = run_eqsat(s, "explore chain.eg --out file");
  CHECK(r.status == 1);
  CHECK(r.err.find("--out file") != std::string::npos);
}

TEST_CASE("explore: a rank file of --out may not be the input graph") {
  Scratch s;
  std::filesystem::create_directory(s.path("alt"));
  s.write("alt/rank-2.eg", kChain);
  const auto r = run_eqsat(s, "explore alt/rank-2.eg --top 3 --out alt");
  CHECK(r.status == 1);
  CHECK(r.err == "error: --out alt/rank-2.eg: is the input graph; it would be lost\n");
  CHECK(r.out.empty());
  CHECK(read_file(s.path("alt/rank-2.eg")) == kChain);
  CHECK_FALSE(std::filesystem::exists(s.path("alt/rank-1.eg")));
}

TEST_CASE("explore: --out removes the rank files an earlier run with a larger --top left") {
  Scratch s;
  s.write("chain.eg", kChain);
  REQUIRE(run_eqsat(s, "explore chain.eg --top 5 --out alt").status == 0);
  REQUIRE(std::filesystem::exists(s.path("alt/rank-4.eg")));
  s.write("alt/rank-07.eg", "not a name explore writes");
  s.write("alt/rank-9.eg.bak", "nor this");
  s.write("alt/notes.txt", "the user's");
  REQUIRE(run_eqsat(s, "explore chain.eg --top 2 --out alt").status == 0);
  CHECK(std::filesystem::exists(s.path("alt/rank-1.eg")));
  CHECK(std::filesystem::exists(s.path("alt/rank-2.eg")));
  for (const char* stale : {"alt/rank-3.eg", "alt/rank-4.eg", "alt/rank-5.eg"})
    CHECK_FALSE(std::filesystem::exists(s.path(stale)));
  for (const char* kept : {"alt/rank-07.eg", "alt/rank-9.eg.bak", "alt/notes.txt"})
    CHECK(std::filesystem::exists(s.path(kept)));
  // A stale rank that is the graph being explored stays: it is an input.
  s.write("alt/rank-6.eg", kChain);
  REQUIRE(run_eqsat(s, "explore alt/rank-6.eg --top 2 --out alt").status == 0);
  CHECK(read_file(s.path("alt/rank-6.eg")) == kChain);
}
