// The last check of `optimize` on gradients: no `grad` leaves it
// unexpanded; one that could not be expanded is a located user error.
#pragma once

#include "rules/pipeline/written_locations.hpp"

#include "ops/graph.hpp"

#include <span>

namespace eqsat::rules {

// Throws ops::DiagnosticError, at the `grad`'s written position, when a
// `grad` is left under `roots` (extraction's choice): it names the grad's
// WRT and why it could not be expanded. Optimize never returns a graph the
// executor would refuse for a grad.
void refuse_unexpanded_grads(std::span<const ops::TermRef> roots, WrittenLocations& where,
                             const ops::Graph& graph);

}  // namespace eqsat::rules
