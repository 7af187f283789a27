// egg's lambda workload on eqsat::egraph: every test of egg's
// tests/lambda.rs (same rules, start terms, goals and runner limits),
// including lambda_fib and lambda_function_repeat. Usage and output:
// egg_harness.hpp.
#include "egg_harness.hpp"
#include "egg_lambda_language.hpp"

using namespace eqsat::egraph;
using eqsat::bench::EggCase;
namespace lambda = eqsat::bench::lambda;

namespace {

EggCase egg_case(std::string name, std::string start, std::vector<std::string> goals,
                 RunnerConfig config = {}) {
  EggCase c;
  c.name = std::move(name);
  c.starts = {std::move(start)};
  c.goals = std::move(goals);
  c.config = config;
  return c;
}

const char* const kCompose = "(lam f (lam g (lam x (app (var f) (app (var g) (var x))))))";

std::vector<EggCase> cases() {
  std::string compose(kCompose);
  std::vector<EggCase> cs;
  cs.push_back(egg_case("lambda_under", "(lam x (+ 4 (app (lam y (var y)) 4)))", {"(lam x 8)"}));
  cs.push_back(egg_case("lambda_if_elim",
                        "(if (= (var a) (var b)) (+ (var a) (var a)) (+ (var a) (var b)))",
                        {"(+ (var a) (var b))"}));
  cs.push_back(egg_case("lambda_let_simple", "(let x 0 (let y 1 (+ (var x) (var y))))", {"1"}));
  cs.push_back(egg_case("lambda_capture", "(let x 1 (lam x (var x)))", {"(lam x 1)"}));
  cs.push_back(egg_case("lambda_capture_free", "(let y (+ (var x) (var x)) (lam x (var y)))",
                        {"(lam x (+ (var x) (var x)))"}));
  cs.push_back(egg_case("lambda_closure_not_seven",
                        "(let five 5 (let add-five (lam x (+ (var x) (var five))) (let five 6 "
                        "(app (var add-five) 1))))",
                        {"7"}));
  cs.push_back(egg_case(
      "lambda_compose",
      fmt::format("(let compose {} (let add1 (lam y (+ (var y) 1)) (app (app (var compose) (var "
                  "add1)) (var add1))))",
                  compose),
      {"(lam ?x (+ 1 (app (lam ?y (+ 1 (var ?y))) (var ?x))))", "(lam ?x (+ (var ?x) 2))"}));
  cs.push_back(egg_case("lambda_if_simple", "(if (= 1 1) 7 9)", {"7"}));
  std::string many = "(var add1)";
  for (int i = 0; i < 6; ++i) many = fmt::format("(app (app (var compose) (var add1)) {})", many);
  cs.push_back(
      egg_case("lambda_compose_many",
               fmt::format("(let compose {} (let add1 (lam y (+ (var y) 1)) {}))", compose, many),
               {"(lam ?x (+ (var ?x) 7))"}));
  cs.push_back(egg_case(
      "lambda_function_repeat",
      fmt::format("(let compose {} (let repeat (fix repeat (lam fun (lam n (if (= (var n) 0) (lam "
                  "i (var i)) (app (app (var compose) (var fun)) (app (app (var repeat) (var "
                  "fun)) (+ (var n) -1))))))) (let add1 (lam y (+ (var y) 1)) (app (app (var "
                  "repeat) (var add1)) 2))))",
                  compose),
      {"(lam ?x (+ (var ?x) 2))"}, RunnerConfig{60, 150000, 20}));
  cs.push_back(egg_case("lambda_if",
                        "(let zeroone (lam x (if (= (var x) 0) 0 1)) (+ (app (var zeroone) 0) "
                        "(app (var zeroone) 10)))",
                        {"1"}));
  cs.push_back(egg_case("lambda_fib",
                        "(let fib (fix fib (lam n (if (= (var n) 0) 0 (if (= (var n) 1) 1 (+ (app "
                        "(var fib) (+ (var n) -1)) (app (var fib) (+ (var n) -2))))))) (app (var "
                        "fib) 4))",
                        {"3"}, RunnerConfig{60, 50000, 5}));
  return cs;
}

}  // namespace

int main(int argc, char** argv) {
  eqsat::bench::EggLanguage lang{&lambda::syntax(),
                                 [](const EggCase&) -> std::unique_ptr<Analysis> {
                                   return std::make_unique<lambda::LambdaAnalysis>();
                                 },
                                 [](const EggCase&) { return lambda::rules(); }};
  return eqsat::bench::egg_bench_main(argc, argv, cases(), lang);
}
