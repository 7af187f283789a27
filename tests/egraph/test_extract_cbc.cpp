// Tests of running CBC on the ILP extractor's program: the warm start given
// to CBC is its first incumbent (so CBC without time still answers with it),
// and an answer from the child process comes back through the pipe.
#include "egraph/extract/cbc.hpp"

#include "egraph/extract/greedy_dag.hpp"
#include "extraction_testing.hpp"

#include <catch2/catch.hpp>

using namespace eqsat::egraph;
namespace t = eqsat::egraph::testing;

namespace {

// The total cost of the nodes CBC picked; each picked column must be a node's.
double picked_cost(const ExtractionProblem& p, const ilp::Program& program,
                   const ilp::CbcResult& result) {
  double cost = 0.0;
  for (std::int32_t column : result.node_columns) {
    REQUIRE(column >= 0);
    REQUIRE(static_cast<std::size_t>(column) < program.column_node.size());
    const std::int32_t node = program.column_node[column];
    REQUIRE(node >= 0);
    cost += p.node(ProblemNodeId{static_cast<std::uint32_t>(node)}).cost;
  }
  return cost;
}

// The pruned program of a problem, and greedy-dag's solution as its start.
struct Setup {
  ExtractionProblem problem;
  Extraction greedy;
  ilp::Pruned pruned;
  ilp::Program program;
  std::vector<int> start;

  explicit Setup(ExtractionProblem p) : problem(std::move(p)), greedy(extract_greedy_dag(problem)) {
    IlpStats stats;
    pruned = ilp::prune(problem);
    program = ilp::build_program(problem, pruned, stats);
    start = ilp::warm_start_columns(greedy, pruned, program);
  }
};

}  // namespace

// Without a start CBC (2.10) finds no solution of this program in no time; with
// greedy-dag's it answers at least as well, unproven.
TEST_CASE("cbc with no time answers with its warm start", "[extract_cbc]") {
  const Setup s(t::large_problem(7, 300));
  REQUIRE_FALSE(s.start.empty());
  const ilp::CbcResult result = ilp::run_cbc(s.program, s.start, 0.0);
  REQUIRE(result.found);
  CHECK_FALSE(result.proven);
  CHECK(picked_cost(s.problem, s.program, result) <= s.greedy.dag_cost);
}

// Small problems CBC proves at once: the child's answer, decoded from the
// pipe, is the brute-force optimum.
TEST_CASE("cbc's answer from the child process comes back whole", "[extract_cbc]") {
  int checked = 0;
  for (std::uint32_t seed = 0; seed < 40; ++seed) {
    INFO("seed " << seed);
    ExtractionProblem p = t::random_problem(seed, 7);
    const auto best = t::brute_force(p);
    if (!best) continue;
    const Setup s(std::move(p));
    const ilp::CbcResult result = ilp::run_cbc_with_deadline(s.program, s.start, 30.0);
    REQUIRE(result.found);
    CHECK(result.proven);
    CHECK(picked_cost(s.problem, s.program, result) == best->dag_cost);
    ++checked;
  }
  CHECK(checked > 20);
}
