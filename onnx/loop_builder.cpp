#include "loop_builder.hpp"

#include "scope.hpp"

#include <fmt/format.h>

namespace eqsat::onnx {

using ops::AttrKey;
using ops::OpKind;
using ops::TermRef;

std::vector<ops::TensorType> loop_params(const LoopParts& parts) {
  std::vector<ops::TensorType> params;
  for (auto s : parts.sequences) {
    ops::TensorType t = s->tensor_type();
    t.dims.erase(t.dims.begin());
    params.push_back(t);
  }
  for (auto s : parts.sitsots) params.push_back(s->tensor_type());
  for (auto s : parts.nonsequences) params.push_back(s->tensor_type());
  return params;
}

TermRef loop_param(const LoopParts& parts, std::size_t slot) {
  return ops::Term::nominal(static_cast<std::int64_t>(slot), loop_params(parts).at(slot));
}

TermRef make_loop(const NodeContext& c, const LoopParts& parts) {
  ops::ScanSpec spec;
  for (std::size_t i = 0; i < parts.sequences.size(); ++i) spec.sequence_taps.push_back({0});
  spec.num_sitsot = static_cast<std::int64_t>(parts.sitsots.size());
  spec.num_nitsot = parts.num_nitsot;
  spec.num_nonsequences = static_cast<std::int64_t>(parts.nonsequences.size());
  spec.until = parts.until;
  // a body output of a looser type than its state (unknown dims) is checked by the scan
  TermRef fn;
  try {
    fn = ops::Term::fn(loop_params(parts), parts.body_outputs);
  } catch (const std::exception& e) {
    c.refuse(fmt::format("its body does not type-check as eqsat's fn: {}", e.what()));
  }
  std::vector<TermRef> operands{fn};
  for (auto group : {&parts.sequences, &parts.sitsots, &parts.nonsequences})
    operands.insert(operands.end(), group->begin(), group->end());
  return c.make(OpKind::Scan, {{AttrKey::Scan, spec}}, operands);
}

TermRef final_state(const NodeContext& c, TermRef history, TermRef init) {
  const auto steps = history->tensor_type().dims.at(0);
  TermRef last = NodeContext::scalar(ops::DType::I64, -1);
  if (steps != ops::kUnknownDim && steps > 0) return c.make(OpKind::Index, {history, last});
  TermRef all =
      c.make(OpKind::Concat, {{AttrKey::Axis, std::int64_t{0}}},
             {c.make(OpKind::ExpandDims, {{AttrKey::Axis, std::int64_t{0}}}, {init}), history});
  return c.make(OpKind::Index, {all, last});
}

std::vector<TermRef> read_body(const NodeContext& c, const pb::GraphProto& body,
                               const std::vector<TermRef>& inputs, std::size_t num_params,
                               LoopParts& parts) {
  if (static_cast<std::size_t>(body.input_size()) != inputs.size())
    c.refuse(fmt::format("a body with {} inputs where {} are expected", body.input_size(),
                         inputs.size()));
  Scope scope(c.scope(), static_cast<std::int64_t>(num_params));
  for (std::size_t i = 0; i < inputs.size(); ++i)
    scope.define(body.input(static_cast<int>(i)).name(), inputs[i]);
  scope.import_nodes(body);
  std::vector<TermRef> outputs;
  for (const auto& out : body.output()) {
    TermRef t = scope.lookup(out.name());
    if (!t) c.refuse(fmt::format("the body output '{}' is not computed", out.name()));
    outputs.push_back(t);
  }
  for (auto t : scope.captures()) parts.nonsequences.push_back(t);
  return outputs;
}

}  // namespace eqsat::onnx
