// Fuzz target: the egraph-serialize importer, then extraction (bottom-up
// and greedy-DAG) of what it accepts. Malformed files are SerializeErrors,
// class cycles with no acyclic term ExtractionErrors; nothing crashes.
#include "egraph/extract/extractor.hpp"
#include "egraph/serialize.hpp"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace eqsat::egraph;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  SerializedEGraph graph;
  try {
    graph = parse_serialized_egraph(text, "fuzz.json", ReadOptions{});
  } catch (const SerializeError&) {
    return 0;
  }
  for (ExtractorKind kind : {ExtractorKind::BottomUp, ExtractorKind::GreedyDag}) {
    try {
      extract(graph.problem, kind, 1.0);
    } catch (const ExtractionError&) {
    }
  }
  return 0;
}
