// `eqsat dot`'s picture of a graph: the same text as a recursive walk
// would write, and no recursion on a deep chain.
#include "rules/dot_picture.hpp"

#include "rules/egraph_picture.hpp"

#include "ops/graph_parser.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <unordered_map>

using namespace eqsat;

namespace {

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// The reference: graph_dot written as a recursive walk (clusters as a tree
// of nodes, each body inside the cluster that first reaches it).
struct Cluster {
  std::string label;
  std::vector<std::string> lines;
  std::vector<std::size_t> children;
};

void write(const std::vector<Cluster>& all, std::size_t k, std::string& out, int depth) {
  const std::string pad(static_cast<std::size_t>(2 * depth), ' ');
  if (k != 0)
    out += fmt::format("{}subgraph cluster_body{} {{\n{}  label=\"{}\"; style=dashed;\n", pad, k,
                       pad, escape(all[k].label));
  for (const auto& l : all[k].lines) out += pad + "  " + l + "\n";
  for (std::size_t c : all[k].children) write(all, c, out, depth + 1);
  if (k != 0) out += pad + "}\n";
}

std::string recursive_graph_dot(const ops::Graph& graph) {
  std::vector<Cluster> all(1);
  std::unordered_map<ops::TermRef, std::size_t> id;
  std::vector<std::string> edges;
  std::unordered_map<ops::TermRef, std::string> def_name;
  for (const auto& d : graph.defs) def_name.emplace(d.term, d.name);
  std::function<std::size_t(ops::TermRef, std::size_t)> visit = [&](ops::TermRef t,
                                                                    std::size_t cluster) {
    if (auto it = id.find(t); it != id.end()) return it->second;
    const std::size_t me = id.size();
    id.emplace(t, me);
    std::size_t inner = cluster;
    if (t->kind() == ops::OpKind::Fn) {
      const auto named = def_name.find(t);
      all.push_back({named != def_name.end() ? "def " + named->second : "body", {}, {}});
      inner = all.size() - 1;
      all[cluster].children.push_back(inner);
    }
    const std::string type = t->is_tuple() ? "tuple" : ops::to_string(t->type());
    all[inner].lines.push_back(fmt::format("t{} [label=\"{}\\n{}\"];", me,
                                           escape(rules::op_label(t->kind(), t->attrs())),
                                           escape(type)));
    for (std::size_t i = 0; i < t->arity(); ++i) {
      const bool body =
          (t->kind() == ops::OpKind::Scan || t->kind() == ops::OpKind::Call) && i == 0;
      const std::size_t k = visit(t->operand(i), inner);
      edges.push_back(fmt::format("t{} -> t{}{};", k, me, body ? " [style=dashed]" : ""));
    }
    return me;
  };
  for (const auto& o : graph.outputs) {
    const std::size_t k = visit(o.term, 0);
    edges.push_back(
        fmt::format("out_{} [shape=box, label=\"output {}\"];", escape(o.name), escape(o.name)));
    edges.push_back(fmt::format("t{} -> out_{};", k, escape(o.name)));
  }
  for (const auto& d : graph.defs) visit(d.term, 0);
  std::string out = "digraph graph_terms {\n  node [shape=ellipse, fontsize=10];\n";
  write(all, 0, out, 0);
  for (const auto& e : edges) out += "  " + e + "\n";
  return out + "}\n";
}

}  // namespace

TEST_CASE("graph_dot writes what a recursive walk writes for every example", "[dot_picture]") {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(EQSAT_SOURCE_DIR "/examples"))
    if (e.path().extension() == ".eg") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 8);
  for (const auto& f : files) {
    INFO(f);
    const ops::Graph g = ops::parse_graph_file(f.string());
    CHECK(rules::graph_dot(g) == recursive_graph_dot(g));
  }
}

TEST_CASE("graph_dot keeps shared and repeated operands in a recursive walk's order",
          "[dot_picture]") {
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
  const std::string text = rules::graph_dot(g);
  CHECK(text == recursive_graph_dot(g));
  CHECK(text.find("cluster_body") != std::string::npos);
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
