// Extraction from a tensor e-graph back to terms, with the CPU backend's
// cost model: every e-node costs what the executor would spend on it
// (`backend::CostModel::op_cost` over its operand and result types), and a
// DAG-aware extractor (greedy-dag by default) picks the cheapest term for
// each root, paying once for a shared value.
//
// Loops: an e-node inside a scan body costs its op cost times the scan's
// trip count (`CostModel::trip_count`, exact with :keep; nested scans multiply), so work is
// cheaper outside a loop than inside. `grad` (infinite cost for the
// executor) costs kGradCost so that a graph whose gradients were not
// expanded still extracts.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "backend/cost_model.hpp"
#include "egraph/extract/extractor.hpp"
#include "egraph/extract/from_egraph.hpp"

#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace eqsat::rules {

inline constexpr double kGradCost = 1e18;
// Added to an e-node a stabilizing rewrite replaced (TensorEGraph::
// unstable): more than any real graph costs, so no sharing makes it win
// over the stable form in its class (docs/architecture.md decision 11).
inline constexpr double kUnstableCost = 1e12;
// Binding one operand of a scan or call to its body's parameter, in ns: so
// that of two loops computing the same, the one with fewer inputs wins.
inline constexpr double kSlotCost = 1.0;

struct ExtractedTerms {
  std::vector<ops::TermRef> roots;  // one per requested root
  double cost = 0;                  // of the DAG they form, each e-node once
};

// E-nodes that extraction must leave out of their class whenever the class
// can do without them (`ExtractionProblem::forbid`): e.g. the forms that a
// stabilizing rewrite replaced (docs/architecture.md decision 11), whatever sharing
// would save. Asked once per visible e-node of the clean e-graph.
using ForbiddenENode = std::function<bool(const TensorEGraph&, egraph::ENodeId)>;

// True when e-node `n` reads a parameter its class does not depend on, or
// a graph input where its class has a form reading none: a class holds
// every form of a value, and when a form reading no parameter (or fewer)
// joins one that reads some, the class's value depends on the common ones
// only (TensorData::free_nominals), so the class may stand where the
// others are not in scope, e.g. outside the body; likewise a form free of
// graph inputs lets the class stand inside a body, where inputs are not in
// scope. Extraction takes such a node only where its class has no other
// (as a forbidden node): then every extracted term reads only what is in
// scope where it stands.
bool reads_out_of_scope(const TensorEGraph& g, egraph::ENodeId n);

// The cost of each e-node of the clean e-graph as extract_terms counts it
// (op cost times the run count of its class from `roots`, plus
// kUnstableCost for a replaced form); `g` and `model` must outlive it.
egraph::ENodeCost extraction_cost(const TensorEGraph& g, std::span<const egraph::EClassId> roots,
                                  const backend::CostModel& model);

// The extraction every picture and program of eqsat uses: `kind`, then
// each loop (and each loop output) given the chance to serve all its
// readers at once (egraph/extract/shared_choice.hpp).
egraph::Extraction extract_choice(const TensorEGraph& g, const egraph::EGraphProblem& problem,
                                  egraph::ExtractorKind kind);

// The cheapest terms for `roots` (a clean e-graph), never using a forbidden
// e-node (when given) in a class that has another way to be built. Throws
// egraph::ExtractionError if a root has no acyclic term.
ExtractedTerms extract_terms(const TensorEGraph& g, std::span<const egraph::EClassId> roots,
                             const backend::CostModel& model,
                             egraph::ExtractorKind kind = egraph::ExtractorKind::GreedyDag,
                             const ForbiddenENode& forbidden = {});

// Up to `count` distinct term DAGs for `roots`, the greedy-dag extraction
// first, then the cheapest alternatives egraph::extract_alternatives finds
// in non-decreasing cost (`eqsat explore`).
std::vector<ExtractedTerms> extract_alternative_terms(const TensorEGraph& g,
                                                      std::span<const egraph::EClassId> roots,
                                                      const backend::CostModel& model,
                                                      std::size_t count,
                                                      const ForbiddenENode& forbidden = {});

// The cost of the DAG of terms under `roots` as the extractor counts it
// (scan bodies times their trip counts).
double dag_cost(std::span<const ops::TermRef> roots, const backend::CostModel& model);

// How many terms of the DAG under `roots` (terms added to `g`) a
// stabilizing rewrite replaced: each costs kUnstableCost more, so that
// optimize, explore and html rank graphs alike (docs/architecture.md
// decision 11).
std::size_t count_unstable(TensorEGraph& g, std::span<const ops::TermRef> roots);

// The cost of one application, as the extractor counts it; for a scan, its
// layout and trip count when known beyond its types (`CostModel::trip_count`).
double node_cost(ops::OpKind kind, std::span<const ops::Type> operand_types,
                 const ops::Type& result, const backend::CostModel& model,
                 std::optional<std::int64_t> trips = std::nullopt,
                 const ops::ScanSpec* spec = nullptr);

}  // namespace eqsat::rules
