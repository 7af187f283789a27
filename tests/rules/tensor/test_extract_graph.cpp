// Extraction with the backend cost model: loop bodies cost once per step,
// and the cheapest equivalent term is chosen.
#include "rules/tensor/extract_graph.hpp"

#include "rules/lang/rule_parser.hpp"
#include "rules/pipeline/optimize.hpp"

#include "ops/graph_parser.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using namespace eqsat::rules;

namespace {

ops::Graph graph(const std::string& text) {
  return ops::parse_graph(text, "t.eg", ".");
}

std::string scan_with_steps(int n) {
  return "(input x0 (f64 100)) (input a (f64 100))"
         "(output (get 0 (scan :n-steps " +
         std::to_string(n) + " :sit-sot (x0) :non-sequences (a) (fn (h w) (mul h (exp w))))))";
}

}  // namespace

TEST_CASE("a scan body costs once per step") {
  const backend::CostModel model;
  const ops::Graph g4 = graph(scan_with_steps(4)), g8 = graph(scan_with_steps(8));
  const double c4 = dag_cost({&g4.outputs[0].term, 1}, model);
  const double c8 = dag_cost({&g8.outputs[0].term, 1}, model);
  const ops::TensorType v{ops::DType::F64, {100}};
  const ops::Type operand[] = {v};
  const double exp_cost = node_cost(ops::OpKind::Exp, operand, v, model);
  CHECK(c8 - c4 >= 4 * exp_cost);
}

TEST_CASE("extraction takes the cheapest term of each class and keeps sharing") {
  const ops::Graph g =
      graph("(input x (f64 1000)) (output (mul (exp x) (exp x))) (output (square (exp x)))");
  TensorEGraph eg;
  const auto a = eg.add_term(g.outputs[0].term);
  const auto b = eg.add_term(g.outputs[1].term);
  eg.egraph().merge(a, b);
  eg.egraph().rebuild();
  const backend::CostModel model;
  const egraph::EClassId roots[] = {a};
  const ExtractedTerms best = extract_terms(eg, roots, model);
  CHECK(best.roots[0] == g.outputs[1].term);  // square is cheaper than mul
  CHECK(best.cost == Approx(dag_cost({&g.outputs[1].term, 1}, model)));
}

TEST_CASE("extraction reuses what another output computes anyway") {
  // With a (non-stabilizing) rule softmax x = exp(log_softmax x), the
  // output softmax x reads the output log_softmax x through one exp: the
  // first pass, which prices each output alone, would compute a new softmax.
  const rules::RuleSource src{"t.rules",
                              "(rewrite r (softmax ?x :axis ?a) (exp (log_softmax ?x :axis ?a)))"};
  const rules::RuleProgram p = rules::parse_rules(std::span(&src, 1));
  const std::string in = "(input x (f64 1000))\n";
  const ops::Graph out =
      rules::optimize(graph(in + "(output (log_softmax x)) (output (softmax x))"), p);
  const ops::Graph want = graph(in + "(let l (log_softmax x)) (output l) (output (exp l))");
  CHECK(out.outputs[0].term == want.outputs[0].term);
  CHECK(out.outputs[1].term == want.outputs[1].term);
  // One output alone keeps the fused op.
  CHECK(rules::optimize(graph(in + "(output (softmax x))"), p).outputs[0].term->kind() ==
        ops::OpKind::Softmax);
}
