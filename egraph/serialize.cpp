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
// error at line 1, column 2: " prefix (we print the position ourselves).
std::string short_parse_message(const std::string& what) {
  std::string message = what;
  if (const auto tag = message.find("] ");
      message.starts_with("[json.") && tag != std::string::npos) {
    message = message.substr(tag + 2);
  }
  if (message.starts_with("parse error")) {
    if (const auto colon = message.find(": "); colon != std::string::npos) {
      message = message.substr(colon + 2);
    }
  }
  return message;
}

std::string quoted(const std::string& id) {
  return Json(id).dump();
}

// Adds a member to an object known not to hold `key`, in constant time
// (ordered_json's operator[] searches linearly).
void append(Json& object, const std::string& key, Json value) {
  object.get_ref<Json::object_t&>().emplace_back(key, std::move(value));
}

// Builds an ordered_json document from nlohmann's SAX events in linear
// time: members are appended in file order (ordered_json's own parser
// looks each key up linearly, quadratic on a large "nodes" object), so a
// repeated key appears twice. Records the first syntax error instead of
// throwing.
class OrderedDomBuilder {
 public:
  explicit OrderedDomBuilder(Json& root) : root_(root) {}

  bool null() { return add(Json(nullptr)); }
  bool boolean(bool value) { return add(Json(value)); }
  bool number_integer(Json::number_integer_t value) { return add(Json(value)); }
  bool number_unsigned(Json::number_unsigned_t value) { return add(Json(value)); }
  bool number_float(Json::number_float_t value, const Json::string_t&) { return add(Json(value)); }
  bool string(Json::string_t& value) { return add(Json(std::move(value))); }
  bool binary(Json::binary_t& value) { return add(Json::binary(std::move(value))); }
  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(Json::string_t& name) {
    auto& members = open_.back()->get_ref<Json::object_t&>();
    members.emplace_back(std::move(name), nullptr);
    slot_ = &members.back().second;
    return true;
  }
  // `byte` is where the parser stopped: the end of the offending token.
  bool parse_error(std::size_t byte, const std::string&, const nlohmann::detail::exception& e) {
    error_byte_ = byte;
    error_ = short_parse_message(e.what());
    return false;
  }

  std::size_t error_byte() const { return error_byte_; }
  const std::string& error() const { return error_; }

 private:
  // Places a value where the document expects one; returns where it is.
  // Pointers into open containers stay valid: a container only grows while
  // it is the innermost open one.
  Json* place(Json&& value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Json& container = *open_.back();
    if (container.is_array()) {
      auto& items = container.get_ref<Json::array_t&>();
      items.push_back(std::move(value));
      return &items.back();
    }
    *slot_ = std::move(value);
    return slot_;
  }
  bool add(Json&& value) {
    place(std::move(value));
    return true;
  }
  bool open(Json&& container) {
    open_.push_back(place(std::move(container)));
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  Json& root_;
  std::vector<Json*> open_;
  Json* slot_ = nullptr;
  std::size_t error_byte_ = 0;
  std::string error_;
};

const Json* field(const Json& object, const char* name) {
  auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

// The document of `text`, checked to be an object: a syntax error is
// reported at its line and column.
Json parse_document(std::string_view text, const std::string& file) {
  Json doc;
  OrderedDomBuilder builder(doc);
  if (!Json::sax_parse(text.begin(), text.end(), &builder)) {
    auto [line, column] = line_and_column(text, builder.error_byte());
    throw SerializeError(file + ":" + std::to_string(line) + ":" + std::to_string(column) +
                         ": error: malformed JSON: " + builder.error());
  }
  if (!doc.is_object()) fail(file, "the top level is not a JSON object");
  return doc;
}

// The ids of classes and nodes, read in a first pass so that a child may
// name a node written later in the file.
struct Ids {
  absl::flat_hash_map<std::string, ProblemClassId> class_of_id;
  absl::flat_hash_map<std::string, std::uint32_t> node_of_id;
  std::vector<ProblemClassId> class_of_node;  // by node, in file order
};

// Adds one class per distinct "eclass" to `graph` (in order of first use).
Ids declare_classes(const Json& nodes, const std::string& file, SerializedEGraph& graph) {
  Ids ids;
  for (const auto& [id, node] : nodes.items()) {
    const std::string where = "node " + quoted(id);
    if (!node.is_object()) fail(file, where + " is not an object");
    const Json* eclass = field(node, "eclass");
    if (eclass == nullptr) fail(file, where + ": missing field \"eclass\"");
    if (!eclass->is_string()) fail(file, where + ": \"eclass\" is not a string");
    const auto& class_id = eclass->get_ref<const std::string&>();
    if (!ids.class_of_id.contains(class_id)) {
      ids.class_of_id.emplace(class_id, graph.problem.add_class());
      graph.class_ids.push_back(class_id);
    }
    if (!ids.node_of_id.emplace(id, static_cast<std::uint32_t>(ids.class_of_node.size())).second) {
      fail(file, where + " is defined twice");
    }
    ids.class_of_node.push_back(ids.class_of_id.at(class_id));
  }
  return ids;
}

// A node's "cost" (1 when absent), checked: a number, finite, not negative
// unless the options allow it.
double read_cost(const Json& node, const std::string& where, const std::string& file,
                 const ReadOptions& options) {
  const Json* c = field(node, "cost");
  if (c == nullptr) return 1.0;
  if (!c->is_number()) fail(file, where + ": \"cost\" is not a number");
  const double cost = c->get<double>();
  if (std::isnan(cost)) fail(file, where + ": cost is NaN");
  if (std::isinf(cost)) fail(file, where + ": cost is infinite");
  if (cost < 0.0 && !options.allow_negative_costs) {
    throw NegativeCostError(file + ": error: " + where + ": cost " + c->dump() +
                            " is negative (negative costs must be allowed explicitly)");
  }
  return cost;
}

// Adds the node `id` to `graph` (its op, cost, subsumed flag and children).
void read_node(const std::string& id, const Json& node, const Ids& ids, const std::string& file,
               const ReadOptions& options, SerializedEGraph& graph) {
  const std::string where = "node " + quoted(id);
  const Json* op = field(node, "op");
  if (op == nullptr) fail(file, where + ": missing field \"op\"");
  if (!op->is_string()) fail(file, where + ": \"op\" is not a string");
  const double cost = read_cost(node, where, file, options);
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
      auto it = ids.node_of_id.find(child.get_ref<const std::string&>());
      if (it == ids.node_of_id.end()) {
        fail(file, where + ": child " + child.dump() + " names no node");
      }
      children.push_back(ids.class_of_node[it->second]);
    }
  }
  try {
    graph.problem.add_node(ids.class_of_node[graph.node_ids.size()], cost, std::move(children),
                           subsumed);
  } catch (const ProblemError& e) {
    fail(file, where + ": " + e.what());
  }
  graph.node_ids.push_back(id);
  graph.ops.push_back(op->get<std::string>());
}

