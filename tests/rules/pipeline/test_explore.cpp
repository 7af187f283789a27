// Tests of explore: the alternatives of a graph are distinct, in
// non-decreasing cost, equivalent to the input, and the cheapest costs
// what optimize reports.
#include "rules/pipeline/explore.hpp"

#include "ops/graph_printer.hpp"
#include "rules/pipeline/optimize.hpp"
#include "rules/tensor/extract_graph.hpp"
#include "tests/rules/loop_testing.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using namespace eqsat::testing;

namespace {

void check_alternatives(const ops::Graph& g, const std::vector<rules::Alternative>& found) {
  for (std::size_t i = 0; i < found.size(); ++i) {
    INFO("rank " << i + 1 << "\n" << ops::print_graph(found[i].graph));
    if (i > 0) CHECK(found[i - 1].cost <= found[i].cost);
    for (std::size_t j = 0; j < i; ++j) CHECK_FALSE(found[j].graph == found[i].graph);
    check_same_values(g, found[i].graph);
  }
}

}  // namespace

TEST_CASE("the parenthesizations of a matrix chain, cheapest first") {
  const ops::Graph g = graph(R"(
    (input a (f64 20 15)) (input b (f64 15 30)) (input c (f64 30 2)) (input d (f64 2 1))
    (output (dot (dot (dot a b) c) d)))");
  const rules::RuleProgram rules = rules::load_default_rules();
  rules::OptimizeReport report;
  const ops::Graph best = rules::optimize(g, rules, &report);
  const auto found = rules::explore(g, rules, 10);
  // Five ways to parenthesize four factors; the written one among them.
  REQUIRE(found.size() == 5);
  check_alternatives(g, found);
  CHECK(found[0].graph == best);
  CHECK(found[0].cost == Approx(report.cost_after));
  CHECK(std::ranges::count_if(found, [&](const auto& a) { return a.graph == g; }) == 1);
}

TEST_CASE("a loop and its vectorized form are both listed") {
  const ops::Graph g = graph(R"(
    (input xs (f64 50 4))
    (output (get 0 (scan :sequences (xs) :nit-sot 1 (fn (x) (exp (mul x 2.0)))))))");
  const auto found = rules::explore(g, rules::load_default_rules(), 3);
  REQUIRE(found.size() >= 2);
  check_alternatives(g, found);
  const auto has_scan = [](const ops::Graph& x) {
    return x.outputs[0].term->kind() == ops::OpKind::Get;
  };
  CHECK_FALSE(has_scan(found[0].graph));
  CHECK(std::ranges::any_of(found, [&](const auto& a) { return has_scan(a.graph); }));
}

TEST_CASE("asking for one graph gives the optimized one") {
  const ops::Graph g = graph(R"((input x (f64 8)) (output (add (mul x 1.0) 0.0)))");
  const auto found = rules::explore(g, rules::load_default_rules(), 1);
  REQUIRE(found.size() == 1);
  CHECK(found[0].graph == rules::optimize(g, rules::load_default_rules()));
}

TEST_CASE("a stable form ranks first even where the unstable one shares work") {
  // exp x is shared by both outputs: written as is, the graph computes it
  // once; logsumexp computes it again, cheaper only by stability
  // (docs/architecture.md decision 11).
  const ops::Graph g = graph(R"(
    (input x (f64 4 5))
    (let e (exp x))
    (output (log (sum e :axis 1)))
    (output (sum e)))");
  const rules::RuleProgram rules = rules::load_default_rules();
  rules::OptimizeReport report;
  const ops::Graph best = rules::optimize(g, rules, &report);
  const auto found = rules::explore(g, rules, 10);
  REQUIRE(found.size() >= 2);
  check_alternatives(g, found);
  CHECK(found[0].graph == best);
  CHECK(found[0].cost == Approx(report.cost_after));
  CHECK(best.outputs[0].term->kind() == ops::OpKind::Logsumexp);
  // Graphs keeping the unstable log(Σ eˣ), the written one among them,
  // rank after every stable one, with the penalty optimize counts.
  const auto unstable = [](const rules::Alternative& a) {
    return a.graph.outputs[0].term->kind() == ops::OpKind::Log;
  };
  const auto first_unstable = std::ranges::find_if(found, unstable);
  CHECK(std::all_of(first_unstable, found.end(), unstable));
  for (auto it = first_unstable; it != found.end(); ++it) CHECK(it->cost >= rules::kUnstableCost);
  const auto all = rules::explore(g, rules, 3);
  REQUIRE_FALSE(all.empty());
  CHECK_FALSE(unstable(all[0]));
}
