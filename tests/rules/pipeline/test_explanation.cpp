// Explanations of optimized tensor graphs (rules/pipeline/explanation.hpp) and of
// equalities (rules/pipeline/prove_equal.hpp): each chain starts at the input's
// output term and ends at the optimized one, each step's `before` is the
// subterm at its position, a `.rules` step replays (the rule, run once on
// `before` in a fresh e-graph, gives `after`), a `constant-fold` step
// replays through the analysis alone, and a graph with nothing to rewrite
// gives an empty chain; the examples' chains all replay.
#include "rules/lang/rule_lowering.hpp"
#include "rules/pipeline/explanation.hpp"
#include "rules/pipeline/optimize.hpp"
#include "rules/pipeline/prove_equal.hpp"
#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/runner.hpp"
#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"
#include "tests/support/check_optimizes.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace eqsat;
using namespace eqsat::testing;

namespace {

bool is_builtin_applier(const std::string& rule) {
  return std::ranges::any_of(shipped_rules().uses(),
                             [&](const rules::ast::Use& u) { return u.applier == rule; });
}

// `to` is in `from`'s class after one iteration of `rule` (every commuted
// variant; none for `constant-fold`, which the analysis does) on a fresh
// e-graph holding `from`.
bool replays(const std::string& rule, ops::TermRef from, ops::TermRef to) {
  rules::TensorEGraph g;
  const egraph::EClassId root = g.add_term(from);
  g.egraph().rebuild();
  if (rule != "constant-fold") {
    rules::LoweredRules lowered(shipped_rules(), g);
    std::vector<const egraph::Rewrite*> selected;
    for (std::size_t i = 0; i < lowered.rewrites().size(); ++i)
      if (lowered.rule_name(i) == rule) selected.push_back(&lowered.rewrites()[i]);
    REQUIRE_FALSE(selected.empty());
    egraph::Runner runner(g.egraph(), egraph::RunnerConfig{.iter_limit = 1});
    runner.run(selected);
  }
  const egraph::EClassId got = g.add_term(to);
  g.egraph().rebuild();
  return g.egraph().find(got) == g.egraph().find(root);
}

// Applies the steps to the start term: each `before` is the subterm at its
// position, the rules replay, and the end term comes out.
void check_chain(const rules::TermExplanation& e, const ops::Graph& context) {
  ops::TermRef whole = e.start;
  for (const rules::TermStep& s : e.steps) {
    INFO(s.rule << (s.forward ? "" : " (right to left)") << ": "
                << ops::print_expression(s.before, context) << " => "
                << ops::print_expression(s.after, context));
    ops::TermRef here = whole;
    for (std::uint32_t i : s.position) here = here->operand(i);
    CHECK(here == s.before);
    if (!is_builtin_applier(s.rule))
      CHECK((s.forward ? replays(s.rule, s.before, s.after) : replays(s.rule, s.after, s.before)));
    whole = rules::replace_at(whole, s.position, s.after);
  }
  CHECK(whole == e.end);
}

// Optimizes with explanations; checks every chain against the result.
std::vector<rules::TermExplanation> explained(const ops::Graph& g) {
  rules::OptimizeReport report;
  rules::OptimizeOptions options;
  options.explain = true;
  const ops::Graph out = rules::optimize(g, shipped_rules(), &report, options);
  REQUIRE(report.explanations.size() == g.outputs.size());
  for (std::size_t i = 0; i < g.outputs.size(); ++i) {
    const rules::TermExplanation& e = report.explanations[i];
    CHECK(e.name == g.outputs[i].name);
    CHECK(e.start == g.outputs[i].term);
    CHECK(e.end == out.outputs[i].term);
    check_chain(e, g);
  }
  return report.explanations;
}

bool uses_rule(const rules::TermExplanation& e, const std::string& rule) {
  return std::ranges::any_of(e.steps, [&](const rules::TermStep& s) { return s.rule == rule; });
}

}  // namespace

TEST_CASE("explanation: (add x 0) becomes x by add-zero") {
  const auto es = explained(graph("(input x (f64 4)) (output (add x 0))"));
  REQUIRE(es[0].steps.size() == 1);
  CHECK(es[0].steps[0].rule == "add-zero");
  CHECK(es[0].steps[0].position.empty());
  CHECK(rules::to_string(es[0], graph("(input x (f64 4))")) ==
        "out0: 1 step\n  1. add-zero at (): (add x 0.0) => x\n");
}

TEST_CASE("explanation: nested rewrites are steps at their positions") {
  const auto es =
      explained(graph("(input x (f64 4)) (input y (f64 4))"
                      "(output (mul (log (exp (add x 0))) (add y (mul 2 3))))"));
  CHECK(uses_rule(es[0], "log-exp"));
  CHECK(uses_rule(es[0], "add-zero"));
  CHECK(std::ranges::any_of(es[0].steps,
                            [](const rules::TermStep& s) { return !s.position.empty(); }));
}

TEST_CASE("explanation: nothing to rewrite gives an empty chain") {
  const auto es = explained(graph("(input x (f64 4)) (output (exp x))"));
  CHECK(es[0].steps.empty());
}

TEST_CASE("explanation: one chain per output") {
  const auto es = explained(graph("(input x (f64 4)) (output a (add x 0)) (output b (exp x))"));
  REQUIRE(es.size() == 2);
  CHECK(es[0].steps.size() == 1);
  CHECK(es[1].steps.empty());
}

