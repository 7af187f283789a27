// Term-level substitution for the push-out rewrites (scan_pushout_*), which
// classify and rebuild a body's representative term as a whole. Every other
// applier uses the e-class substitution of substitute.hpp (decision 6); these
// two are the remaining term-level forms.
#pragma once

#include "tensor_egraph.hpp"

#include <optional>
#include <span>

namespace eqsat::rules {

// Adds `t` (a term of a body) with nominal k replaced by args[k]; nullopt
// when a slot has no argument or an op does not type-check on them.
std::optional<egraph::EClassId> instantiate(TensorEGraph& g, ops::TermRef t,
                                            std::span<const egraph::EClassId> args);

// The body `fn` with every occurrence of `target` (a subterm at its own
// level) replaced by `replacement`, and `extra` appended to its parameters.
ops::TermRef replace_in_body(ops::TermRef fn, ops::TermRef target, ops::TermRef replacement,
                             const ops::TensorType& extra);

}  // namespace eqsat::rules
