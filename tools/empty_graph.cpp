#include "empty_graph.hpp"

#include <iostream>

namespace eqsat::tools {

bool warn_if_no_outputs(const ops::Graph& graph, const std::string& path) {
  if (!graph.outputs.empty()) return false;
  std::cerr << path << ": warning: the graph has no outputs: there is nothing to compute\n";
  return true;
}

}  // namespace eqsat::tools
