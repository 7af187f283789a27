// The data of `eqsat html`'s page is bounded: past the budget of e-nodes it
// keeps every class the extracted graph needs, then others in id order,
// and says how much it left out.
#include "tools/html_data.hpp"

#include "backend/cost_model.hpp"
#include "ops/graph_parser.hpp"
#include "rules/pipeline/egraph_picture.hpp"
#include "rules/pipeline/optimize.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace eqsat;

namespace {

// The page's "egraph" part of the saturated e-graph of `text`, within
// `max_nodes` e-nodes.
nlohmann::json egraph_part(const std::string& text, std::size_t max_nodes) {
  const ops::Graph graph = ops::parse_graph(text, "t.eg", ".");
  rules::OptimizeOptions options;
  nlohmann::json out;
  options.saturated = [&](const rules::TensorEGraph& g, std::span<const egraph::EClassId> roots) {
    const auto picture = rules::egraph_picture(g, roots, backend::CostModel(options.weights));
    out = tools::egraph_json(g, picture, graph, max_nodes);
  };
  rules::optimize(graph, rules::load_default_rules(), nullptr, options);
  return out;
}

std::size_t count_nodes(const nlohmann::json& part) {
  std::size_t n = 0;
  for (const auto& c : part["classes"]) n += c["nodes"].size();
  return n;
}

}  // namespace

TEST_CASE("the page's e-graph data keeps to its budget - the extracted classes always") {
  const std::string text =
      "(input x (f64 4)) (input y (f64 4))\n"
      "(output (add (mul (add x y) (add y x)) (log (exp (mul x 1)))))\n";
  const nlohmann::json whole = egraph_part(text, 1'000'000);
  CHECK_FALSE(whole.contains("shown"));
  const std::size_t all = count_nodes(whole);
  REQUIRE(all > 6);
  const nlohmann::json part = egraph_part(text, 3);
  REQUIRE(part.contains("shown"));
  CHECK(part["shown"]["of_nodes"] == all);
  CHECK(part["shown"]["nodes"] == count_nodes(part));
  CHECK(part["shown"]["classes"] == part["classes"].size());
  CHECK(count_nodes(part) < all);
  // Every class the drawing follows from the roots through chosen e-nodes
  // is there, with its chosen e-node.
  std::set<std::uint64_t> ids;
  for (const auto& c : part["classes"]) ids.insert(c["id"].get<std::uint64_t>());
  std::vector<std::uint64_t> stack;
  for (const auto& r : part["roots"]) stack.push_back(r["class"].get<std::uint64_t>());
  while (!stack.empty()) {
    const std::uint64_t id = stack.back();
    stack.pop_back();
    REQUIRE(ids.contains(id));
    for (const auto& c : part["classes"])
      if (c["id"] == id) {
        REQUIRE_FALSE(c["chosen"].is_null());
        for (const auto& k : c["nodes"][c["chosen"].get<std::size_t>()]["children"])
          stack.push_back(k.get<std::uint64_t>());
      }
  }
}
