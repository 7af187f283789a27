// The e-graph operator symbol of each tensor op, and back: e-nodes of the
// tensor e-graph carry `Symbol(op_name)` as their operator ("input",
// "nominal", "const" and "fn" for the leaves and bodies).
#pragma once

#include "egraph/symbol.hpp"
#include "ops/op.hpp"

#include <optional>

namespace eqsat::rules {

egraph::Symbol op_symbol(ops::OpKind kind);
// The op of an e-node's symbol; nullopt for a symbol of another language.
std::optional<ops::OpKind> op_of_symbol(egraph::Symbol s);

}  // namespace eqsat::rules
