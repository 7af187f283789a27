// Tests of egraph-serialize JSON: import of a hand-written file, export ->
// import round trips, and one error per kind of bad file.
#include "egraph/serialize.hpp"

#include "egraph/extract/ilp.hpp"
#include "extraction_testing.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <set>

using namespace eqsat::egraph;

namespace {

// A small e-graph as egglog writes it: a child names a node and stands for
// its class; "cost" and "children" may be missing; a subsumed node.
constexpr const char* kSmall = R"({
  "nodes": {
    "mul-0": {"op": "*", "children": ["x-0", "two-0"], "eclass": "e", "cost": 4},
    "x-0": {"op": "x", "eclass": "x", "cost": 1.0},
    "two-0": {"op": "2", "children": [], "eclass": "two", "cost": 1.5},
    "shl-0": {"op": "<<", "children": ["x-0", "one-0"], "eclass": "e", "cost": 1},
    "one-0": {"op": "1", "children": [], "eclass": "one"},
    "mul-1": {"op": "*", "children": ["mul-0", "one-0"], "eclass": "e", "cost": 0, "subsumed": true}
  },
  "root_eclasses": ["e"],
  "class_data": {"e": {"type": "Math"}, "nowhere": {"type": "Math"}}
})";

// The problem as names: class id -> sorted list of (op, cost, child classes, subsumed).
using NodeShape = std::tuple<std::string, double, std::vector<std::string>, bool>;
std::map<std::string, std::multiset<NodeShape>> shape(const SerializedEGraph& g) {
  std::map<std::string, std::multiset<NodeShape>> classes;
  for (std::size_t c = 0; c < g.problem.num_classes(); ++c) classes[g.class_ids[c]];
  for (std::uint32_t n = 0; n < g.problem.num_nodes(); ++n) {
    const ProblemNode& node = g.problem.node(ProblemNodeId{n});
    std::vector<std::string> children;
    for (ProblemClassId child : node.children) children.push_back(g.class_ids[child.value]);
    classes[g.class_ids[node.eclass.value]].emplace(g.ops[n], node.cost, children, node.subsumed);
  }
  return classes;
}

std::set<std::string> root_names(const SerializedEGraph& g) {
  std::set<std::string> roots;
  for (ProblemClassId root : g.problem.roots()) roots.insert(g.class_ids[root.value]);
  return roots;
}

std::string error_of(const std::string& text) {
  try {
    parse_serialized_egraph(text, "bad.json");
  } catch (const SerializeError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a hand-written egraph-serialize file imports as written", "[serialize]") {
  const SerializedEGraph g = parse_serialized_egraph(kSmall, "small.json");
  REQUIRE(g.problem.num_classes() == 4);
  CHECK(g.class_ids == std::vector<std::string>{"e", "x", "two", "one"});  // first appearance
  CHECK(g.node_ids == std::vector<std::string>{"mul-0", "x-0", "two-0", "shl-0", "one-0", "mul-1"});
  const ProblemNode& mul = g.problem.node(ProblemNodeId{0});
  CHECK(mul.eclass == ProblemClassId{0});
  CHECK(mul.cost == 4.0);
  CHECK(mul.children == std::vector<ProblemClassId>{ProblemClassId{1}, ProblemClassId{2}});
  CHECK(g.problem.node(ProblemNodeId{4}).cost == 1.0);  // the default
  CHECK(g.problem.node(ProblemNodeId{5}).subsumed);
  CHECK(g.problem.node(ProblemNodeId{5}).children ==
        std::vector<ProblemClassId>{ProblemClassId{0}, ProblemClassId{3}});
  CHECK(g.problem.roots() == std::vector<ProblemClassId>{ProblemClassId{0}});
  CHECK_FALSE(g.roots_inferred);
  CHECK(g.class_data.size() == 1);  // "nowhere" names no class
  CHECK(g.class_data["e"]["type"] == "Math");

  // The subsumed node costs 0 but may not be used: shl(x, 1) wins.
  const Extraction e = extract_ilp(g.problem);
  CHECK(e.dag_cost == 3.0);
  const auto choices = choices_json(g, e);
  CHECK(choices.dump() == R"({"e":"shl-0","x":"x-0","one":"one-0"})");
}

TEST_CASE("roots default to the classes no other class uses", "[serialize]") {
  const std::string text = R"({"nodes": {
    "a": {"op": "a", "eclass": "A", "children": ["b"]},
    "b": {"op": "b", "eclass": "B", "children": ["b"]},
    "b2": {"op": "b", "eclass": "B"},
    "c": {"op": "c", "eclass": "C", "children": ["b2"]}},
    "root_eclasses": ["missing"]})";
  const SerializedEGraph g = parse_serialized_egraph(text, "roots.json");
  CHECK(g.roots_inferred);
  CHECK(g.unknown_roots == std::vector<std::string>{"missing"});
  CHECK(root_names(g) == std::set<std::string>{"A", "C"});  // B only uses itself otherwise
}

