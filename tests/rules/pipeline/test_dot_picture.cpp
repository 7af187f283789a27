// `eqsat dot`'s picture of a graph: every term, operand and body drawn
// once, and no recursion on a deep chain.
#include "rules/pipeline/dot_picture.hpp"

#include "rules/pipeline/egraph_picture.hpp"

#include "ops/graph_parser.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <unordered_set>

using namespace eqsat;

namespace {

// Every distinct term under the outputs and defs, each once.
std::vector<ops::TermRef> terms_of(const ops::Graph& g) {
  std::vector<ops::TermRef> all;
  std::unordered_set<ops::TermRef> seen;
  std::vector<ops::TermRef> stack;
  for (const auto& o : g.outputs) stack.push_back(o.term);
  for (const auto& d : g.defs) stack.push_back(d.term);
  while (!stack.empty()) {
    const ops::TermRef t = stack.back();
    stack.pop_back();
    if (!seen.insert(t).second) continue;
    all.push_back(t);
    for (ops::TermRef o : t->operands()) stack.push_back(o);
  }
  return all;
}

std::size_t count(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The picture has one node per distinct term, one edge per operand (body
// edges dashed) and per output, and one cluster per body.
void check_picture(const ops::Graph& g) {
  const std::string text = rules::graph_dot(g);
  const auto terms = terms_of(g);
  std::size_t operands = 0, bodies = 0, body_edges = 0;
  for (ops::TermRef t : terms) {
    operands += t->arity();
    bodies += t->kind() == ops::OpKind::Fn;
    body_edges += (t->kind() == ops::OpKind::Scan || t->kind() == ops::OpKind::Call) ? 1 : 0;
  }
  CHECK(count(text, "[label=") == terms.size());
  CHECK(count(text, "[shape=box") == g.outputs.size());
  CHECK(count(text, " -> ") == operands + g.outputs.size());
  CHECK(count(text, "[style=dashed]") == body_edges);
  CHECK(count(text, "subgraph cluster_body") == bodies);
}

}  // namespace

TEST_CASE("graph_dot draws every term, operand and body of every example once", "[dot_picture]") {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(EQSAT_SOURCE_DIR "/examples"))
    if (e.path().extension() == ".eg") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 8);
  for (const auto& f : files) {
    INFO(f);
    check_picture(ops::parse_graph_file(f.string()));
  }
}

TEST_CASE("graph_dot draws shared and repeated operands once per use", "[dot_picture]") {
  // Repeated operands (mul a a), a term shared by two outputs and a def,
  // a scan body reading a term seen before it, a call of a def.
  const ops::Graph g = ops::parse_graph(R"(
    (input x (f64 3))
    (input s (f64))
    (def twice (fn ((v (f64 3))) (add v v)) :inline false)
    (let a (exp x))
    (let b (mul a a))
    (output first (add b (call twice a)))
    (output second b)
    (output third (get 0 (scan :n-steps 4 :sit-sot (s)
                            (fn (acc) (add acc (mul acc acc)))))))",
                                        "t.eg", ".");
  check_picture(g);
}

TEST_CASE("graph_dot draws a chain 100000 terms deep without recursion", "[dot_picture]") {
  constexpr int n = 100000;
  const ops::TensorType scalar{ops::DType::F64, {}};
  ops::TermRef t = ops::Term::input("x", scalar);
  for (int i = 0; i < n; ++i) t = ops::Term::make(ops::OpKind::Neg, {}, {t});
  ops::Graph g;
  g.outputs.push_back({"y", t});
  const std::string text = rules::graph_dot(g);
  // Ids in pre-order: the output is t0, the input t{n}; the innermost
  // edge comes first.
  CHECK(text.find(fmt::format("t{} [label=\"input", n)) != std::string::npos);
  CHECK(std::count(text.begin(), text.end(), '\n') == 2 + (n + 1) + (n + 2) + 1);
  const auto innermost = text.find(fmt::format("\n  t{} -> t{};\n", n, n - 1));
  REQUIRE(innermost != std::string::npos);
  CHECK(innermost < text.find("\n  t1 -> t0;\n"));
  CHECK(text.find("t0 -> out_y;") != std::string::npos);
}
