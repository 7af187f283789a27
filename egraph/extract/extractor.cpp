#include "egraph/extract/extractor.hpp"

#include "egraph/extract/bottom_up.hpp"
#include "egraph/extract/greedy_dag.hpp"
#include "egraph/extract/ilp.hpp"

namespace eqsat::egraph {

std::string_view extractor_name(ExtractorKind kind) {
  switch (kind) {
    case ExtractorKind::kBottomUp:
      return "bottom-up";
    case ExtractorKind::kGreedyDag:
      return "greedy-dag";
    case ExtractorKind::kIlp:
      return "ilp";
  }
  return "unknown";
}

std::optional<ExtractorKind> parse_extractor(std::string_view name) {
  for (ExtractorKind kind :
       {ExtractorKind::kBottomUp, ExtractorKind::kGreedyDag, ExtractorKind::kIlp}) {
    if (extractor_name(kind) == name) return kind;
  }
  return std::nullopt;
}

Extraction extract(const ExtractionProblem& problem, ExtractorKind kind,
                   double time_limit_seconds) {
  switch (kind) {
    case ExtractorKind::kBottomUp:
      return extract_bottom_up(problem);
    case ExtractorKind::kGreedyDag:
      return extract_greedy_dag(problem);
    case ExtractorKind::kIlp:
      return extract_ilp(problem, IlpOptions{time_limit_seconds});
  }
  return extract_bottom_up(problem);
}

}  // namespace eqsat::egraph
