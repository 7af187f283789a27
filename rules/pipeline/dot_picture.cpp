#include "rules/pipeline/dot_picture.hpp"

#include "rules/pipeline/egraph_picture.hpp"

#include "ops/post_order.hpp"

#include <fmt/format.h>

#include <unordered_map>
#include <vector>

namespace eqsat::rules {

using egraph::EClassId;
using egraph::ProblemClassId;
using egraph::ProblemNodeId;

namespace {

// A DOT string literal's content.
std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// Clusters nested as a tree; cluster 0 is the top level.
struct Clusters {
  struct Cluster {
    std::string label;
    std::vector<std::string> lines;  // nodes (and nested items) of this cluster
    std::vector<std::size_t> children;
  };
  std::vector<Cluster> all{Cluster{}};

  std::size_t open(std::size_t parent, std::string label) {
    all.push_back({std::move(label), {}, {}});
    all[parent].children.push_back(all.size() - 1);
    return all.size() - 1;
  }
  void write(std::size_t k, std::string& out, int depth) const {
    const std::string pad(static_cast<std::size_t>(2 * depth), ' ');
    if (k != 0)
      out += fmt::format("{}subgraph cluster_body{} {{\n{}  label=\"{}\"; style=dashed;\n", pad, k,
                         pad, escape(all[k].label));
    for (const auto& l : all[k].lines) out += pad + "  " + l + "\n";
    for (std::size_t c : all[k].children) write(c, out, depth + 1);
    if (k != 0) out += pad + "}\n";
  }
};

}  // namespace

// Written on the shared post-order walk (no recursion: a chain of 100,000
// terms is drawn), in the order a recursive walk from each root would write:
// a term's node when it is first reached (pre-order, so ids and clusters
// follow the first path to it), and the edge from operand i to its user
// right after operand i is finished. `open` mirrors the walk's stack: each
// open term with the index of its next operand edge still to be written.
std::string graph_dot(const ops::Graph& graph) {
  Clusters clusters;
  std::unordered_map<ops::TermRef, std::size_t> id;
  std::vector<std::string> edges;
  std::unordered_map<ops::TermRef, std::string> def_name;
  for (const auto& d : graph.defs) def_name.emplace(d.term, d.name);
  struct Open {
    ops::TermRef t;
    std::size_t inner;  // the cluster its operands are first drawn in
    std::size_t next;   // its next operand whose edge is not written yet
    bool fresh;         // first reached by this walk (not drawn by an earlier root)
  };
  std::vector<Open> open;
  auto edge_from = [&](Open& user) {
    const ops::OpKind k = user.t->kind();
    const bool body = (k == ops::OpKind::Scan || k == ops::OpKind::Call) && user.next == 0;
    edges.push_back(fmt::format("t{} -> t{}{};", id.at(user.t->operand(user.next)), id.at(user.t),
                                body ? " [style=dashed]" : ""));
    ++user.next;
  };
  auto enter = [&](ops::TermRef t) {
    std::size_t cluster = 0;
    if (!open.empty()) {
      // Operands before t that this walk had seen already: their edges come first.
      Open& user = open.back();
      while (user.t->operand(user.next) != t) edge_from(user);
      cluster = user.inner;
    }
    const bool fresh = !id.contains(t);
    std::size_t inner = cluster;
    if (fresh) {
      const std::size_t me = id.size();
      id.emplace(t, me);
      if (t->kind() == ops::OpKind::Fn) {
        const auto named = def_name.find(t);
        inner = clusters.open(cluster, named != def_name.end() ? "def " + named->second : "body");
      }
      const std::string type = t->is_tuple() ? "tuple" : ops::to_string(t->type());
      clusters.all[inner].lines.push_back(fmt::format(
          "t{} [label=\"{}\\n{}\"];", me, escape(op_label(t->kind(), t->attrs())), escape(type)));
    }
    open.push_back({t, inner, 0, fresh});
    return fresh;
  };
  auto finish = [&](ops::TermRef) {
    Open& me = open.back();
    if (me.fresh)
      while (me.next < me.t->arity()) edge_from(me);
    open.pop_back();
    if (!open.empty()) edge_from(open.back());
  };
  auto walk = [&](ops::TermRef root) {
    ops::for_each_post_order(root, ops::Bodies::Enter, finish, enter);
  };
  for (const auto& o : graph.outputs) {
    walk(o.term);
    edges.push_back(
        fmt::format("out_{} [shape=box, label=\"output {}\"];", escape(o.name), escape(o.name)));
    edges.push_back(fmt::format("t{} -> out_{};", id.at(o.term), escape(o.name)));
  }
  for (const auto& d : graph.defs) walk(d.term);
  std::string out = "digraph graph_terms {\n  node [shape=ellipse, fontsize=10];\n";
  clusters.write(0, out, 0);
  for (const auto& e : edges) out += "  " + e + "\n";
  return out + "}\n";
}

std::string egraph_dot(const TensorEGraph& g, std::span<const EClassId> roots,
                       const backend::CostModel& model) {
  const EGraphPicture pic = egraph_picture(g, roots, model);
  const egraph::EGraphProblem& p = pic.problem;
  const std::size_t n_classes = p.problem.num_classes();
  Clusters clusters;
  for (std::size_t b = 1; b < pic.bodies.size(); ++b)
    clusters.open(pic.bodies[b].parent,
                  fmt::format("body c{}", p.eclass[pic.bodies[b].fn.value].index()));
  std::vector<std::string> edges;
  for (std::size_t ci = 0; ci < n_classes; ++ci) {
    const ProblemClassId c{static_cast<std::uint32_t>(ci)};
    if (!pic.reached(c)) continue;
    const EClassId ec = p.eclass[ci];
    const ops::Type& type = g.type(ec);
    std::string text =
        fmt::format("subgraph cluster_c{} {{ label=\"c{} {}\"; ", ec.index(), ec.index(),
                    escape(std::holds_alternative<ops::TensorType>(type) ? ops::to_string(type)
                                                                         : std::string("tuple")));
    for (ProblemNodeId n : p.problem.nodes_of(c)) {
      const egraph::ENodeId en = p.enode[n.value];
      const bool chosen = pic.chosen(c, n);
      text += fmt::format("n{} [label=\"{}\\n{:.4g}\"{}]; ", n.value,
                          escape(op_label(g.kind(en), g.attrs(en))), p.problem.node(n).cost,
                          chosen ? ", style=filled, fillcolor=gold" : "");
      for (ProblemClassId k : p.problem.node(n).children) {
        const auto kids = p.problem.nodes_of(k);
        if (kids.empty()) continue;
        if (k == c)  // a head inside its own tail cluster cannot clip
          edges.push_back(fmt::format("n{} -> n{};", n.value, kids[0].value));
        else
          edges.push_back(fmt::format("n{} -> n{} [lhead=cluster_c{}];", n.value, kids[0].value,
                                      p.eclass[k.value].index()));
      }
    }
    clusters.all[pic.body_of[ci]].lines.push_back(text + "}");
  }
  std::string out = "digraph egraph {\n  compound=true; node [shape=ellipse, fontsize=10];\n";
  clusters.write(0, out, 0);
  for (const auto& e : edges) out += "  " + e + "\n";
  return out + "}\n";
}

}  // namespace eqsat::rules
