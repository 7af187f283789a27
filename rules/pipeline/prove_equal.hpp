// Proving two values of a graph equal (`eqsat explain`): both terms and the
// graph go into one e-graph with explanations on, the rule program's
// schedule saturates it, and when the two end in one e-class the recorded
// steps say why (egg's `explain_equivalence`).
//
//   ProofResult p = prove_equal(graph, lhs, rhs, load_default_rules());
//   if (p.explanation) std::cout << to_string(*p.explanation, graph);
//   else std::cout << "not proven: " << p.report.stop_reason;
#pragma once

#include "rules/pipeline/explanation.hpp"
#include "rules/pipeline/optimize.hpp"

#include "ops/graph.hpp"

#include <optional>

namespace eqsat::rules {

struct ProofResult {
  // The steps from lhs to rhs; nullopt when saturation ended (see the
  // report's stop_reason) without putting them in one e-class.
  std::optional<TermExplanation> explanation;
  OptimizeReport report;  // the saturation's counts (no extraction)
};

// `lhs` and `rhs` are terms over `graph`'s inputs (its outputs and defs are
// loaded too, as optimize loads them). Options as for optimize, `explain`
// aside (always on here).
ProofResult prove_equal(const ops::Graph& graph, ops::TermRef lhs, ops::TermRef rhs,
                        const RuleProgram& rules, const OptimizeOptions& options = {});

}  // namespace eqsat::rules
