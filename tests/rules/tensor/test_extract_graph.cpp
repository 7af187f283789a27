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

namespace {

// Output 0 and output 1 of `text` put in one class: the term extraction
// picks for it, and its cost.
ExtractedTerms best_of_two(const ops::Graph& g) {
  TensorEGraph eg;
  const auto a = eg.add_term(g.outputs[0].term);
  const auto b = eg.add_term(g.outputs[1].term);
  eg.egraph().merge(a, b);
  eg.egraph().rebuild();
  const egraph::EClassId roots[] = {a};
  return extract_terms(eg, roots, backend::CostModel());
}

}  // namespace

TEST_CASE("extraction prices a fused elementwise chain as the executor runs it") {
  // PyTensor's specialized powers: a chain the executor runs in one pass
  // beats one pow on a long vector (or one of unknown length); on 8
  // elements the ops run one by one, a call each, and the pow of a long
  // chain stays (bench/README.md, "where and pow against their rewrites").
  struct Form {
    const char* pow;
    const char* chain;
    bool long_chain;
  };
  const Form forms[] = {
      {"(pow x 16.0)", "(square (square (square (square x))))", true},
      {"(pow x 15.0)",
       "(let s (square x)) (let q (square s)) "
       "(mul (mul (mul (square q) q) s) x)",
       true},
      {"(pow x -2.0)", "(reciprocal (square x))", false},
      {"(pow x -0.5)", "(reciprocal (sqrt x))", false},
  };
  for (const auto& [pow, chain, long_chain] : forms)
    for (const char* type : {"(f64 1000)", "(f32 ?)", "(f64 8)"}) {
      INFO(pow << " on " << type);
      std::string lets = chain, last = chain;
      if (const auto at = std::string(chain).rfind(") ("); at != std::string::npos) {
        lets = std::string(chain).substr(0, at + 1);
        last = std::string(chain).substr(at + 2);
      } else {
        lets.clear();
      }
      const ops::Graph g = graph(std::string("(input x ") + type + ") " + lets + " (output " + pow +
                                 ") (output " + last + ")");
      const ExtractedTerms best = best_of_two(g);
      const bool pow_stays = long_chain && std::string(type) == "(f64 8)";
      CHECK(best.roots[0] == (pow_stays ? g.outputs[0].term : g.outputs[1].term));
      CHECK(best.cost == Approx(dag_cost({&best.roots[0], 1}, backend::CostModel())));
    }
}

TEST_CASE("a fused chain's cost counts its memory once") {
  const backend::CostModel model;
  const ops::Graph g = graph("(input x (f64 1000)) (output (exp (neg (abs x))))");
  const ops::Type v = ops::TensorType{ops::DType::F64, {1000}};
  const ops::Type one[] = {v};
  // Three unfused ops move six vectors; fused, x is read and the result
  // written once, with one kernel call.
  const double fused = dag_cost({&g.outputs[0].term, 1}, model);
  const double unfused = node_cost(ops::OpKind::Exp, one, v, model) +
                         node_cost(ops::OpKind::Neg, one, v, model) +
                         node_cost(ops::OpKind::Abs, one, v, model);
  const auto& w = model.weights();
  CHECK(unfused - fused == Approx(2 * w.call_overhead_ns + 4 * 8000 * w.ns_per_byte));
}
