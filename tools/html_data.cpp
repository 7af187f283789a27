#include "html_data.hpp"

#include "ops/graph_printer.hpp"
#include "ops/type.hpp"

#include <algorithm>
#include <cstdint>
#include <variant>

namespace eqsat::tools {
namespace {

using egraph::ProblemClassId;
using egraph::ProblemNodeId;

// How many elements of a constant the page shows.
constexpr std::int64_t kShownElements = 16;

// One attribute value as the page shows it: plain values as themselves,
// types as their text, a scan's layout field by field, a constant as its
// type and first elements.
nlohmann::json attr_json(const ops::AttrValue& v) {
  return std::visit(
      []<class T>(const T& x) -> nlohmann::json {
        if constexpr (std::is_same_v<T, ops::DType>) {
          return std::string(ops::dtype_name(x));
        } else if constexpr (std::is_same_v<T, ops::TensorType>) {
          return ops::to_string(x);
        } else if constexpr (std::is_same_v<T, std::vector<ops::TensorType>>) {
          nlohmann::json out = nlohmann::json::array();
          for (const auto& t : x) out.push_back(ops::to_string(t));
          return out;
        } else if constexpr (std::is_same_v<T, ops::ScanSpec>) {
          return {{"sequence_taps", x.sequence_taps},
                  {"mitsot_taps", x.mitsot_taps},
                  {"sitsot", x.num_sitsot},
                  {"nitsot", x.num_nitsot},
                  {"nonsequences", x.num_nonsequences},
                  {"n_steps", x.has_n_steps},
                  {"until", x.until},
                  {"keep", x.keep}};
        } else if constexpr (std::is_same_v<T, ops::Array>) {
          nlohmann::json values = nlohmann::json::array();
          for (std::int64_t i = 0; i < std::min(x.size(), kShownElements); ++i)
            values.push_back(x.element(i));
          return {{"type", ops::to_string(x.type())},
                  {"values", values},
                  {"elided", x.size() > kShownElements}};
        } else {
          return x;
        }
      },
      v);
}

}  // namespace

nlohmann::json egraph_json(const rules::TensorEGraph& g, const rules::EGraphPicture& picture,
                           const ops::Graph& graph, std::size_t max_nodes) {
  const egraph::EGraphProblem& p = picture.problem;
  nlohmann::json roots = nlohmann::json::array();
  const auto root_classes = p.problem.roots();
  for (std::size_t i = 0; i < root_classes.size() && i < graph.outputs.size(); ++i)
    roots.push_back(
        {{"output", graph.outputs[i].name}, {"class", p.eclass[root_classes[i].value].index()}});
  nlohmann::json bodies = nlohmann::json::array();
  for (const auto& b : picture.bodies)
    bodies.push_back({{"parent", b.parent}, {"fn", p.eclass[b.fn.value].index()}});
  // The classes the extractor's choices reach from the roots (the drawing
  // needs them all), then the other reached classes in id order while the
  // budget of e-nodes lasts.
  const std::uint32_t num_classes = p.problem.num_classes();
  std::vector<bool> shown(num_classes, false);
  std::vector<ProblemClassId> stack(root_classes.begin(), root_classes.end());
  std::size_t budget = max_nodes;
  auto nodes_shown = [&](ProblemClassId c) {
    return std::min<std::size_t>(p.problem.nodes_of(c).size(), kMaxNodesPerClass);
  };
  while (!stack.empty()) {
    const ProblemClassId c = stack.back();
    stack.pop_back();
    if (shown[c.value] || !picture.reached(c)) continue;
    shown[c.value] = true;
    budget -= std::min(budget, nodes_shown(c));
    for (ProblemNodeId n : p.problem.nodes_of(c))
      if (picture.chosen(c, n))
        for (ProblemClassId k : p.problem.node(n).children) stack.push_back(k);
  }
  std::size_t reached_classes = 0, reached_nodes = 0, shown_classes = 0, shown_nodes = 0;
  for (std::uint32_t ci = 0; ci < num_classes; ++ci) {
    const ProblemClassId c{ci};
    if (!picture.reached(c)) continue;
    ++reached_classes;
    reached_nodes += p.problem.nodes_of(c).size();
    if (!shown[ci] && nodes_shown(c) <= budget) {
      shown[ci] = true;
      budget -= nodes_shown(c);
    }
  }
  nlohmann::json classes = nlohmann::json::array();
  for (std::uint32_t ci = 0; ci < num_classes; ++ci) {
    const ProblemClassId c{ci};
    if (!shown[ci]) continue;
    nlohmann::json nodes = nlohmann::json::array();
    nlohmann::json chosen = nullptr;
    const auto all = p.problem.nodes_of(c);
    const bool has_choice = picture.choice.choices[ci].has_value();
    std::size_t left = kMaxNodesPerClass;
    for (ProblemNodeId n : all) {
      // The chosen e-node is always shown (room is kept for it until it
      // comes); the others while room is left.
      const bool is_chosen = picture.chosen(c, n);
      const std::size_t kept = has_choice && chosen.is_null() && !is_chosen ? 1 : 0;
      if (left <= kept) continue;
      --left;
      const egraph::ENodeId en = p.enode[n.value];
      nlohmann::json attrs = nlohmann::json::object();
      for (const auto& [key, value] : g.attrs(en).entries())
        attrs[std::string(ops::attr_key_name(key))] = attr_json(value);
      nlohmann::json children = nlohmann::json::array();
      for (ProblemClassId k : p.problem.node(n).children)
        children.push_back(p.eclass[k.value].index());
      if (is_chosen) chosen = nodes.size();
      nodes.push_back({{"op", ops::op_name(g.kind(en))},
                       {"label", rules::op_label(g.kind(en), g.attrs(en))},
                       {"attrs", std::move(attrs)},
                       {"children", std::move(children)},
                       {"cost", p.problem.node(n).cost}});
    }
    ++shown_classes;
    shown_nodes += nodes.size();
    nlohmann::json entry = {{"id", p.eclass[ci].index()},
                            {"type", ops::to_string(g.type(p.eclass[ci]))},
                            {"body", picture.body_of[ci]},
                            {"chosen", chosen},
                            {"nodes", std::move(nodes)}};
    if (all.size() > entry["nodes"].size())
      entry["hidden_nodes"] = all.size() - entry["nodes"].size();
    classes.push_back(std::move(entry));
  }
  nlohmann::json out = {
      {"roots", std::move(roots)}, {"bodies", std::move(bodies)}, {"classes", std::move(classes)}};
  if (shown_nodes < reached_nodes)
    out["shown"] = {{"classes", shown_classes},
                    {"of_classes", reached_classes},
                    {"nodes", shown_nodes},
                    {"of_nodes", reached_nodes}};
  return out;
}

nlohmann::json report_json(const rules::OptimizeReport& report) {
  nlohmann::json j = report.to_json();
  j.erase("seconds");
  for (auto& phase : j["phases"]) phase.erase("seconds");
  return j;
}

nlohmann::json alternatives_json(std::span<const rules::Alternative> found,
                                 const ops::Graph& input) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < found.size(); ++i)
    out.push_back({{"rank", i + 1},
                   {"cost", found[i].cost},
                   {"input", found[i].graph.outputs == input.outputs},
                   {"text", ops::print_graph(found[i].graph)}});
  return out;
}

}  // namespace eqsat::tools
