#include "egraph/extract/extractor.hpp"

#include "egraph/extract/bottom_up.hpp"
#include "egraph/extract/greedy_dag.hpp"
#include "egraph/extract/ilp.hpp"

namespace eqsat::egraph {

std::string_view extractor_name(ExtractorKind kind) {
  switch (kind) {
    case ExtractorKind::BottomUp:
      return "bottom-up";
    case ExtractorKind::GreedyDag:
      return "greedy-dag";
    case ExtractorKind::Ilp:
      return "ilp";
  }
  return "unknown";
}

std::optional<ExtractorKind> parse_extractor(std::string_view name) {
  for (ExtractorKind kind :
       {ExtractorKind::BottomUp, ExtractorKind::GreedyDag, ExtractorKind::Ilp}) {
    if (extractor_name(kind) == name) return kind;
  }
  return std::nullopt;
}

Extraction extract(const ExtractionProblem& problem, ExtractorKind kind,
                   double time_limit_seconds) {
  switch (kind) {
    case ExtractorKind::BottomUp:
      return extract_bottom_up(problem);
    case ExtractorKind::GreedyDag:
      return extract_greedy_dag(problem);
    case ExtractorKind::Ilp:
      return extract_ilp(problem, IlpOptions{time_limit_seconds});
  }
  return extract_bottom_up(problem);
}

}  // namespace eqsat::egraph
