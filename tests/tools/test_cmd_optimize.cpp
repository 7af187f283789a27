// `eqsat optimize`: nothing lost (the report never replaces the graph or
// the -o file, unwritable paths are refused before any work, -o may be the
// input and is then replaced only on success), and determinism across
// processes (the same graph gives the same bytes in two runs).
#include "run_eqsat.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <regex>

using eqsat::testing::read_file;
using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

namespace {
const char* kGraph = "(input x (f64 3))\n(output (add (mul x 1.0) 0))\n";
}

TEST_CASE("optimize: the report may not be the input or the -o file") {
  Scratch s;
  const std::string g = s.write("g.eg", kGraph);
  auto r = run_eqsat(s, "optimize g.eg --report g.eg");
  CHECK(r.status == 1);
  CHECK(r.err == "error: --report g.eg: is the input graph; it would be lost\n");
  CHECK(read_file(g) == kGraph);
  r = run_eqsat(s, "optimize g.eg -o best.eg --report ./best.eg");
  CHECK(r.status == 1);
  CHECK(r.err == "error: --report ./best.eg: is also the -o file; one would be lost\n");
  CHECK_FALSE(std::filesystem::exists(s.path("best.eg")));
}

TEST_CASE("optimize: --egraph-json may be neither an input nor another output") {
  Scratch s;
  const std::string g = s.write("g.eg", kGraph);
  s.write("my.rules", "");
  const std::pair<const char*, const char*> cases[] = {
      {"--egraph-json g.eg", "error: --egraph-json g.eg: is the input graph; it would be lost\n"},
      {"--report r.json --egraph-json r.json",
       "error: --egraph-json r.json: is also the --report file; one would be lost\n"},
      {"-o o.eg --egraph-json ./o.eg",
       "error: --egraph-json ./o.eg: is also the -o file; one would be lost\n"},
      {"--rules my.rules --egraph-json my.rules",
       "error: --egraph-json my.rules: is a --rules file; it would be lost\n"},
      {"--egraph-json nodir/e.json",
       "error: --egraph-json nodir/e.json: cannot create it: nodir: No such file or directory\n"}};
  for (const auto& [args, message] : cases) {
    const auto r = run_eqsat(s, std::string("optimize g.eg ") + args);
    CHECK(r.status == 1);
    CHECK(r.err == message);
    CHECK(r.out.empty());
  }
  CHECK(read_file(g) == kGraph);
  CHECK(read_file(s.path("my.rules")).empty());
  CHECK_FALSE(std::filesystem::exists(s.path("r.json")));
  CHECK_FALSE(std::filesystem::exists(s.path("o.eg")));
}

TEST_CASE("optimize: an unwritable report fails before the graph is touched") {
  Scratch s;
  const std::string g = s.write("g.eg", kGraph);
  const auto r = run_eqsat(s, "optimize g.eg -o g.eg --report /nonexistent/r.json");
  CHECK(r.status == 1);
  CHECK(r.err ==
        "error: --report /nonexistent/r.json: cannot create it: /nonexistent: No such "
        "file or directory\n");
  CHECK(read_file(g) == kGraph);
}

TEST_CASE("optimize: -o may be the input - it is replaced once the optimization succeeded") {
  Scratch s;
  const std::string g = s.write("g.eg", kGraph);
  auto r = run_eqsat(s, "optimize g.eg -o g.eg --report r.json");
  CHECK(r.status == 0);
  const std::string best = read_file(g);
  CHECK(best != kGraph);
  CHECK(best == "(input x (f64 3))\n(output x)\n");
  CHECK(nlohmann::json::parse(read_file(s.path("r.json"))).contains("cost_after"));
  // A failing optimization leaves it alone.
  const std::string bad = s.write("bad.eg", "(input x (f64 3))\n(output (exp y))\n");
  r = run_eqsat(s, "optimize bad.eg -o bad.eg");
  CHECK(r.status == 1);
  CHECK(read_file(bad) == "(input x (f64 3))\n(output (exp y))\n");
}

namespace {
// Removes every "seconds" entry (timings, the one part that may differ
// between runs), at any depth; returns how many it removed.
int drop_seconds(nlohmann::json& j) {
  int removed = 0;
  if (j.is_object()) removed += static_cast<int>(j.erase("seconds"));
  if (j.is_structured())
    for (auto& child : j) removed += drop_seconds(child);
  return removed;
}
}  // namespace

