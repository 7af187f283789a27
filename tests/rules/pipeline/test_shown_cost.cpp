// Costs as users see them (rules/pipeline/shown_cost.cpp): the extractor's
// penalties taken out and named, on costs built from them and on the
// reports of real optimizations.
#include "rules/pipeline/shown_cost.hpp"

#include "rules/pipeline/optimize.hpp"
#include "rules/tensor/extract_graph.hpp"
#include "tests/rules/loop_testing.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using namespace eqsat::testing;

TEST_CASE("shown_cost splits a cost into its estimate and its penalties") {
  for (const double ns : {0.0, 1.5, 1145.0, 3.25e8}) {
    for (const std::size_t unstable : {0, 1, 3}) {
      const rules::ShownCost c =
          rules::shown_cost(ns + static_cast<double>(unstable) * rules::kUnstableCost);
      REQUIRE(c.ns.has_value());
      CHECK(*c.ns == Approx(ns).margin(1e-3));
      CHECK(c.unstable == unstable);
    }
  }
  CHECK_FALSE(rules::shown_cost(rules::kGradCost).ns.has_value());
  CHECK_FALSE(rules::shown_cost(2 * rules::kGradCost + 17).ns.has_value());
  CHECK(rules::describe(rules::shown_cost(1145)) == "1145.0");
  CHECK(rules::describe(rules::shown_cost(1656 + rules::kUnstableCost)) ==
        "1656.0 (+1 unstable form, never preferred)");
  CHECK(rules::describe(rules::shown_cost(rules::kGradCost)) ==
        "not estimated (an unexpanded grad)");
}

TEST_CASE("the report's costs carry no penalty") {
  const ops::Graph g = graph("(input x (f64 4 3))\n(output (log (sum (exp x) :axis (1))))");
  rules::OptimizeReport r;
  rules::optimize(g, rules::load_default_rules(), &r);
  const nlohmann::json j = r.to_json();
  CHECK(j["unstable_before"] == 1);
  CHECK(j["cost_before"].get<double>() < 1e9);
  CHECK(j["cost_before"].get<double>() == Approx(r.cost_before - rules::kUnstableCost));
  CHECK(j["cost_after"].get<double>() == Approx(r.cost_after));

  const ops::Graph with_grad = graph("(input x (f64 3))\n(output (grad (sum (exp x)) x))");
  rules::optimize(with_grad, rules::load_default_rules(), &r);
  const nlohmann::json k = r.to_json();
  CHECK(k["cost_before"].is_null());
  CHECK(k["cost_after"].is_number());
}
