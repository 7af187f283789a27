// Substitution in bodies (DESIGN.md decision 6), on the representative
// terms of the tensor e-graph: instantiating a body with e-classes for its
// parameters, dropping a parameter with renumbering, and replacing a
// subterm of a body. A body's nominals refer to its own parameters only
// (nested bodies are closed), so these walk one body level.
#pragma once

#include "tensor_egraph.hpp"

#include <optional>
#include <span>

namespace eqsat::rules {

// Adds `t` (a term of a body) with nominal k replaced by args[k]; nullopt
// when a slot has no argument or an op does not type-check on them.
std::optional<egraph::EClassId> instantiate(TensorEGraph& g, ops::TermRef t,
                                            std::span<const egraph::EClassId> args);

// The body `fn` without parameter `slot`: nominal(slot) becomes `value` (a
// closed term or a nominal below `slot`; nullptr when the body does not
// read it) and the nominals above it move down by one.
ops::TermRef drop_parameter(ops::TermRef fn, std::int64_t slot, ops::TermRef value);

// The body `fn` with every occurrence of `target` (a subterm at its own
// level) replaced by `replacement`, and `extra` appended to its parameters.
ops::TermRef replace_in_body(ops::TermRef fn, ops::TermRef target, ops::TermRef replacement,
                             const ops::TensorType& extra);

}  // namespace eqsat::rules
