#include "node_context.hpp"

#include "import_error.hpp"
#include "scope.hpp"

#include "ops/type_error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace eqsat::onnx {

NodeContext::NodeContext(const pb::NodeProto& node, int opset, std::vector<ops::TermRef> inputs,
                         Scope& scope)
    : node_(node), opset_(opset), inputs_(std::move(inputs)), scope_(scope) {
  for (auto t : inputs_)
    if (t && t->is_tuple()) refuse("an operand is a tuple");
}

ops::TermRef NodeContext::input(std::size_t i) const {
  if (!has_input(i)) refuse(fmt::format("input {} is missing", i));
  return inputs_[i];
}

const ops::Dims& NodeContext::static_dims(std::size_t i) const {
  const ops::TensorType& t = type(i);
  if (!t.is_static())
    refuse(
        fmt::format("input {} has the shape {}: this op needs every dimension known when the "
                    "model is read",
                    i, ops::dims_to_string(t.dims)));
  return t.dims;
}

const ops::Array* NodeContext::value_of(ops::TermRef t) const {
  return scope_.value_of(t);
}

const ops::Array* NodeContext::constant(std::size_t i) const {
  return has_input(i) ? scope_.value_of(inputs_[i]) : nullptr;
}

std::vector<std::int64_t> NodeContext::const_ints(std::size_t i, std::string_view what) const {
  const ops::Array* a = constant(i);
  if (!a)
    refuse(fmt::format(
        "input {} ({}) is computed at run time; eqsat needs it when the model is read", i, what));
  std::vector<std::int64_t> v;
  for (std::int64_t k = 0; k < a->size(); ++k) {
    auto e = a->integer_element(k);
    if (!e) refuse(fmt::format("input {} ({}) holds a value that is not an integer", i, what));
    v.push_back(*e);
  }
  return v;
}

const pb::AttributeProto* NodeContext::find_attr(std::string_view name) const {
  for (const auto& a : node_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

std::int64_t NodeContext::attr_int(std::string_view name, std::int64_t fallback) const {
  const auto* a = find_attr(name);
  return a ? a->i() : fallback;
}

double NodeContext::attr_float(std::string_view name, double fallback) const {
  const auto* a = find_attr(name);
  return a ? a->f() : fallback;
}

std::string NodeContext::attr_string(std::string_view name, std::string fallback) const {
  const auto* a = find_attr(name);
  return a ? a->s() : fallback;
}

std::optional<std::vector<std::int64_t>> NodeContext::attr_ints(std::string_view name) const {
  const auto* a = find_attr(name);
  if (!a) return std::nullopt;
  return std::vector<std::int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<std::string> NodeContext::attr_strings(std::string_view name) const {
  const auto* a = find_attr(name);
  if (!a) return {};
  return std::vector<std::string>(a->strings().begin(), a->strings().end());
}

std::vector<double> NodeContext::attr_floats(std::string_view name) const {
  const auto* a = find_attr(name);
  if (!a) return {};
  return std::vector<double>(a->floats().begin(), a->floats().end());
}

const pb::TensorProto* NodeContext::attr_tensor(std::string_view name) const {
  const auto* a = find_attr(name);
  return a && a->has_t() ? &a->t() : nullptr;
}

const pb::GraphProto& NodeContext::attr_graph(std::string_view name) const {
  const auto* a = find_attr(name);
  if (!a || !a->has_g()) refuse(fmt::format("the graph attribute '{}' is missing", name));
  return a->g();
}

void NodeContext::only_attrs(std::initializer_list<std::string_view> names) const {
  for (const auto& a : node_.attribute())
    if (std::find(names.begin(), names.end(), a.name()) == names.end())
      refuse(fmt::format("the attribute '{}'", a.name()));
}

void NodeContext::refuse(const std::string& why) const {
  throw NotSupported(why);
}

ops::TermRef NodeContext::make(ops::OpKind kind, ops::Attrs attrs,
                               std::vector<ops::TermRef> operands) const {
  try {
    return ops::Term::make(kind, std::move(attrs), std::move(operands));
  } catch (const ops::TypeError& e) {
    refuse(fmt::format("its operands do not type-check as eqsat's {}: {}", ops::op_name(kind),
                       e.what()));
  }
}

int onnx_axis(const NodeContext& ctx, std::int64_t axis, int rank) {
  if (axis < -rank || axis >= rank)
    ctx.refuse(fmt::format("axis {} is out of range for rank {}", axis, rank));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace eqsat::onnx
