// The graph printer: writes a Graph as a valid `.eg` file. Parsing the text
// again (ops/graph_parser.hpp) gives the same graph: the same terms by
// identity and the same inputs, outputs and defs.
//
// Layout: inputs, then defs, then `let`s, then outputs. A term gets a `let`
// when it is used more than once, is a tuple (a scan or a multi-output
// call), or is too large to read inline; let names are v0, v1, ... and
// body parameters p0, p1, ... (skipping names taken by inputs and defs).
// Scan bodies are printed inline as `(fn (PARAMS...) LETS... OUTPUTS...)`;
// a called `fn` that no def names is printed as a generated def `f0`, ...
// Attributes equal to their default are left out; a scalar constant is
// written as a bare literal when the weak-literal rule gives it back its
// dtype, and as `(const TYPE (V))` otherwise.
#pragma once

#include "graph.hpp"

#include <string>

namespace eqsat::ops {

struct PrintOptions {
  // Adds the inferred type of each let and output (and of each body's
  // parameters) as a `; TYPE` comment.
  bool types = false;
};

std::string print_graph(const Graph& graph, PrintOptions options = {});

// One term as an expression of the graph language, every value written
// inline (shared ones repeated), for messages such as explanations: inputs
// and defs by their names in `context`, a free parameter of slot k as the
// k-th name of p0, p1, ... (as a body's parameters are printed).
std::string print_expression(TermRef t, const Graph& context);

}  // namespace eqsat::ops
