// Lowers a checked RuleProgram to e-graph rewrites over a TensorEGraph.
//
// Left sides become e-graph patterns whose op nodes bind their payload; a
// searcher then keeps only the matches whose attributes agree with the rule
// (written values, repeated attribute variables, and the op's defaults for
// attributes the rule omits) and whose literals match uniform classes of
// static shape. Conditions evaluate the predicate table on the analysis.
// Right sides are built by a typed applier: it first types the whole right
// side with the ops' type rules over the classes' representatives, and only
// when that succeeds and gives exactly the matched class's type are e-nodes
// added and merged; otherwise the match is refused and counted
// (docs/architecture.md decision 5). A birewrite NAME gives NAME and NAME-rev; a
// `use` gives its built-in applier's rewrite (builtin_appliers.hpp), after
// the rewrites, named after the applier.
#pragma once

#include "rules/lang/rule_ast.hpp"
#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace eqsat::rules {

class TypedApplier;

// Rewrites of this rule set are stabilizations: an applied match marks the
// left side's root e-node unstable, and extraction never prefers it to the
// stable form in its class (docs/architecture.md decision 11).
inline constexpr std::string_view kStabilizeRuleset = "stabilize";

// Whether a step of `program`'s schedule runs `ruleset` (every set when
// the schedule has no steps).
bool scheduled(const RuleProgram& program, const std::string& ruleset);

class LoweredRules {
 public:
  // The rewrites of every rule of `program` in a rule set its schedule
  // runs, bound to `g`; both must outlive the LoweredRules.
  LoweredRules(const RuleProgram& program, TensorEGraph& g);
  ~LoweredRules();

  const std::vector<egraph::Rewrite>& rewrites() const { return rewrites_; }
  // Rule set of rewrites()[i].
  const std::string& ruleset(std::size_t i) const { return rulesets_[i]; }
  // The rule rewrites()[i] comes from: NAME, NAME-rev for a birewrite's
  // reverse, NAME for every commuted left side of a `:comm` rule (whose
  // rewrites are NAME, NAME#1, ...), the applier's name for a `use`.
  const std::string& rule_name(std::size_t i) const { return rule_names_[i]; }
  // The rewrites of the named rule sets, in program order.
  std::vector<const egraph::Rewrite*> select(std::span<const std::string> rulesets) const;
  // Matches of rewrites()[i] refused so far: an ill-typed right side, or one
  // whose type differs from the matched class's.
  std::size_t refused(std::size_t i) const;

 private:
  std::vector<egraph::Rewrite> rewrites_;
  std::vector<std::string> rulesets_;
  std::vector<std::string> rule_names_;
  std::vector<std::shared_ptr<TypedApplier>> appliers_;
};

}  // namespace eqsat::rules
