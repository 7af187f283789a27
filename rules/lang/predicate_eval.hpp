// Evaluates the condition predicates of predicate.hpp on e-classes of a
// tensor e-graph, from the tensor analysis. Conservative: a fact the
// analysis cannot prove is false.
#pragma once

#include "rules/lang/predicate.hpp"
#include "rules/lang/rule_ast.hpp"
#include "rules/tensor/tensor_egraph.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace eqsat::rules {

// The value of one argument of a condition: an e-class, an integer or a dtype.
struct PredicateArg {
  egraph::EClassId eclass;
  std::int64_t int_value = 0;
  ops::DType dtype{};
};

bool evaluate(Predicate p, std::span<const PredicateArg> args, const TensorEGraph& g);

// For each of `conditions` that restricts its first argument's dtype
// (`integer`, `float`, `dtype`), the dtypes it allows (dtype_bit
// each). With TensorAnalysis::dtypes_made, they tell that a rule cannot
// match an e-graph without searching it.
std::vector<std::uint32_t> dtype_needs(std::span<const ast::Condition> conditions);

}  // namespace eqsat::rules
