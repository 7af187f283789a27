// The warning for a graph with no outputs: it parses and runs, but computes
// nothing, which is almost always a mistake (an `output` forgotten, the
// wrong file).
#pragma once

#include "ops/graph.hpp"

#include <string>

namespace eqsat::tools {

// Writes `PATH: warning: the graph has no outputs: there is nothing to
// compute` to stderr when `graph` has none; returns whether it warned.
bool warn_if_no_outputs(const ops::Graph& graph, const std::string& path);

}  // namespace eqsat::tools
