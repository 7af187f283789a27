// OptimizeOptions' command-line hooks (issue 13): limit overrides win over
// the schedule's, progress is reported once per iteration of each step, and
// the saturated e-graph handed to `saturated` exports to egraph-serialize
// JSON whose extraction costs what extract_terms finds.
#include "rules/tensor/extract_graph.hpp"
#include "rules/pipeline/optimize.hpp"
#include "rules/lang/rule_parser.hpp"

#include "egraph/extract/from_egraph.hpp"
#include "egraph/serialize.hpp"
#include "ops/graph_parser.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace eqsat;
using namespace eqsat::rules;

namespace {

RuleProgram exploding() {
  const RuleSource s{"explode.rules", R"(
    (rewrite comm (add ?x ?y) (add ?y ?x))
    (birewrite assoc (add (add ?x ?y) ?z) (add ?x (add ?y ?z)))
    (schedule (run default :iter 2) (saturate default :iter 1000 :nodes 100000000 :time 600)))"};
  return parse_rules(std::span(&s, 1));
}

ops::Graph long_sum(int n) {
  std::string text, sum = "x0";
  for (int i = 0; i < n; ++i) text += " (input x" + std::to_string(i) + " (i64 4))";
  for (int i = 1; i < n; ++i) sum = "(add " + sum + " x" + std::to_string(i) + ")";
  return ops::parse_graph(text + " (output " + sum + ")", "sum.eg", ".");
}

}  // namespace

TEST_CASE("command-line limits override the schedule's") {
  const ops::Graph g = long_sum(9);
  OptimizeOptions options;
  OptimizeReport r;
  SECTION("iterations: only saturate steps") {
    options.iter_limit = 3;
    optimize(g, exploding(), &r, options);
    REQUIRE(r.phases.size() == 2);
    CHECK(r.phases[0].iterations == 2);
    CHECK(r.phases[1].iterations == 3);
    CHECK(r.phases[1].stop_reason == egraph::StopReason::IterationLimit);
  }
  SECTION("nodes") {
    options.node_limit = 500;
    optimize(g, exploding(), &r, options);
    REQUIRE(r.phases.size() == 2);
    CHECK(r.phases[1].stop_reason == egraph::StopReason::NodeLimit);
    CHECK(r.enodes < 600);
  }
  SECTION("time") {
    options.time_limit = 0.05;
    optimize(long_sum(14), exploding(), &r, options);
    REQUIRE(r.phases.size() == 2);
    CHECK(r.phases[1].stop_reason == egraph::StopReason::TimeLimit);
  }
}

TEST_CASE("progress is reported once per iteration of each step") {
  OptimizeOptions options;
  options.iter_limit = 4;
  std::vector<OptimizeProgress> seen;
  std::vector<std::string> kinds;
  options.progress = [&](const OptimizeProgress& p) {
    seen.push_back(p);
    kinds.emplace_back(p.kind);
  };
  OptimizeReport r;
  optimize(long_sum(7), exploding(), &r, options);
  REQUIRE(seen.size() == r.iterations);
  std::size_t k = 0;
  for (std::size_t s = 0; s < r.phases.size(); ++s)
    for (std::size_t i = 1; i <= r.phases[s].iterations; ++i, ++k) {
      CHECK(seen[k].step == s);
      CHECK(seen[k].iteration == i);
      CHECK(kinds[k] == r.phases[s].step);
      CHECK(seen[k].enodes > 0);
      if (k > 0) CHECK(seen[k].seconds >= seen[k - 1].seconds);
    }
  CHECK(seen.back().enodes == r.enodes);
}

TEST_CASE("the saturated e-graph exports to egraph-serialize JSON that extracts alike") {
  OptimizeOptions options;
  options.iter_limit = 3;
  double exported_cost = -1, direct_cost = -2;
  std::size_t classes = 0;
  options.saturated = [&](const TensorEGraph& g, std::span<const egraph::EClassId> roots) {
    const backend::CostModel model(options.weights);
    const auto data = egraph::to_serialized(g.egraph(), roots, extraction_cost(g, roots, model));
    const std::string text = egraph::to_serialized_json(data).dump();
    const egraph::SerializedEGraph back = egraph::parse_serialized_egraph(text, "export.json");
    classes = back.problem.num_classes();
    CHECK(classes == g.egraph().num_classes());
    exported_cost = egraph::extract(back.problem, egraph::ExtractorKind::GreedyDag).dag_cost;
    direct_cost = extract_terms(g, roots, model).cost;
  };
  optimize(long_sum(6), exploding(), nullptr, options);
  CHECK(classes > 0);
  CHECK(exported_cost == Approx(direct_cost));
}