TEST_CASE("optimize: two processes give byte-identical graphs and reports") {
  // Each process has its own address layout and hash seeds: nothing that
  // depends on either may reach the output.
  Scratch s;
  std::vector<std::filesystem::path> graphs;
  for (const auto& entry : std::filesystem::directory_iterator(EQSAT_SOURCE_DIR "/examples"))
    if (entry.path().extension() == ".eg") graphs.push_back(entry.path());
  std::ranges::sort(graphs);
  REQUIRE(graphs.size() >= 5);
  for (const auto& graph : graphs) {
    DYNAMIC_SECTION(graph.filename().string()) {
      for (const char* run : {"a", "b"}) {
        const auto r = run_eqsat(
            s, fmt::format("optimize '{}' -o {}.eg --report {}.json", graph.string(), run, run));
        REQUIRE(r.status == 0);
      }
      CHECK(read_file(s.path("a.eg")) == read_file(s.path("b.eg")));
      auto a = nlohmann::json::parse(read_file(s.path("a.json")));
      auto b = nlohmann::json::parse(read_file(s.path("b.json")));
      CHECK(drop_seconds(a) > 0);
      drop_seconds(b);
      CHECK(a.dump() == b.dump());
    }
  }
}

TEST_CASE("optimize: a size that folds past 64 bits is a located error - not an internal one") {
  Scratch s;
  s.write("arange.eg", "(output (arange (mul 3 1537228672809129302)))\n");
  auto r = run_eqsat(s, "optimize arange.eg");
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::StartsWith("arange.eg:1:9: error: arange: (i64 "));
  CHECK_THAT(r.err, Catch::EndsWith(") is too large: its size in bytes does not fit in 64 bits\n"));
  CHECK(r.out.empty());
  s.write("scan.eg",
          "(input x (f64 4))\n"
          "(output (get 0 (scan :n-steps (mul (dim x :axis 0) 1537228672809129302)\n"
          "  :sit-sot (0.0) (fn (h) (add h 1.0)))))\n");
  r = run_eqsat(s, "optimize scan.eg");
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::StartsWith("scan.eg:2:16: error: scan: (f64 "));
  CHECK_THAT(r.err, !Catch::Contains("internal error"));
  r = run_eqsat(s, "run scan.eg --random 0");
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::StartsWith("scan.eg:2:16: error: scan: (f64 "));
}

TEST_CASE("optimize: an unreadable --cost-profile or an -o under a file says the OS reason") {
  Scratch s;
  s.write("g.eg", kGraph);
  s.write("afile", "a file, not a directory");
  auto r = run_eqsat(s, "optimize g.eg --cost-profile nope.json");
  CHECK(r.status == 1);
  CHECK(r.err == "error: nope.json: cannot read the cost profile: No such file or directory\n");
  r = run_eqsat(s, "optimize g.eg --cost-profile .");
  CHECK(r.status == 1);
  CHECK(r.err == "error: .: cannot read the cost profile: it is a directory\n");
  r = run_eqsat(s, "optimize g.eg -o afile/sub/o.eg");
  CHECK(r.status == 1);
  CHECK(r.err == "error: -o afile/sub/o.eg: cannot create it: afile/sub: Not a directory\n");
}

TEST_CASE("optimize --validate: a sound optimization passes on N input sets") {
  Scratch s;
  s.write("g.eg", "(input x (f64 ? 4))\n(output y (log (sum (exp x) :axis (1))))\n");
  auto r = run_eqsat(s, "optimize g.eg --validate");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("logsumexp"));
  CHECK(r.err == "--validate: the written and the optimized graph agree on 3 input sets\n");
  r = run_eqsat(s, "optimize g.eg --validate 7 --quiet");
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  r = run_eqsat(s, "optimize g.eg --validate=0");
  CHECK(r.status == 2);
}

