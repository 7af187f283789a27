// egraph-serialize JSON, the interchange format of egglog, its visualizer and
// extraction-gym: reading a file into an ExtractionProblem (keeping the
// file's ids) and writing one back.
//
// Format: {"nodes": {NODE_ID: {"op": S, "children": [NODE_ID...],
// "eclass": CLASS_ID, "cost": NUMBER, "subsumed": BOOL}...},
// "root_eclasses": [CLASS_ID...], "class_data": {CLASS_ID: {...}}}.
// A child names a node and stands for that node's class. "children"
// defaults to [], "cost" to 1, "subsumed" to false; "root_eclasses" and
// "class_data" are optional.
#pragma once

#include "egraph/extract/extraction.hpp"
#include "egraph/extract/problem.hpp"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace eqsat::egraph {

// A bad file: what() is `FILE:LINE:COL: error: MESSAGE` for malformed JSON,
// `FILE: error: MESSAGE` for a well-formed file with bad content.
class SerializeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A negative cost in a file read without ReadOptions::allow_negative_costs.
class NegativeCostError : public SerializeError {
 public:
  using SerializeError::SerializeError;
};

// A problem with the names an egraph-serialize file gives its parts.
// Classes are numbered in the order they first appear in "nodes", nodes in
// file order, so the same file always gives the same problem.
struct SerializedEGraph {
  ExtractionProblem problem;
  std::vector<std::string> class_ids;  // by ProblemClassId
  std::vector<std::string> node_ids;   // by ProblemNodeId
  std::vector<std::string> ops;        // by ProblemNodeId
  // "class_data" as read (only entries of existing classes), written back as is.
  nlohmann::ordered_json class_data = nlohmann::ordered_json::object();
  // Entries of "root_eclasses" that name no class; they are ignored.
  std::vector<std::string> unknown_roots;
  // True when "root_eclasses" named no class, so the roots are the classes
  // no node of another class uses.
  bool roots_inferred = false;
};

struct ReadOptions {
  // Accept negative costs (rewards, as in extraction-gym's maxsat suite);
  // by default they are an error.
  bool allow_negative_costs = false;
};

// Parses egraph-serialize JSON; `file_name` only labels errors. Throws
// SerializeError for malformed JSON, a missing or mistyped field, a node id
// defined twice, a child naming no node, or a cost that is infinite or
// (unless allowed) negative.
SerializedEGraph parse_serialized_egraph(std::string_view text, const std::string& file_name,
                                         const ReadOptions& options = {});

// Reads and parses a file; a file that cannot be read is a SerializeError.
SerializedEGraph read_serialized_egraph(const std::string& path, const ReadOptions& options = {});

// Names a problem's parts `c<N>` and `n<N>` (op `n<N>` too), for export.
SerializedEGraph with_default_names(ExtractionProblem problem);

// The egraph-serialize JSON of `graph`, nodes in id order. A child class
// is written as the id of its first node. Throws SerializeError when a child
// class has no node or the name lists do not match the problem's sizes.
nlohmann::ordered_json to_serialized_json(const SerializedEGraph& graph);

// An extraction's choices as {CLASS_ID: NODE_ID} in class order.
nlohmann::ordered_json choices_json(const SerializedEGraph& graph, const Extraction& extraction);

}  // namespace eqsat::egraph
