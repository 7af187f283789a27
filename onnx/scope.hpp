// The names of one ONNX graph while it is read: the model's main graph, or
// the body of a Scan or Loop, whose values are terms over nominals (our
// bodies are closed). A body that names a value of an enclosing graph
// captures it: the value becomes an extra parameter of the body, passed in
// as a non-sequence (captures()), unless it is a constant, which the body
// may use as it is.
#pragma once

#include "import.hpp"
#include "proto.hpp"

#include "ops/term.hpp"

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace eqsat::onnx {

// The opsets of ONNX's default domain read: those of Debian's ONNX 1.12
// from 6 on (opset 6 ops differ from 7 by attributes the translators refuse:
// `broadcast`, `is_test`; PRelu and the recurrent layers refuse it).
inline constexpr int kMinOpset = 6, kMaxOpset = 17;

// What every scope of one model shares.
struct ModelContext {
  std::string path;  // for messages
  int opset = 0;
  const ImportOptions* options = nullptr;
  std::map<ops::TermRef, std::optional<ops::Array>> values;  // evaluator cache
  std::vector<SideFile> side_files;
  // Where each term the nodes made comes from (its first node), for
  // run-time errors and profiles: `MODEL.onnx: node 'NAME' (OPTYPE)`.
  std::unordered_map<ops::TermRef, ops::SourceLocation> locations;
};

class Scope {
 public:
  // The main graph.
  explicit Scope(ModelContext& model) : model_(model) {}
  // A body inside `parent` whose declared parameters take the nominal
  // slots below `first_capture_slot`.
  Scope(Scope& parent, std::int64_t first_capture_slot)
      : model_(parent.model_), parent_(&parent), first_capture_slot_(first_capture_slot) {}
  // A branch of an If: it reads the enclosing graph's values as they are.
  struct Inline {};
  Scope(Scope& parent, Inline) : model_(parent.model_), parent_(&parent), inline_(true) {}

  ModelContext& model() { return model_; }
  int opset() const { return model_.opset; }
  bool is_body() const { return parent_ != nullptr && !inline_; }

  void define(const std::string& name, ops::TermRef t) { names_[name] = t; }
  // The value named `name`, captured from an enclosing graph when needed;
  // nullptr when no graph defines it.
  ops::TermRef lookup(const std::string& name);
  // The outer values a body captured, in slot order.
  const std::vector<ops::TermRef>& captures() const { return captures_; }
  std::vector<ops::TensorType> capture_types() const;

  // Translates the nodes of `g` in order (initializers of `g` first).
  void import_nodes(const pb::GraphProto& g);

  // The value of a term that uses no input and no parameter, or nullptr.
  const ops::Array* value_of(ops::TermRef t);

 private:
  void import_node(const pb::NodeProto& node);
  // Gives `node`'s location to the terms its outputs reach that no earlier
  // node made (graph inputs keep none).
  void locate(const pb::NodeProto& node, const std::vector<ops::TermRef>& outputs);

  ModelContext& model_;
  Scope* parent_ = nullptr;
  std::int64_t first_capture_slot_ = 0;
  bool inline_ = false;
  std::map<std::string, ops::TermRef> names_;
  std::vector<ops::TermRef> captures_;
  std::map<ops::TermRef, ops::TermRef> captured_;  // outer term -> its nominal
};

// The ONNX tensor type `t` as ours (unknown dims for symbolic ones);
// throws NotSupported for another element type or a non-tensor type.
ops::TensorType tensor_type_of(const pb::TypeProto& t, const std::string& what);

// The name a node is called in messages: its name, or its first named output's.
std::string node_label(const pb::NodeProto& node);

}  // namespace eqsat::onnx
