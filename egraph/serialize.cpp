#include "egraph/serialize.hpp"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace eqsat::egraph {

namespace {

using Json = nlohmann::ordered_json;

[[noreturn]] void fail(const std::string& file, const std::string& message) {
  throw SerializeError(file + ": error: " + message);
}

// 1-based line and column of byte offset `byte` (1-based, as nlohmann
// reports it) in `text`.
std::pair<std::size_t, std::size_t> line_and_column(std::string_view text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  const std::size_t end = std::min(text.size(), byte > 0 ? byte - 1 : 0);
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// nlohmann's message without its "[json.exception.parse_error.101] parse
// error at line 1, column 2: " prefix.
std::string short_parse_message(const std::string& what) {
  const auto colon = what.find(": ");
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

std::string quoted(const std::string& id) {
  return Json(id).dump();
}

// Adds a member to an object known not to hold `key`, in constant time
// (ordered_json's operator[] searches linearly).
void append(Json& object, const std::string& key, Json value) {
  object.get_ref<Json::object_t&>().emplace_back(key, std::move(value));
}

const Json* field(const Json& object, const char* name) {
  auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

}  // namespace

SerializedEGraph parse_serialized_egraph(std::string_view text, const std::string& file) {
  Json doc;
  try {
    doc = Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    auto [line, column] = line_and_column(text, e.byte);
    throw SerializeError(file + ":" + std::to_string(line) + ":" + std::to_string(column) +
                         ": error: malformed JSON: " + short_parse_message(e.what()));
  }
  if (!doc.is_object()) fail(file, "the top level is not a JSON object");
  const Json* nodes = field(doc, "nodes");
  if (nodes == nullptr) fail(file, "missing field \"nodes\"");
  if (!nodes->is_object()) fail(file, "\"nodes\" is not an object");

  SerializedEGraph graph;
  absl::flat_hash_map<std::string, ProblemClassId> class_of_id;
  absl::flat_hash_map<std::string, std::uint32_t> node_of_id;
  std::vector<ProblemClassId> class_of_node;  // by node, in file order
  // First pass: classes and node ids, so children may name later nodes.
  for (const auto& [id, node] : nodes->items()) {
    const std::string where = "node " + quoted(id);
    if (!node.is_object()) fail(file, where + " is not an object");
    const Json* eclass = field(node, "eclass");
    if (eclass == nullptr) fail(file, where + ": missing field \"eclass\"");
    if (!eclass->is_string()) fail(file, where + ": \"eclass\" is not a string");
    const auto& class_id = eclass->get_ref<const std::string&>();
    if (!class_of_id.contains(class_id)) {
      class_of_id.emplace(class_id, graph.problem.add_class());
      graph.class_ids.push_back(class_id);
    }
    node_of_id.emplace(id, static_cast<std::uint32_t>(class_of_node.size()));
    class_of_node.push_back(class_of_id.at(class_id));
  }
  for (const auto& [id, node] : nodes->items()) {
    const std::string where = "node " + quoted(id);
    const Json* op = field(node, "op");
    if (op == nullptr) fail(file, where + ": missing field \"op\"");
    if (!op->is_string()) fail(file, where + ": \"op\" is not a string");
    double cost = 1.0;
    if (const Json* c = field(node, "cost")) {
      if (!c->is_number()) fail(file, where + ": \"cost\" is not a number");
      cost = c->get<double>();
      if (std::isnan(cost)) fail(file, where + ": cost is NaN");
      if (std::isinf(cost)) fail(file, where + ": cost is infinite");
      if (cost < 0.0)
        fail(file, where + ": cost " + c->dump() + " is negative (extraction needs costs >= 0)");
    }
    bool subsumed = false;
    if (const Json* s = field(node, "subsumed")) {
      if (!s->is_boolean()) fail(file, where + ": \"subsumed\" is not a boolean");
      subsumed = s->get<bool>();
    }
    std::vector<ProblemClassId> children;
    if (const Json* list = field(node, "children")) {
      if (!list->is_array()) fail(file, where + ": \"children\" is not an array");
      for (const Json& child : *list) {
        if (!child.is_string()) fail(file, where + ": a child is not a string");
        auto it = node_of_id.find(child.get_ref<const std::string&>());
        if (it == node_of_id.end()) {
          fail(file, where + ": child " + child.dump() + " names no node");
        }
        children.push_back(class_of_node[it->second]);
      }
    }
    graph.problem.add_node(class_of_node[graph.node_ids.size()], cost, std::move(children),
                           subsumed);
    graph.node_ids.push_back(id);
    graph.ops.push_back(op->get<std::string>());
  }

  if (const Json* roots = field(doc, "root_eclasses")) {
    if (!roots->is_array()) fail(file, "\"root_eclasses\" is not an array");
    for (const Json& root : *roots) {
      if (!root.is_string()) fail(file, "an entry of \"root_eclasses\" is not a string");
      auto it = class_of_id.find(root.get_ref<const std::string&>());
      if (it == class_of_id.end()) {
        graph.unknown_roots.push_back(root.get<std::string>());
      } else {
        graph.problem.add_root(it->second);
      }
    }
  }
  if (graph.problem.roots().empty()) {
    graph.roots_inferred = true;
    std::vector<bool> used(graph.problem.num_classes(), false);
    for (std::uint32_t n = 0; n < graph.problem.num_nodes(); ++n) {
      const ProblemNode& node = graph.problem.node(ProblemNodeId{n});
      for (ProblemClassId child : node.children) {
        if (child != node.eclass) used[child.value] = true;
      }
    }
    for (std::uint32_t c = 0; c < graph.problem.num_classes(); ++c) {
      if (!used[c]) graph.problem.add_root(ProblemClassId{c});
    }
  }
  if (const Json* data = field(doc, "class_data")) {
    if (!data->is_object()) fail(file, "\"class_data\" is not an object");
    for (const auto& [id, value] : data->items()) {
      if (class_of_id.contains(id)) append(graph.class_data, id, value);
    }
  }
  return graph;
}

SerializedEGraph read_serialized_egraph(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open the file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) fail(path, "cannot read the file");
  return parse_serialized_egraph(text.str(), path);
}

SerializedEGraph with_default_names(ExtractionProblem problem) {
  SerializedEGraph graph;
  for (std::size_t c = 0; c < problem.num_classes(); ++c) {
    graph.class_ids.push_back(fmt::format("c{}", c));
  }
  for (std::size_t n = 0; n < problem.num_nodes(); ++n) {
    graph.node_ids.push_back(fmt::format("n{}", n));
    graph.ops.push_back(fmt::format("n{}", n));
  }
  graph.problem = std::move(problem);
  return graph;
}

Json to_serialized_json(const SerializedEGraph& graph) {
  const ExtractionProblem& problem = graph.problem;
  if (graph.class_ids.size() != problem.num_classes() ||
      graph.node_ids.size() != problem.num_nodes() || graph.ops.size() != problem.num_nodes()) {
    throw SerializeError("egraph-serialize export: the id lists do not match the problem");
  }
  Json nodes = Json::object();
  for (std::uint32_t n = 0; n < problem.num_nodes(); ++n) {
    const ProblemNode& node = problem.node(ProblemNodeId{n});
    Json children = Json::array();
    for (ProblemClassId child : node.children) {
      const auto members = problem.nodes_of(child);
      if (members.empty()) {
        throw SerializeError("egraph-serialize export: class " +
                             quoted(graph.class_ids[child.value]) + " is a child but has no node");
      }
      children.push_back(graph.node_ids[members.front().value]);
    }
    Json entry = {{"op", graph.ops[n]},
                  {"children", std::move(children)},
                  {"eclass", graph.class_ids[node.eclass.value]},
                  {"cost", node.cost}};
    if (node.subsumed) entry["subsumed"] = true;
    append(nodes, graph.node_ids[n], std::move(entry));
  }
  Json roots = Json::array();
  for (ProblemClassId root : problem.roots()) roots.push_back(graph.class_ids[root.value]);
  Json doc = {{"nodes", std::move(nodes)}, {"root_eclasses", std::move(roots)}};
  if (!graph.class_data.empty()) doc["class_data"] = graph.class_data;
  return doc;
}

Json choices_json(const SerializedEGraph& graph, const Extraction& extraction) {
  Json choices = Json::object();
  for (std::size_t c = 0; c < extraction.choices.size(); ++c) {
    if (const auto& n = extraction.choices[c])
      append(choices, graph.class_ids[c], graph.node_ids[n->value]);
  }
  return choices;
}

}  // namespace eqsat::egraph
