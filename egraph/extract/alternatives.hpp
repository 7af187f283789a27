// The cheapest distinct extractions near a given one, for exploring the
// alternative programs an e-graph holds (`eqsat explore`).
//
// Exact k-best extraction under DAG cost is an ILP per answer; this is a
// best-first search instead: starting from `best`, each extraction found
// is expanded by changing the choice of one class it reaches to another
// usable node (the classes that change then reaches take their cheapest
// trees; a change that closes a cycle is skipped), and the cheapest
// unexpanded extraction is expanded next. Two extractions are distinct
// when the classes they reach or the nodes they choose there differ,
// that is, when they extract different term DAGs.
#pragma once

#include "egraph/extract/extraction.hpp"

#include <cstddef>
#include <vector>

namespace eqsat::egraph {

struct AlternativesOptions {
  std::size_t count = 5;          // how many extractions to return, `best` included
  std::size_t max_trials = 2000;  // changes tried in all (each costs what it reaches)
};

// Up to `count` distinct extractions, `best` first, then the others found
// in non-decreasing DAG cost. Fewer when the search runs out of
// alternatives or trials.
std::vector<Extraction> extract_alternatives(const ExtractionProblem& problem,
                                             const Extraction& best,
                                             const AlternativesOptions& options = {});

}  // namespace eqsat::egraph
