// Explanations in the tensor language: the rewrite steps, recorded by a
// TensorEGraph built with explanations on (egraph/explain.hpp), that turn
// one term into an equal one, as terms of the graph language. egg's "flat"
// form: each step rewrites the subterm at one position of the whole term,
// naming the rule (a `.rules` rewrite, a built-in applier such as
// `scan-fusion`, or `constant-fold` for the analysis's merges).
//
//   TensorEGraph g(egraph::Explanations::On);
//   ... load and saturate ...
//   TermExplanation e = explain_terms(g, a, b);
//   std::cout << to_string(e, graph);
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "ops/graph.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace eqsat::rules {

// The subterm at `position` (child indices from the root) is `before`;
// the rule makes it `after`. `forward` false: the rule's right side
// matched `before` (it was applied right to left).
struct TermStep {
  std::string rule;
  bool forward = true;
  std::vector<std::uint32_t> position;
  // The terms rewritten; both null when they cannot be rebuilt (a step
  // inside a loop body whose class is shared with another body's terms).
  ops::TermRef before, after;
};

struct TermExplanation {
  std::string name;  // the output explained, or what the caller calls it
  ops::TermRef start, end;
  std::vector<TermStep> steps;  // empty when start is end
};

// Why `a` equals `b` in `g` (explanations on): both are added as exact
// terms (and the e-graph rebuilt if that changed it). They must be in one
// e-class (else an InternalError); std::length_error when the chain is too long.
TermExplanation explain_terms(TensorEGraph& g, ops::TermRef a, ops::TermRef b);

// `t` with the subterm at `position` replaced by `by`.
ops::TermRef replace_at(ops::TermRef t, std::span<const std::uint32_t> position, ops::TermRef by);

// The explanation as text (`context` names inputs and defs): a header
// `NAME: K steps`, then a line per step `  I. RULE at (POSITION): BEFORE =>
// AFTER` (`RULE (right to left)` when the rule's right side matched BEFORE;
// a loop's body spans lines).
std::string to_string(const TermExplanation& e, const ops::Graph& context);

}  // namespace eqsat::rules