// The roots: "root_eclasses" when it names any known class (unknown names
// are kept for a warning), else every class no other class uses.
void read_roots(const Json& doc, const Ids& ids, const std::string& file, SerializedEGraph& graph) {
  if (const Json* roots = field(doc, "root_eclasses")) {
    if (!roots->is_array()) fail(file, "\"root_eclasses\" is not an array");
    for (const Json& root : *roots) {
      if (!root.is_string()) fail(file, "an entry of \"root_eclasses\" is not a string");
      auto it = ids.class_of_id.find(root.get_ref<const std::string&>());
      if (it == ids.class_of_id.end()) {
        graph.unknown_roots.push_back(root.get<std::string>());
      } else {
        graph.problem.add_root(it->second);
      }
    }
  }
  if (!graph.problem.roots().empty()) return;
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

// "class_data" of known classes, kept as written; a repeated class keeps
// its first entry.
void read_class_data(const Json& doc, const Ids& ids, const std::string& file,
                     SerializedEGraph& graph) {
  const Json* data = field(doc, "class_data");
  if (data == nullptr) return;
  if (!data->is_object()) fail(file, "\"class_data\" is not an object");
  absl::flat_hash_map<std::string, bool> seen;
  for (const auto& [id, value] : data->items()) {
    if (ids.class_of_id.contains(id) && seen.emplace(id, true).second) {
      append(graph.class_data, id, value);
    }
  }
}

}  // namespace

SerializedEGraph parse_serialized_egraph(std::string_view text, const std::string& file,
                                         const ReadOptions& options) {
  const Json doc = parse_document(text, file);
  const Json* nodes = field(doc, "nodes");
  if (nodes == nullptr) fail(file, "missing field \"nodes\"");
  if (!nodes->is_object()) fail(file, "\"nodes\" is not an object");
  SerializedEGraph graph;
  const Ids ids = declare_classes(*nodes, file, graph);
  for (const auto& [id, node] : nodes->items()) read_node(id, node, ids, file, options, graph);
  read_roots(doc, ids, file, graph);
  read_class_data(doc, ids, file, graph);
  return graph;
}

SerializedEGraph read_serialized_egraph(const std::string& path, const ReadOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open the file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) fail(path, "cannot read the file");
  return parse_serialized_egraph(text.str(), path, options);
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