TEST_CASE("explanation: a loop's rewrites are explained") {
  // The unread state goes (scan-remove-unused) and the body's (mul y 1.0) too.
  const auto es = explained(graph(R"(
    (input x0 (f64 3)) (input y0 (f64 3))
    (let s (scan :n-steps 4 :sit-sot (x0 y0) (fn (x y) (mul (add x 0) 1.5) (mul y 0.5))))
    (output (get 0 s)))"));
  CHECK_FALSE(es[0].steps.empty());
  CHECK(uses_rule(es[0], "add-zero"));
}

TEST_CASE("prove_equal: proves (log (exp x)) = x, not (exp x) = (log x)") {
  const ops::Graph g = graph("(input x (f64 4)) (output (exp x))");
  const ops::TermRef x = g.inputs[0];
  const ops::TermRef ex = ops::Term::make(ops::OpKind::Exp, {}, {x});
  const ops::TermRef lx = ops::Term::make(ops::OpKind::Log, {}, {x});
  const ops::TermRef lex = ops::Term::make(ops::OpKind::Log, {}, {ex});
  const rules::ProofResult yes = rules::prove_equal(g, lex, x, shipped_rules());
  REQUIRE(yes.explanation);
  CHECK(uses_rule(*yes.explanation, "log-exp"));
  check_chain(*yes.explanation, g);
  const rules::ProofResult no = rules::prove_equal(g, ex, lx, shipped_rules());
  CHECK_FALSE(no.explanation);
  CHECK_FALSE(no.report.stop_reason.empty());
}

TEST_CASE("explanation: off by default, the e-graph records nothing") {
  rules::OptimizeReport report;
  rules::OptimizeOptions options;
  bool recorded = true;
  options.saturated = [&](const rules::TensorEGraph& g, std::span<const egraph::EClassId>) {
    recorded = g.egraph().explaining() || g.egraph().proofs() != nullptr;
  };
  rules::optimize(graph("(input x (f64 4)) (output (log (exp (add x 0))))"), shipped_rules(),
                  &report, options);
  CHECK_FALSE(recorded);
  CHECK(report.explanations.empty());
}

TEST_CASE("explanation: every example's chains replay") {
  for (const auto& entry : std::filesystem::directory_iterator(EQSAT_RULES_DIR "/../examples")) {
    if (entry.path().extension() != ".eg") continue;
    INFO(entry.path().filename().string());
    explained(ops::parse_graph_file(entry.path().string()));
  }
}

TEST_CASE(
    "explanation: steps inside loops whose classes are shared by two bodies keep their rules") {
  // From the long gradient property run (seed 50321): a class of the proof
  // holds terms of two loop bodies with different parameter counts, so
  // some steps' terms cannot be rebuilt; the chain still names each rule
  // and its position (it used to be an internal error).
  const ops::Graph g = graph(R"(
(input x0 (f64 1 4))
(input x2 i64)
(let v1 (div (const (f64 1 4) (2.0 -1.0 0.0 -2.5)) x0))
(let v2 (pow x0 0.5))
(let v3 (mul v2 v2))
(let v4 (reshape v1 :shape (2 -1)))
(let v5 (scan :sequences (v1) :mit-sot (((stack v3 v3) :taps (-2 -1))) :sit-sot (x0 x0) :non-sequences (v4)
  (fn (p0 p1 p2 p3 p4 p5) p4 p2 (tanh (add p4 (cast p2 :dtype bool))))))
(let v6 (index (get 0 v5) -1))
(let v7 (logsumexp v4 :axis (0) :keepdims true))
(let v8 (log_softmax v6 :axis 0))
(let v9 (min v8))
(let v10 (scan :n-steps 3 :sit-sot ((transpose (dot v7 (neg (transpose v7)))) 0) :nit-sot 1 :non-sequences (0.0 v9 v4) :until true
  (fn (p0 p1 p2 p3 p4) (let v11 (add p1 1)) p0 v11 p3 (ge v11 2))))
(let v12 (const (f64 4 1 4) (2.0 2.0 2.0 2.0 2.0 2.0 2.0 2.0 2.0 2.0 2.0 2.0 2.0 2.0 2.0 2.0)))
(let v13 (scan :n-steps 4 :mit-sot (((stack v8 v8 v8) :taps (-3 -1))) :sit-sot (v7) :nit-sot 1 :non-sequences ((squeeze (expand_dims v9 :axis 0)))
  (fn (p0 p1 p2 p3)
    (flip (where (gt p0 3.0) 1.0 1.0))
    (tanh (add p2 p3))
    (minimum (where (gt p3 -2.5) -1.0 3.0) 3.0))))
(output (sub v6 0.0))
(output grad0 (grad (sum (index (cast (get 1 v10) :dtype f64) x2)) x0))
(output grad1 (grad (sum (mul v12 (get 0 v13))) x0))
)");
  rules::OptimizeReport report;
  rules::OptimizeOptions options;
  options.explain = true;
  REQUIRE_NOTHROW(rules::optimize(g, shipped_rules(), &report, options));
  REQUIRE(report.explanations.size() == 3);
  for (const rules::TermExplanation& e : report.explanations) {
    for (const rules::TermStep& s : e.steps) {
      CHECK_FALSE(s.rule.empty());
      CHECK((s.before == nullptr) == (s.after == nullptr));
    }
    CHECK_NOTHROW(rules::to_string(e, g));
  }
  CHECK(uses_rule(report.explanations[2], "expand-gradients"));
}
