// Fuzz target: the graph parser. Any text is either a graph — which then
// prints and parses back to the same graph — or a DiagnosticError; never a
// crash, a hang or another exception.
#include "ops/diagnostic.hpp"
#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace eqsat::ops;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Graph graph;
  try {
    graph = parse_graph(text, "fuzz.eg", ".");
  } catch (const DiagnosticError&) {
    return 0;
  }
  const std::string printed = print_graph(graph);
  if (!(parse_graph(printed, "printed.eg", ".") == graph)) std::abort();
  return 0;
}
