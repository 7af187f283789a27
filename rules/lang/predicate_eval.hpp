// Evaluates the condition predicates of predicate.hpp on e-classes of a
// tensor e-graph, from the tensor analysis. Conservative: a fact the
// analysis cannot prove is false.
#pragma once

#include "rules/lang/predicate.hpp"
#include "rules/lang/rule_ast.hpp"
#include "rules/tensor/tensor_egraph.hpp"

#include <cstdint>
#include <span>

namespace eqsat::rules {

// The value of one argument of a condition: an e-class, an integer or a dtype.
struct PredicateArg {
  egraph::EClassId eclass;
  std::int64_t int_value = 0;
  ops::DType dtype{};
};

bool evaluate(Predicate p, std::span<const PredicateArg> args, const TensorEGraph& g);

// The dtypes (bit `1 << dtype` each) the first argument's class may have
// for `c` to hold: all of them unless c's predicate names a dtype or a
// kind of dtype. With TensorAnalysis::dtypes_made, it tells that a rule
// cannot match an e-graph without searching it.
std::uint32_t dtypes_allowed(const ast::Condition& c);

}  // namespace eqsat::rules
