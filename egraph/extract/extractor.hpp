// Choosing an extractor by name: the one entry point the command line and
// the benchmarks use.
#pragma once

#include "egraph/extract/extraction.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace eqsat::egraph {

enum class ExtractorKind { BottomUp, GreedyDag, Ilp };

// "bottom-up", "greedy-dag", "ilp".
std::string_view extractor_name(ExtractorKind kind);
std::optional<ExtractorKind> parse_extractor(std::string_view name);

// Runs one extractor; `time_limit_seconds` bounds the ILP only (the others
// run in near-linear time).
Extraction extract(const ExtractionProblem& problem, ExtractorKind kind,
                   double time_limit_seconds = 10.0);

}  // namespace eqsat::egraph
