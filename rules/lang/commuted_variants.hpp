// A `:comm` rule's left sides: the pattern with the operands of its
// commutative nodes in every order, each lowered as a rewrite of its own
// (NAME, NAME#1, ...).
#pragma once

#include "rules/lang/rule_ast.hpp"

#include <vector>

namespace eqsat::rules {

// `p` with the operands of its commutative nodes (ops::is_commutative, two
// operands) in every order, `p`
// first, each distinct pattern (as written, positions aside) once.
std::vector<ast::Pattern> commuted_variants(const ast::Pattern& p);

}  // namespace eqsat::rules
