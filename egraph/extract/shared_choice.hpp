// A pass after a per-class extractor: chooses one class for all the classes
// that can read it at once. Greedy extractors pick each class's node on its
// own, so a tuple-valued class read through several projections (a loop and
// the `get`s of its outputs) loses to smaller alternatives that each serve
// one reader, although one shared producer serving all readers costs less.
#pragma once

#include "egraph/extract/extraction.hpp"

#include <span>

namespace eqsat::egraph {

// Tries each candidate class T that two classes of the extraction could
// read (or one, T being reached already), one of them not reading it yet: every class with a usable
// node reading T takes such a node (the cheapest by its own cost), the others keep their choices
// (classes the extraction did not reach take their cheapest tree), and the trial is kept when it is
// acyclic and its DAG cost is lower. A trial costs what the extraction reaches, not the problem's
// size. Repeats over the candidates until a pass keeps nothing (at most
// `max_passes`). Never returns a costlier extraction than `x`; `optimal`
// and `seconds` carry over, the seconds plus this pass's.
Extraction share_candidates(const ExtractionProblem& problem, const Extraction& x,
                            std::span<const ProblemClassId> candidates, int max_passes = 3);

}  // namespace eqsat::egraph
