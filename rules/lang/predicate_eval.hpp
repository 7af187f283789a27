// Evaluates the condition predicates of predicate.hpp on e-classes of a
// tensor e-graph, from the tensor analysis. Conservative: a fact the
// analysis cannot prove is false.
#pragma once

#include "rules/lang/predicate.hpp"
#include "rules/lang/rule_ast.hpp"
#include "rules/tensor/tensor_egraph.hpp"

#include <span>

namespace eqsat::rules {

// The value of one argument of a condition: an e-class, an integer or a dtype.
struct PredicateArg {
  egraph::EClassId eclass;
  std::int64_t int_value = 0;
  ops::DType dtype{};
};

bool evaluate(Predicate p, std::span<const PredicateArg> args, const TensorEGraph& g);

}  // namespace eqsat::rules