TEST_CASE("optimize --validate: an unsound --trust-rules rule exits 1 naming the output") {
  Scratch s;
  s.write("g.eg", "(input x (f64 3))\n(output y (mul (exp x) 2.0))\n");
  s.write("wrong.rules", "(rewrite exp-wrong (exp ?x) (add ?x 1.0))\n");
  const auto r =
      run_eqsat(s, "optimize g.eg --rules wrong.rules --trust-rules -o best.eg --validate");
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::StartsWith("g.eg: error: --validate: output y differs on input set 1 "
                                      "of 3\n  element 0: written "));
  CHECK_THAT(r.err, Catch::Contains("\n  input set 1: x = (f64 3) ["));
  CHECK_THAT(r.err, Catch::EndsWith("\n  rules on the path from the written output to the "
                                    "optimized one: exp-wrong\n"));
  CHECK_FALSE(std::filesystem::exists(s.path("best.eg")));  // nothing written
  // Without --validate the rule is trusted: the wrong graph is printed.
  CHECK(run_eqsat(s, "optimize g.eg --rules wrong.rules --trust-rules").status == 0);
}

TEST_CASE("optimize --validate: a rule that changes only a gradient exits 1 naming the output") {
  Scratch s;
  s.write("g.eg", "(input x (f64 3))\n(output g (grad (sum (mul x x)) x))\n");
  const auto sound = run_eqsat(s, "optimize g.eg --validate");
  CHECK(sound.status == 0);
  CHECK_THAT(sound.err, Catch::Contains("gradients g agree with finite differences on "));
  s.write("wrong.rules", "(rewrite mul-self-wrong (mul ?x ?x) (mul ?x 2.0))\n");
  const auto r = run_eqsat(s, "optimize g.eg --rules wrong.rules --trust-rules --validate");
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::StartsWith("g.eg: error: --validate: output g differs on input set 1 "
                                      "of 3\n  gradient element 0: finite differences of the "
                                      "written cost give "));
  CHECK_THAT(r.err, Catch::Contains("mul-self-wrong"));
  CHECK(r.out.empty());
}

TEST_CASE("optimize: a grad that cannot be expanded is refused at the grad, with the reason") {
  // Reshaping the cotangent back to (? ?) has no static target: the only
  // refusal left (a concat of unknown lengths is differentiated).
  Scratch s;
  s.write("g.eg",
          "(input x (f64 ? ?))\n"
          "(output (grad (sum (square (reshape x :shape (-1)))) x))\n");
  for (const char* cmd : {"optimize g.eg", "run g.eg --random 0"}) {
    const auto r = run_eqsat(s, cmd);
    INFO(cmd);
    CHECK(r.status == 1);
    CHECK(r.err ==
          "g.eg:2:9: error: grad with respect to x cannot be expanded: cannot reshape a cotangent "
          "back to shape (? ?) with several unknown dimensions\n");
    CHECK_THAT(r.err, !Catch::Contains("--no-opt"));
    CHECK(r.out.empty());
  }
  s.write("concat.eg",
          "(input x (f64 ?))\n(input y (f64 ?))\n"
          "(output (grad (sum (square (concat x y))) y))\n");
  const auto r = run_eqsat(s, "optimize concat.eg");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, !Catch::Contains("grad"));
}

TEST_CASE("optimize: saturation past --memory-limit is out of memory - with the e-graph's size") {
  Scratch s;
  s.write("g.eg", kGraph);
  // Any process holds more than 1 MiB: the first iteration passes it.
  for (const std::string command :
       {"optimize g.eg", "explore g.eg", "html g.eg -o p.html", "dot g.eg --egraph"}) {
    INFO(command);
    const auto r = run_eqsat(s, command + " --memory-limit 1M");
    CHECK(r.status == 1);
    CHECK(r.out.empty());
    const std::regex message(
        "g\\.eg: error: out of memory: saturation holds [0-9.]+ MiB \\([0-9]+ bytes\\), more "
        "than the --memory-limit of 1\\.0 MiB \\(1048576 bytes\\), at ([0-9]+) e-nodes and "
        "[0-9]+ e-classes \\(step 1 iteration 1\\); set --node-limit below ([0-9]+), or raise "
        "--memory-limit\n");
    std::smatch m;
    REQUIRE(std::regex_match(r.err, m, message));
    CHECK(m[1] == m[2]);
    CHECK_FALSE(std::filesystem::exists(s.path("p.html")));
  }
  CHECK(run_eqsat(s, "optimize g.eg --memory-limit 64G").status == 0);
  CHECK(run_eqsat(s, "optimize g.eg --memory-limit lots").status == 2);
}
