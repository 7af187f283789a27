#include "egraph/extract/ilp.hpp"

#include "egraph/extract/bottom_up.hpp"
#include "egraph/extract/cbc.hpp"
#include "egraph/extract/greedy_dag.hpp"
#include "egraph/extract/ilp_model.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

namespace eqsat::egraph {

namespace {

using Clock = std::chrono::steady_clock;
using ilp::CbcResult;
using ilp::Program;
using ilp::Pruned;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The incumbent as per-class choices.
std::vector<std::optional<ProblemNodeId>> choices_of(const ExtractionProblem& problem,
                                                     const Program& program,
                                                     const CbcResult& result) {
  std::vector<std::optional<ProblemNodeId>> choices(problem.num_classes());
  for (std::int32_t column : result.node_columns) {
    if (column < 0 || static_cast<std::size_t>(column) >= program.column_node.size()) continue;
    const std::int32_t n = program.column_node[column];
    if (n >= 0) {
      const ProblemNodeId node{static_cast<std::uint32_t>(n)};
      choices[problem.node(node).eclass.value] = node;
    }
  }
  return choices;
}

}  // namespace

Extraction extract_ilp(const ExtractionProblem& problem, const IlpOptions& options,
                       IlpStats* stats_out) {
  const auto start = Clock::now();
  IlpStats stats;
  Extraction best = extract_greedy_dag(problem);
  Extraction tree = extract_bottom_up(problem);
  if (tree.dag_cost < best.dag_cost) best = std::move(tree);
  best.optimal = false;
  // Reading CBC's answer back costs about one of these passes: keep that
  // much of the budget for it.
  const double reserve = seconds_since(start);

  const Pruned pruned = ilp::prune(problem);
  std::vector<double> scores(problem.num_nodes());
  for (std::uint32_t n = 0; n < problem.num_nodes(); ++n)
    scores[n] = problem.node(ProblemNodeId{n}).cost;

  const bool forced =
      std::all_of(pruned.active.begin(), pruned.active.end(),
                  [&](ProblemClassId c) { return pruned.nodes[c.value].size() == 1; });
  if (forced) {
    std::vector<std::optional<ProblemNodeId>> only(problem.num_classes());
    for (ProblemClassId c : pruned.active) only[c.value] = pruned.nodes[c.value].front();
    const auto choices = acyclic_choices(problem, only, scores);
    best = make_extraction(problem, choices, 0.0, true);
  } else {
    const Program program = ilp::build_program(problem, pruned, stats);
    const double remaining = options.time_limit_seconds - seconds_since(start) - reserve;
    stats.time_limit_reached = true;  // unless CBC proves its answer
    if (remaining > 0.0) {
      stats.solver_ran = true;
      const CbcResult result = ilp::run_cbc_with_deadline(
          program, ilp::warm_start_columns(best, pruned, program), remaining);
      const bool proven = result.proven;
      stats.time_limit_reached = !proven;
      const auto solved = choices_of(problem, program, result);
      if (result.found) {
        // CBC's solution is acyclic up to its tolerances; acyclic_choices
        // keeps it unchanged when it is, and repairs it otherwise.
        const auto choices = acyclic_choices(problem, solved, scores);
        Extraction candidate = make_extraction(problem, choices, 0.0, false);
        const bool unchanged = std::all_of(
            candidate.order.begin(), candidate.order.end(),
            [&](ProblemClassId c) { return candidate.choices[c.value] == solved[c.value]; });
        if (candidate.dag_cost <= best.dag_cost) {
          candidate.optimal = proven && unchanged;
          best = std::move(candidate);
        } else if (proven) {
          // CBC proved its own (worse) solution optimal: only tolerances
          // can make that happen, so no claim is made.
          best.optimal = false;
        }
      }
    }
  }
  if (stats.classes == 0) stats.classes = pruned.active.size();
  best.seconds = seconds_since(start);
  if (stats_out != nullptr) *stats_out = stats;
  return best;
}

}  // namespace eqsat::egraph
