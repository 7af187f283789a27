// egg's math workload on eqsat::egraph: every test of egg's tests/math.rs
// (same rules, start terms, goals and runner limits, egg's goal-checking
// hook) and the stress workload of egg's math e-matching benchmark (its
// seven start terms together, 30 iterations, 100,000 e-nodes) with the
// simple and the backoff scheduler.
//
//   bench_egg_math [--repeat N] [CASE...]     (default: every case, N = 5)
//
// For each case: stop reason, whether the goal was proved, iterations,
// e-nodes, e-classes, best seconds over N runs, e-nodes per second, bytes
// held by the e-graph and the process's peak RSS so far.
#include "egg_math_language.hpp"

#include "egraph/runner.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <cstring>
#include <map>

using namespace eqsat::egraph;
namespace math = eqsat::bench::math;

namespace {

struct Case {
  std::string name;
  std::vector<std::string> starts;  // the last one is the root the goals are checked on
  std::vector<std::string> goals;
  RunnerConfig config;
  bool simple_scheduler = false;
  bool only_assoc_comm_add = false;  // math_associate_adds: two rules, no analysis
  std::vector<std::string> extra_exprs;  // added before the start (egg's with_expr hack)
};

std::vector<Case> cases() {
  RunnerConfig def;  // egg's Runner::default(): 30 iterations, 10,000 nodes, 5 s
  std::vector<Case> cs = {
      {"math_associate_adds", {"(+ 1 (+ 2 (+ 3 (+ 4 (+ 5 (+ 6 7))))))"},
       {"(+ 7 (+ 6 (+ 5 (+ 4 (+ 3 (+ 2 1))))))"}, RunnerConfig{7, 10000, 5}, true, true, {}},
      {"math_fail", {"(+ x y)"}, {"(/ x y)"}, def, false, false, {}},
      {"math_simplify_add", {"(+ x (+ x (+ x x)))"}, {"(* 4 x)"}, def, false, false, {}},
      {"math_powers", {"(* (pow 2 x) (pow 2 y))"}, {"(pow 2 (+ x y))"}, def, false, false, {}},
      {"math_simplify_const", {"(+ 1 (- a (* (- 2 1) a)))"}, {"1"}, def, false, false, {}},
      {"math_simplify_root",
       {"(/ 1 (- (/ (+ 1 (sqrt five)) 2) (/ (- 1 (sqrt five)) 2)))"},
       {"(/ 1 (sqrt five))"}, RunnerConfig{30, 75000, 5}, false, false, {}},
      {"math_simplify_factor", {"(* (+ x 3) (+ x 1))"}, {"(+ (+ (* x x) (* 4 x)) 3)"}, def, false,
       false, {}},
      {"math_diff_same", {"(d x x)"}, {"1"}, def, false, false, {}},
      {"math_diff_different", {"(d x y)"}, {"0"}, def, false, false, {}},
      {"math_diff_simple1", {"(d x (+ 1 (* 2 x)))"}, {"2"}, def, false, false, {}},
      {"math_diff_simple2", {"(d x (+ 1 (* y x)))"}, {"y"}, def, false, false, {}},
      {"math_diff_ln", {"(d x (ln x))"}, {"(/ 1 x)"}, def, false, false, {}},
      {"diff_power_simple", {"(d x (pow x 3))"}, {"(* 3 (pow x 2))"}, def, false, false, {}},
      {"diff_power_harder", {"(d x (- (pow x 3) (* 7 (pow x 2))))"}, {"(* x (- (* 3 x) 14))"},
       RunnerConfig{60, 100000, 10}, false, false, {"(* x (- (* 3 x) 14))"}},
      {"integ_one", {"(i 1 x)"}, {"x"}, def, false, false, {}},
      {"integ_sin", {"(i (cos x) x)"}, {"(sin x)"}, def, false, false, {}},
      {"integ_x", {"(i (pow x 1) x)"}, {"(/ (pow x 2) 2)"}, def, false, false, {}},
      {"integ_part1", {"(i (* x (cos x)) x)"}, {"(+ (* x (sin x)) (cos x))"}, def, false, false,
       {}},
      {"integ_part2", {"(i (* (cos x) x) x)"}, {"(+ (* x (sin x)) (cos x))"}, def, false, false,
       {}},
      {"integ_part3", {"(i (ln x) x)"}, {"(- (* x (ln x)) x)"}, def, false, false, {}},
      {"assoc_mul_saturates", {"(* x 1)"}, {}, RunnerConfig{3, 10000, 5}, false, false, {}},
  };
  const std::vector<std::string> stress = {
      "(i (ln x) x)",
      "(i (+ x (cos x)) x)",
      "(i (* (cos x) x) x)",
      "(d x (+ 1 (* 2 x)))",
      "(d x (- (pow x 3) (* 7 (pow x 2))))",
      "(+ (* y (+ x y)) (- (+ x 2) (+ x x)))",
      "(/ 1 (- (/ (+ 1 (sqrt five)) 2) (/ (- 1 (sqrt five)) 2)))",
  };
  RunnerConfig big{30, 100000, 1000};
  cs.push_back({"stress_simple", stress, {}, big, true, false, {}});
  cs.push_back({"stress_backoff", stress, {}, big, false, false, {}});
  return cs;
}

struct Result {
  RunReport report;
  bool proved = false;
  std::size_t bytes = 0;
  double seconds = 0;
};

Result run_case(const Case& c) {
  Result res;
  std::unique_ptr<Analysis> analysis;
  if (!c.only_assoc_comm_add) analysis = std::make_unique<math::ConstantFold>();
  EGraph g(std::move(analysis));
  std::vector<Rewrite> rules;
  if (c.only_assoc_comm_add) {
    rules.push_back(math::rw("comm-add", "(+ ?a ?b)", "(+ ?b ?a)"));
    rules.push_back(math::rw("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)"));
  } else {
    rules = math::rules();
  }
  auto t0 = std::chrono::steady_clock::now();
  for (const std::string& e : c.extra_exprs) g.add_expr(RecExpr::parse(e, math::syntax()));
  EClassId root;
  for (const std::string& e : c.starts) root = g.add_expr(RecExpr::parse(e, math::syntax()));
  std::vector<MatchProgram> goals;
  for (const std::string& goal : c.goals) goals.emplace_back(Pattern::parse(goal, math::syntax()));
  Runner runner(g, c.config);
  if (c.simple_scheduler) runner.set_scheduler(std::make_unique<SimpleScheduler>());
  auto proved = [&] {
    for (const MatchProgram& goal : goals) {
      Matches m;
      goal.search_eclass(g, root, m, 1);
      if (m.empty()) return false;
    }
    return !goals.empty();
  };
  // egg's test_runner: stop as soon as every goal is in the root's class.
  runner.add_hook([&](Runner&) -> std::optional<std::string> {
    if (proved()) return "Done";
    return std::nullopt;
  });
  res.report = runner.run(rules);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.proved = proved();
  res.bytes = g.bytes();
  return res;
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 5;
  std::vector<std::string> wanted;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else {
      wanted.push_back(argv[i]);
    }
  }
  fmt::print("{:<22} {:<16} {:>5} {:>5} {:>8} {:>8} {:>10} {:>12} {:>9} {:>8}\n", "case", "stop",
             "goal", "iters", "e-nodes", "classes", "seconds", "e-nodes/s", "MiB", "RSS MiB");
  for (const Case& c : cases()) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), c.name) == wanted.end()) {
      continue;
    }
    Result best;
    for (int r = 0; r < repeat; ++r) {
      Result res = run_case(c);
      if (r == 0 || res.seconds < best.seconds) best = std::move(res);
    }
    const RunReport& rep = best.report;
    std::string stop(to_string(rep.stop_reason));
    if (rep.stop_reason == StopReason::Other) stop = rep.stop_message;
    fmt::print("{:<22} {:<16} {:>5} {:>5} {:>8} {:>8} {:>10.6f} {:>12.0f} {:>9.2f} {:>8.1f}\n",
               c.name, stop, c.goals.empty() ? "-" : (best.proved ? "yes" : "no"),
               rep.iterations.size(), rep.enodes, rep.eclasses, best.seconds,
               rep.enodes / best.seconds, best.bytes / 1048576.0, peak_rss_mib());
    if (std::getenv("EQSAT_BENCH_REPORT")) fmt::print("{}\n", rep.to_string());
  }
  return 0;
}
