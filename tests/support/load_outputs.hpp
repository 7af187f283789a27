// The outputs of a graph's text in a tensor e-graph, for the tests of the
// rules' pieces (predicates, searchers, the analysis) on small graphs.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "ops/graph_parser.hpp"

#include <string>
#include <vector>

namespace eqsat::testing {

// Adds the outputs of `text` (a graph file's text) to `g` and rebuilds it;
// returns their classes, in order.
inline std::vector<egraph::EClassId> load_outputs(rules::TensorEGraph& g, const std::string& text) {
  std::vector<egraph::EClassId> out;
  for (const auto& o : ops::parse_graph(text, "t.eg", ".").outputs)
    out.push_back(g.add_term(o.term));
  g.egraph().rebuild();
  return out;
}

}  // namespace eqsat::testing
