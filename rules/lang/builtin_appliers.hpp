// Built-in appliers: rewrites that need code rather than patterns, switched
// on by name from rule files (`(use inline-calls :ruleset calls)`). Each
// entry of the table (builtin_appliers.cpp: its name, a one-line doc and
// the function building its e-graph rewrite) is one applier; the rule
// checker accepts exactly these names, and rules/README.md's table of
// built-in appliers describes each.
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
