// The harness of the egg workloads (bench_egg_math, bench_egg_lambda): runs
// a case the way egg's test_runner does (start terms, runner limits, a hook
// that stops once every goal matches the root class, or a class-count check
// instead) and prints one row per case.
//
//   bench_egg_NAME [--repeat N] [CASE...]     (default: every case, N = 5)
//
// Row: stop reason, goal proved, iterations, e-nodes, e-classes, best CPU
// seconds over N runs (loading the terms, running, checking goals), e-nodes
// per second, bytes held by the e-graph, the process's peak RSS after the
// case's first run.
// EQSAT_BENCH_REPORT=1 also prints each case's runner report.
#pragma once

#include "egraph/runner.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace eqsat::bench {

using namespace eqsat::egraph;

struct EggCase {
  std::string name;
  std::vector<std::string> starts;  // the last one is the root the goals are checked on
  std::vector<std::string> goals;   // patterns
  RunnerConfig config;
  bool simple_scheduler = false;
  std::vector<std::string> extra_exprs;  // added before the start (egg's with_expr hack)
  std::size_t expect_classes = 0;        // egg's @check instead of the goal hook (0: none)
  bool plain = false;                    // the language's reduced variant (see its bench)
};

struct EggLanguage {
  const Syntax* syntax;
  std::function<std::unique_ptr<Analysis>(const EggCase&)> analysis;
  std::function<std::vector<Rewrite>(const EggCase&)> rules;
};

struct EggResult {
  RunReport report;
  bool proved = false;
  std::size_t bytes = 0;
  double seconds = 0;
};

inline EggResult run_egg_case(const EggCase& c, const EggLanguage& lang) {
  EggResult res;
  EGraph g(lang.analysis(c));
  std::vector<Rewrite> rules = lang.rules(c);
  std::clock_t t0 = std::clock();  // process CPU time: steadier than wall time on a shared machine
  for (const std::string& e : c.extra_exprs) g.add_expr(RecExpr::parse(e, *lang.syntax));
  EClassId root;
  for (const std::string& e : c.starts) root = g.add_expr(RecExpr::parse(e, *lang.syntax));
  std::vector<MatchProgram> goals;
  for (const std::string& goal : c.goals) goals.emplace_back(Pattern::parse(goal, *lang.syntax));
  Runner runner(g, c.config);
  if (c.simple_scheduler) runner.set_scheduler(std::make_unique<SimpleScheduler>());
  Matches m;  // reused: checking the goals before each iteration allocates nothing
  auto proved = [&] {
    for (const MatchProgram& goal : goals) {
      m.clear();
      goal.search_eclass(g, root, m, 1);
      if (m.empty()) return false;
    }
    return !goals.empty();
  };
  if (c.expect_classes == 0) {
    runner.add_hook([&](Runner&) -> std::optional<std::string> {
      if (proved()) return "Done";
      return std::nullopt;
    });
  }
  res.report = runner.run(rules);
  res.seconds = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
  res.proved = proved() && (c.expect_classes == 0 || g.num_classes() == c.expect_classes);
  res.bytes = g.bytes();
  return res;
}

inline double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

inline int egg_bench_main(int argc, char** argv, const std::vector<EggCase>& cases,
                          const EggLanguage& lang) {
  int repeat = 5;
  std::vector<std::string> wanted;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (std::find_if(cases.begin(), cases.end(),
                            [&](const EggCase& c) { return c.name == argv[i]; }) != cases.end()) {
      wanted.push_back(argv[i]);
    } else {
      fmt::print(stderr, "usage: {} [--repeat N] [CASE...]; unknown case '{}'\n", argv[0], argv[i]);
      return 2;
    }
  }
  fmt::print("{:<24} {:<16} {:>5} {:>5} {:>8} {:>8} {:>10} {:>12} {:>9} {:>8}\n", "case", "stop",
             "goal", "iters", "e-nodes", "classes", "seconds", "e-nodes/s", "MiB", "RSS MiB");
  for (const EggCase& c : cases) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), c.name) == wanted.end()) {
      continue;
    }
    // Peak RSS is read after the first run: later runs reuse a heap that
    // the first one fragmented (glibc raises its mmap threshold when big
    // arrays are freed), which would make the peak grow with the repeats.
    EggResult best;
    double rss = 0;
    for (int r = 0; r < repeat; ++r) {
      EggResult res = run_egg_case(c, lang);
      if (r == 0) rss = peak_rss_mib();
      if (r == 0 || res.seconds < best.seconds) best = std::move(res);
    }
    const RunReport& rep = best.report;
    std::string stop(to_string(rep.stop_reason));
    if (rep.stop_reason == StopReason::Other) stop = rep.stop_message;
    fmt::print("{:<24} {:<16} {:>5} {:>5} {:>8} {:>8} {:>10.6f} {:>12.0f} {:>9.2f} {:>8.1f}\n",
               c.name, stop, c.goals.empty() ? "-" : (best.proved ? "yes" : "no"),
               rep.iterations.size(), rep.enodes, rep.eclasses, best.seconds,
               static_cast<double>(rep.enodes) / best.seconds, best.bytes / 1048576.0, rss);
    if (std::getenv("EQSAT_BENCH_REPORT")) fmt::print("{}\n", rep.to_string());
  }
  return 0;
}

}  // namespace eqsat::bench