TEST_CASE("export then import gives an isomorphic problem (random problems)", "[serialize]") {
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    INFO("seed " << seed);
    ExtractionProblem p = eqsat::egraph::testing::random_problem(seed, 8);
    // Classes without nodes cannot be children in egraph-serialize: give each one.
    for (std::uint32_t c = 0; c < p.num_classes(); ++c) {
      if (p.nodes_of(ProblemClassId{c}).empty()) p.add_node(ProblemClassId{c}, 1.0, {});
    }
    const SerializedEGraph original = with_default_names(std::move(p));
    const std::string text = to_serialized_json(original).dump();
    const SerializedEGraph back = parse_serialized_egraph(text, "round.json");
    CHECK(shape(back) == shape(original));
    CHECK(root_names(back) == root_names(original));
    // A second round is textually identical: the format is a fixpoint.
    CHECK(to_serialized_json(back).dump() == text);
  }
}

TEST_CASE("the hand-written file round-trips with its class data and subsumed node",
          "[serialize]") {
  const SerializedEGraph g = parse_serialized_egraph(kSmall, "small.json");
  const SerializedEGraph back =
      parse_serialized_egraph(to_serialized_json(g).dump(2), "round.json");
  CHECK(shape(back) == shape(g));
  CHECK(root_names(back) == root_names(g));
  CHECK(back.class_data == g.class_data);
  CHECK(back.node_ids == g.node_ids);
}

TEST_CASE("bad files give one clear error each", "[serialize]") {
  CHECK(error_of(R"({"nodes": {"a": {"op": "a", "eclass": "A",}}})") ==
        "bad.json:1:43: error: malformed JSON: syntax error while parsing object key - "
        "unexpected '}'; expected string literal");
  CHECK(error_of("[1]") == "bad.json: error: the top level is not a JSON object");
  CHECK(error_of("{}") == "bad.json: error: missing field \"nodes\"");
  CHECK(error_of(R"({"nodes": {"a": {"op": "a", "eclass": "A", "children": ["zz"]}}})") ==
        "bad.json: error: node \"a\": child \"zz\" names no node");
  CHECK(error_of(R"({"nodes": {"a": {"op": "a", "eclass": "A", "cost": -2}}})") ==
        "bad.json: error: node \"a\": cost -2 is negative (negative costs must be allowed "
        "explicitly)");
  CHECK(error_of(R"({"nodes": {"a": {"op": "a", "eclass": "A", "cost": 1e999}}})") ==
        "bad.json:1:56: error: malformed JSON: number overflow parsing '1e999'");
  CHECK(error_of(
            R"({"nodes": {"a": {"op": "a", "eclass": "A"}, "a": {"op": "b", "eclass": "A"}}})") ==
        "bad.json: error: node \"a\" is defined twice");
  CHECK(error_of(R"({"nodes": {"a": {"op": "a", "eclass": "A", "cost": "1"}}})") ==
        "bad.json: error: node \"a\": \"cost\" is not a number");
  CHECK(error_of(R"({"nodes": {"a": {"op": "a"}}})") ==
        "bad.json: error: node \"a\": missing field \"eclass\"");
  CHECK(error_of(R"({"nodes": {"a": {"eclass": "A"}}})") ==
        "bad.json: error: node \"a\": missing field \"op\"");
  CHECK(error_of(R"({"nodes": {"a": {"op": "a", "eclass": 3}}})") ==
        "bad.json: error: node \"a\": \"eclass\" is not a string");
  CHECK(error_of(R"({"nodes": {}, "root_eclasses": "A"})") ==
        "bad.json: error: \"root_eclasses\" is not an array");
  CHECK_THROWS_AS(parse_serialized_egraph(
                      R"({"nodes": {"a": {"op": "a", "eclass": "A", "cost": -2}}})", "bad.json"),
                  NegativeCostError);
  CHECK(parse_serialized_egraph(R"({"nodes": {"a": {"op": "a", "eclass": "A", "cost": -2}}})",
                                "ok.json", ReadOptions{.allow_negative_costs = true})
            .problem.has_negative_costs());
  CHECK_THROWS_WITH(read_serialized_egraph("/nonexistent/file.json"),
                    "/nonexistent/file.json: error: cannot open the file");
}
