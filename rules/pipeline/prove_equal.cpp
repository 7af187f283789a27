#include "rules/pipeline/prove_equal.hpp"

#include "rules/tensor/tensor_egraph.hpp"

#include <chrono>

namespace eqsat::rules {

ProofResult prove_equal(const ops::Graph& graph, ops::TermRef lhs, ops::TermRef rhs,
                        const RuleProgram& rules, const OptimizeOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  ProofResult out;
  TensorEGraph g(egraph::Explanations::On);
  add_graph(g, graph);
  const egraph::EClassId a = g.term_id(lhs), b = g.term_id(rhs);
  g.egraph().rebuild();
  out.report.load_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  saturate(g, rules, out.report, options, start);
  if (g.egraph().find(a) == g.egraph().find(b)) out.explanation = explain_terms(g, lhs, rhs);
  out.report.total_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace eqsat::rules
