// ONNX's control flow as our loops: Scan (opset 8, with its batch axis,
// and 9 on) and Loop as `scan` (a Loop's condition as `:until`), If as
// `where` over both branches (both are pure; a branch known when the
// model is read is taken alone).
#include "build.hpp"
#include "loop_builder.hpp"
#include "op_table.hpp"
#include "scope.hpp"

#include <fmt/format.h>

namespace eqsat::onnx {

namespace {

using ops::AttrKey;
using ops::DType;
using ops::OpKind;
using ops::TermRef;
using Out = std::vector<TermRef>;

std::vector<std::int64_t> ints_or(const NodeContext& c, std::string_view name, std::size_t n,
                                  std::int64_t fallback) {
  auto v = c.attr_ints(name).value_or(std::vector<std::int64_t>(n, fallback));
  if (v.size() != n) c.refuse(fmt::format("{} of another length than its operands", name));
  return v;
}

// One Scan (opset 9's semantics) over `states` and `scans`.
Out scan_once(NodeContext& c, const std::vector<TermRef>& states, std::vector<TermRef> scans) {
  const std::size_t n = states.size(), m = scans.size();
  const auto in_axes = ints_or(c, "scan_input_axes", m, 0);
  const auto in_dirs = ints_or(c, "scan_input_directions", m, 0);
  LoopParts parts;
  for (std::size_t i = 0; i < m; ++i) {
    TermRef s = scans[i];
    const int rank = s->tensor_type().rank();
    if (rank == 0) c.refuse("a scalar scan input");
    s = move_axis(c, s, onnx_axis(c, in_axes[i], rank), 0);
    if (in_dirs[i]) s = c.make(OpKind::Flip, {{AttrKey::Axis, std::int64_t{0}}}, {s});
    parts.sequences.push_back(s);
  }
  parts.sitsots = states;
  std::vector<TermRef> inputs;
  for (std::size_t j = 0; j < n; ++j) inputs.push_back(loop_param(parts, m + j));
  for (std::size_t j = 0; j < m; ++j) inputs.push_back(loop_param(parts, j));
  const auto outs = read_body(c, c.attr_graph("body"), inputs, n + m, parts);
  if (outs.size() < n) c.refuse("a body with fewer outputs than states");
  const std::size_t k = outs.size() - n;
  parts.num_nitsot = static_cast<std::int64_t>(k);
  parts.body_outputs = outs;
  TermRef loop = make_loop(c, parts);
  Out result;
  for (std::size_t j = 0; j < n; ++j)
    result.push_back(final_state(
        c, c.make(OpKind::Get, {{AttrKey::Index, static_cast<std::int64_t>(j)}}, {loop}),
        states[j]));
  const auto out_axes = ints_or(c, "scan_output_axes", k, 0);
  const auto out_dirs = ints_or(c, "scan_output_directions", k, 0);
  for (std::size_t j = 0; j < k; ++j) {
    TermRef y = c.make(OpKind::Get, {{AttrKey::Index, static_cast<std::int64_t>(n + j)}}, {loop});
    if (out_dirs[j]) y = c.make(OpKind::Flip, {{AttrKey::Axis, std::int64_t{0}}}, {y});
    result.push_back(move_axis(c, y, 0, onnx_axis(c, out_axes[j], y->tensor_type().rank())));
  }
  return result;
}

Out scan(NodeContext& c) {
  c.only_attrs({"body", "num_scan_inputs", "scan_input_axes", "scan_input_directions",
                "scan_output_axes", "scan_output_directions", "directions"});
  const auto m = static_cast<std::size_t>(c.attr_int("num_scan_inputs", 0));
  if (c.opset() >= 9) {
    if (m == 0 || m > c.num_inputs()) c.refuse("num_scan_inputs out of range");
    std::vector<TermRef> states, scans;
    for (std::size_t i = 0; i < c.num_inputs(); ++i)
      (i < c.num_inputs() - m ? states : scans).push_back(c.input(i));
    return scan_once(c, states, scans);
  }
  // opset 8: input 0 is sequence_lens, and every operand has a batch axis
  if (c.has_input(0)) c.refuse("sequence_lens");
  if (m == 0 || m + 1 > c.num_inputs()) c.refuse("num_scan_inputs out of range");
  const std::size_t n = c.num_inputs() - 1 - m;
  const std::int64_t batch = c.type(1).dims.at(0);
  if (batch == ops::kUnknownDim) c.refuse("a batch size not known when the model is read");
  if (c.has_attr("directions")) c.refuse("the attribute 'directions'");
  std::vector<Out> per_batch;
  for (std::int64_t b = 0; b < batch; ++b) {
    std::vector<TermRef> states, scans;
    TermRef bi = NodeContext::scalar(DType::I64, static_cast<double>(b));
    for (std::size_t i = 1; i < c.num_inputs(); ++i)
      (i <= n ? states : scans).push_back(c.make(OpKind::Index, {c.input(i), bi}));
    per_batch.push_back(scan_once(c, states, scans));
  }
  Out result;
  for (std::size_t j = 0; j < per_batch.at(0).size(); ++j) {
    std::vector<TermRef> parts;
    for (const auto& r : per_batch) parts.push_back(r[j]);
    result.push_back(c.make(OpKind::Stack, {{AttrKey::Axis, std::int64_t{0}}}, parts));
  }
  return result;
}

Out loop(NodeContext& c) {
  c.only_attrs({"body"});
  if (!c.has_input(0)) c.refuse("a Loop without a trip count (M)");
  const std::size_t n = c.num_inputs() - 2;
  TermRef trips = cast_to(
      c, c.make(OpKind::Reshape, {{AttrKey::Shape, ops::IntList{}}}, {c.input(0)}), DType::I64);
  if (c.has_input(1)) {
    const ops::Array* cond = c.constant(1);
    if (!cond || cond->element(0) == 0) {
      TermRef go = c.make(OpKind::Reshape, {{AttrKey::Shape, ops::IntList{}}}, {c.input(1)});
      trips = c.make(OpKind::Where, {go, trips, NodeContext::scalar(DType::I64, 0)});
    }
  }
  trips = c.make(OpKind::Maximum, {trips, NodeContext::scalar(DType::I64, 0)});
  LoopParts parts;
  parts.sequences.push_back(c.make(OpKind::Arange, {{AttrKey::Dtype, DType::I64}}, {trips}));
  for (std::size_t i = 0; i < n; ++i) parts.sitsots.push_back(c.input(2 + i));
  std::vector<TermRef> inputs{loop_param(parts, 0), NodeContext::scalar(DType::Bool, 1)};
  for (std::size_t i = 0; i < n; ++i) inputs.push_back(loop_param(parts, 1 + i));
  auto outs = read_body(c, c.attr_graph("body"), inputs, 1 + n, parts);
  if (outs.size() < 1 + n) c.refuse("a body with fewer outputs than loop-carried values");
  TermRef cond_out = outs[0];
  const std::size_t k = outs.size() - 1 - n;
  parts.num_nitsot = static_cast<std::int64_t>(k);
  parts.body_outputs.assign(outs.begin() + 1, outs.end());
  const ops::Array* always = c.value_of(cond_out);
  if (!always || always->element(0) == 0) {
    parts.until = true;
    TermRef flag = c.make(OpKind::Reshape, {{AttrKey::Shape, ops::IntList{}}}, {cond_out});
    parts.body_outputs.push_back(c.make(OpKind::LogicalNot, {flag}));
  }
  TermRef l = make_loop(c, parts);
  Out result;
  for (std::size_t j = 0; j < n; ++j)
    result.push_back(
        final_state(c, c.make(OpKind::Get, {{AttrKey::Index, static_cast<std::int64_t>(j)}}, {l}),
                    c.input(2 + j)));
  for (std::size_t j = 0; j < k; ++j)
    result.push_back(
        c.make(OpKind::Get, {{AttrKey::Index, static_cast<std::int64_t>(n + j)}}, {l}));
  return result;
}

Out branch(NodeContext& c, const pb::GraphProto& g) {
  Scope scope(c.scope(), Scope::Inline{});
  scope.import_nodes(g);
  Out outs;
  for (const auto& o : g.output()) {
    TermRef t = scope.lookup(o.name());
    if (!t) c.refuse(fmt::format("the branch output '{}' is not computed", o.name()));
    outs.push_back(t);
  }
  return outs;
}

Out if_op(NodeContext& c) {
  c.only_attrs({"then_branch", "else_branch"});
  if (c.type(0).num_elements() != 1) c.refuse("a condition that is not one element");
  if (const ops::Array* cond = c.constant(0))
    return branch(c, c.attr_graph(cond->element(0) != 0 ? "then_branch" : "else_branch"));
  const Out yes = branch(c, c.attr_graph("then_branch")),
            no = branch(c, c.attr_graph("else_branch"));
  if (yes.size() != no.size()) c.refuse("branches with different numbers of outputs");
  TermRef cond = c.make(OpKind::Reshape, {{AttrKey::Shape, ops::IntList{}}}, {c.input(0)});
  Out result;
  for (std::size_t i = 0; i < yes.size(); ++i) {
    const auto &a = yes[i]->tensor_type(), &b = no[i]->tensor_type();
    if (a.dtype != b.dtype || a.dims != b.dims || !a.is_static())
      c.refuse(fmt::format(
          "branch outputs of types {} and {} (eqsat selects between equal static types)",
          ops::to_string(a), ops::to_string(b)));
    result.push_back(c.make(OpKind::Where, {cond, yes[i], no[i]}));
  }
  return result;
}

const OnnxOp kOps[] = {
    {"If", if_op},
    {"Loop", loop},
    {"Scan", scan},
};

}  // namespace

std::span<const OnnxOp> control_ops() {
  return kOps;
}

}  // namespace eqsat::onnx
