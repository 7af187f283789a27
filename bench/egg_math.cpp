// egg's math workload on eqsat::egraph: every test of egg's tests/math.rs
// (same rules, start terms, goals and runner limits, egg's goal-checking
// hook) and the stress workload of egg's math e-matching benchmark (its
// seven start terms together, 30 iterations, 100,000 e-nodes) with the
// simple and the backoff scheduler. Usage and output: egg_harness.hpp.
#include "egg_harness.hpp"
#include "egg_math_language.hpp"

using namespace eqsat::egraph;
using eqsat::bench::EggCase;
namespace math = eqsat::bench::math;

namespace {

EggCase egg_case(std::string name, std::vector<std::string> starts, std::vector<std::string> goals,
                 RunnerConfig config) {
  EggCase c;
  c.name = std::move(name);
  c.starts = std::move(starts);
  c.goals = std::move(goals);
  c.config = config;
  return c;
}

std::vector<EggCase> cases() {
  RunnerConfig def;  // egg's Runner::default(): 30 iterations, 10,000 e-nodes, 5 s
  std::vector<EggCase> cs;
  // Two rules, no analysis, 7 iterations, simple scheduler; egg checks 127 classes.
  cs.push_back(egg_case("math_associate_adds", {"(+ 1 (+ 2 (+ 3 (+ 4 (+ 5 (+ 6 7))))))"},
                        {"(+ 7 (+ 6 (+ 5 (+ 4 (+ 3 (+ 2 1))))))"}, RunnerConfig{7, 10000, 5}));
  cs.back().simple_scheduler = true;
  cs.back().expect_classes = 127;
  cs.back().plain = true;
  cs.push_back(egg_case("math_fail", {"(+ x y)"}, {"(/ x y)"}, def));
  cs.push_back(egg_case("math_simplify_add", {"(+ x (+ x (+ x x)))"}, {"(* 4 x)"}, def));
  cs.push_back(egg_case("math_powers", {"(* (pow 2 x) (pow 2 y))"}, {"(pow 2 (+ x y))"}, def));
  cs.push_back(egg_case("math_simplify_const", {"(+ 1 (- a (* (- 2 1) a)))"}, {"1"}, def));
  cs.push_back(egg_case("math_simplify_root",
                        {"(/ 1 (- (/ (+ 1 (sqrt five)) 2) (/ (- 1 (sqrt five)) 2)))"},
                        {"(/ 1 (sqrt five))"}, RunnerConfig{30, 75000, 5}));
  cs.push_back(egg_case("math_simplify_factor", {"(* (+ x 3) (+ x 1))"},
                        {"(+ (+ (* x x) (* 4 x)) 3)"}, def));
  cs.push_back(egg_case("math_diff_same", {"(d x x)"}, {"1"}, def));
  cs.push_back(egg_case("math_diff_different", {"(d x y)"}, {"0"}, def));
  cs.push_back(egg_case("math_diff_simple1", {"(d x (+ 1 (* 2 x)))"}, {"2"}, def));
  cs.push_back(egg_case("math_diff_simple2", {"(d x (+ 1 (* y x)))"}, {"y"}, def));
  cs.push_back(egg_case("math_diff_ln", {"(d x (ln x))"}, {"(/ 1 x)"}, def));
  cs.push_back(egg_case("diff_power_simple", {"(d x (pow x 3))"}, {"(* 3 (pow x 2))"}, def));
  cs.push_back(egg_case("diff_power_harder", {"(d x (- (pow x 3) (* 7 (pow x 2))))"},
                        {"(* x (- (* 3 x) 14))"}, RunnerConfig{60, 100000, 10}));
  cs.back().extra_exprs = {"(* x (- (* 3 x) 14))"};
  cs.push_back(egg_case("integ_one", {"(i 1 x)"}, {"x"}, def));
  cs.push_back(egg_case("integ_sin", {"(i (cos x) x)"}, {"(sin x)"}, def));
  cs.push_back(egg_case("integ_x", {"(i (pow x 1) x)"}, {"(/ (pow x 2) 2)"}, def));
  cs.push_back(
      egg_case("integ_part1", {"(i (* x (cos x)) x)"}, {"(+ (* x (sin x)) (cos x))"}, def));
  cs.push_back(
      egg_case("integ_part2", {"(i (* (cos x) x) x)"}, {"(+ (* x (sin x)) (cos x))"}, def));
  cs.push_back(egg_case("integ_part3", {"(i (ln x) x)"}, {"(- (* x (ln x)) x)"}, def));
  cs.push_back(egg_case("assoc_mul_saturates", {"(* x 1)"}, {}, {3, 10000, 5}));
  // egg's math e-matching benchmark: its seven start terms in one e-graph.
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
  cs.push_back(egg_case("stress_simple", stress, {}, big));
  cs.back().simple_scheduler = true;
  cs.push_back(egg_case("stress_backoff", stress, {}, big));
  return cs;
}

}  // namespace

int main(int argc, char** argv) {
  eqsat::bench::EggLanguage lang{
      &math::syntax(),
      [](const EggCase& c) -> std::unique_ptr<Analysis> {
        if (c.plain) return nullptr;  // math_associate_adds runs without the analysis
        return std::make_unique<math::ConstantFold>();
      },
      [](const EggCase& c) {
        if (!c.plain) return math::rules();
        const eqsat::bench::RuleMaker rw{math::syntax()};
        return std::vector<Rewrite>{rw("comm-add", "(+ ?a ?b)", "(+ ?b ?a)"),
                                    rw("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)")};
      }};
  return eqsat::bench::egg_bench_main(argc, argv, cases(), lang);
}
