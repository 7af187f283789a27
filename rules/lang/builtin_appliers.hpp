// Built-in appliers: rewrites that need code rather than patterns, switched
// on by name from rule files (`(use inline-calls :ruleset calls)`). Each
// entry builds its e-graph rewrite for a tensor e-graph; the rule checker
// accepts exactly these names.
//
//   inline-calls   (call F ARGS...) = F's body with its parameters replaced
//                  by ARGS; for a def with several outputs,
//                  (get I (call F ARGS...)) = output I. Both forms stay in
//                  the e-graph and extraction keeps the call only where it
//                  is cheaper (a def with :inline false included).
//   scan-remove-unused      see scan_remove_unused.hpp
//   scan-merge-sequences    see scan_merge_sequences.hpp
//   scan-merge-outputs      see scan_merge_outputs.hpp
//   scan-inline-constants, scan-merge-duplicates, scan-hoist-invariants
//                  see scan_rewrites.hpp
//   expand-gradients
//                  (grad COST WRT) = the gradient of COST's best term,
//                  see expand_gradients.hpp
#pragma once

#include "rules/tensor/refusing_applier.hpp"
#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace eqsat::rules {

struct BuiltinApplier {
  std::string_view name;
  std::string_view doc;
  // The rewrite, named `name`, over `g` (which must outlive it).
  egraph::Rewrite (*make)(TensorEGraph& g);
};

std::span<const BuiltinApplier> builtin_appliers();
// The names a `use` may give, for the rule checker.
std::vector<std::string> builtin_applier_names();
const BuiltinApplier* find_builtin_applier(std::string_view name);

}  // namespace eqsat::rules
