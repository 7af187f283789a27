// The type rules of bodies, loops, calls, tuples and gradients (`fn`,
// `scan`, `call`, `get`, `grad`): the catalogue's rule column for the
// Control and Gradient groups (type_rules.hpp).
#include "type_rules.hpp"

#include "type_rule_support.hpp"
#include "type_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>

namespace eqsat::ops::type_rules {

using namespace detail;

namespace {

// The element types of a body (`fn`) operand.
const TupleType& body_outputs(OpKind kind, TermRef fn) {
  if (fn->kind() != OpKind::Fn)
    throw TypeError(fmt::format("{}: first operand must be a body (fn)", name_of(kind)));
  return std::get<TupleType>(fn->type());
}

const std::vector<TensorType>& body_params(TermRef fn) {
  return fn->attrs().get<std::vector<TensorType>>(AttrKey::Params);
}

bool strictly_ascending(const IntList& v) {
  return std::adjacent_find(v.begin(), v.end(), std::greater_equal<>()) == v.end();
}

TensorType with_leading(std::int64_t n, const TensorType& t) {
  TensorType out{t.dtype, {n}};
  out.dims.insert(out.dims.end(), t.dims.begin(), t.dims.end());
  return out;
}

}  // namespace

Type fn_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  const AttrValue* p = attrs.find(AttrKey::Params);
  if (!p || !std::holds_alternative<std::vector<TensorType>>(*p))
    throw TypeError("fn: needs parameter types");
  const auto& params = std::get<std::vector<TensorType>>(*p);
  // `:inline true` is the default: drop it so both spellings intern alike.
  if (!bool_attr(kind, attrs, AttrKey::Inline, true)) {
    attrs.set(AttrKey::Inline, false);
  } else {
    attrs.erase(AttrKey::Inline);
  }
  TupleType out;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const TensorType& t = tensor(kind, xs, i);
    if (xs[i]->uses_input())
      throw TypeError("fn: a body may use only its parameters and constants")
          .about_operand(static_cast<int>(i));
    for (auto slot : xs[i]->free_nominals())
      if (slot >= static_cast<std::int64_t>(params.size()))
        throw TypeError(
            fmt::format("fn: nominal {} is not one of the {} parameters", slot, params.size()));
    out.elements.push_back(t);
  }
  return out;
}

namespace {

// Checks a scan's body against its slots: one parameter per tap, state and
// non-sequence (`expected_params`), one output per state (`states`) and
// nit-sot, and the bool stop flag when the loop has :until.
void check_scan_body(const ScanSpec& spec, const std::vector<TensorType>& params,
                     const std::vector<TensorType>& expected_params, const TupleType& outs,
                     const std::vector<TensorType>& states) {
  if (params.size() != expected_params.size())
    throw TypeError(fmt::format("scan: the body takes {} parameters, the slots give {}",
                                params.size(), expected_params.size()));
  for (std::size_t i = 0; i < params.size(); ++i)
    if (!compatible(params[i], expected_params[i]))
      throw TypeError(fmt::format("scan: parameter {} has type {}, its slot gives {}", i + 1,
                                  to_string(params[i]), to_string(expected_params[i])));
  const auto nout = static_cast<std::size_t>(spec.num_outputs());
  if (outs.elements.size() != nout + spec.until)
    throw TypeError(fmt::format("scan: the body returns {} values, expected {}",
                                outs.elements.size(), nout + spec.until));
  for (std::size_t i = 0; i < states.size(); ++i)
    if (!compatible(outs.elements[i], states[i]))
      throw TypeError(fmt::format("scan: body output {} has type {}, its state has type {}", i + 1,
                                  to_string(outs.elements[i]), to_string(states[i])));
  if (spec.until && outs.elements.back() != TensorType{DType::Bool, {}})
    throw TypeError(fmt::format("scan: the stop flag must be a bool scalar, got {}",
                                to_string(outs.elements.back())));
}

}  // namespace

Type scan_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  const AttrValue* s = attrs.find(AttrKey::Scan);
  if (!s || !std::holds_alternative<ScanSpec>(*s)) throw TypeError("scan: needs its layout");
  ScanSpec spec = std::get<ScanSpec>(*s);
  const auto nseq = spec.sequence_taps.size(), nmit = spec.mitsot_taps.size();
  const std::size_t expected =
      1 + spec.has_n_steps + nseq + nmit + spec.num_sitsot + spec.num_nonsequences;
  if (xs.size() != expected)
    throw TypeError(fmt::format("scan: expected {} operands, got {}", expected, xs.size()));
  if (spec.num_outputs() == 0)
    throw TypeError("scan: needs at least one output (a mit-sot, sit-sot or nit-sot)");
  if (nseq == 0 && !spec.has_n_steps)
    throw TypeError("scan: :n-steps is required when there are no sequences");
  const TupleType& outs = body_outputs(kind, xs[0]);
  const auto& params = body_params(xs[0]);

  std::size_t at = 1;
  std::optional<std::int64_t> steps;
  if (spec.has_n_steps) {
    require_integer_scalar(kind, xs, at, ":n-steps");
    steps = const_int(xs[at]);
    if (steps && *steps < 0) throw TypeError("scan: :n-steps must be >= 0");
    ++at;
  }
  std::vector<TensorType> expected_params, states;
  bool steps_known = spec.has_n_steps ? steps.has_value() : true;
  std::int64_t seq_steps = std::numeric_limits<std::int64_t>::max();
  for (const auto& taps : spec.sequence_taps) {
    const TensorType& seq = tensor(kind, xs, at++);
    if (seq.rank() == 0) throw TypeError("scan: a sequence must have rank >= 1");
    if (taps.empty() || !strictly_ascending(taps) || taps.front() < 0)
      throw TypeError("scan: sequence taps must be ascending and >= 0");
    for (std::size_t k = 0; k < taps.size(); ++k) expected_params.push_back(drop_leading(seq));
    if (seq.dims[0] == kUnknownDim)
      steps_known = steps_known && spec.has_n_steps;
    else
      seq_steps = std::min(seq_steps, std::max<std::int64_t>(0, seq.dims[0] - taps.back()));
  }
  if (!spec.has_n_steps && steps_known) steps = seq_steps;
  for (const auto& taps : spec.mitsot_taps) {
    const TensorType& init = tensor(kind, xs, at++);
    if (taps.empty() || !strictly_ascending(taps) || taps.back() >= 0)
      throw TypeError("scan: mit-sot taps must be ascending and < 0");
    if (init.rank() == 0) throw TypeError("scan: a mit-sot's initial history must have rank >= 1");
    if (init.dims[0] != kUnknownDim && init.dims[0] != -taps.front())
      throw TypeError(
          fmt::format("scan: mit-sot with taps down to {} needs {} initial steps, got {}",
                      taps.front(), -taps.front(), init.dims[0]))
          .about_operand(static_cast<int>(at - 1));
    for (std::size_t k = 0; k < taps.size(); ++k) expected_params.push_back(drop_leading(init));
    states.push_back(drop_leading(init));
  }
  for (std::int64_t i = 0; i < spec.num_sitsot; ++i) {
    expected_params.push_back(tensor(kind, xs, at));
    states.push_back(tensor(kind, xs, at++));
  }
  for (std::int64_t i = 0; i < spec.num_nonsequences; ++i)
    expected_params.push_back(tensor(kind, xs, at++));

  check_scan_body(spec, params, expected_params, outs, states);
  const std::size_t nout = static_cast<std::size_t>(spec.num_outputs());
  if (!spec.keep.empty() && spec.keep.size() != nout)
    throw TypeError(fmt::format("scan: :keep needs one entry per output ({})", nout));
  for (auto k : spec.keep)
    if (k < 0) throw TypeError("scan: :keep entries must be `all` or >= 1");
  // Keeping every step is the default: store it as no :keep so both intern alike.
  if (std::ranges::all_of(spec.keep, [](std::int64_t k) { return k == 0; })) {
    spec.keep.clear();
    attrs.set(AttrKey::Scan, spec);
  }

  TupleType result;
  for (std::size_t i = 0; i < nout; ++i) {
    std::int64_t len = (steps && !spec.until) ? *steps : kUnknownDim;
    const std::int64_t keep = spec.keep.empty() ? 0 : spec.keep[i];
    if (keep > 0 && len != kUnknownDim) len = std::min(len, keep);
    result.elements.push_back(with_leading(len, i < states.size() ? states[i] : outs.elements[i]));
  }
  return result;
}

Type call_rule(OpKind kind, Attrs&, std::span<const TermRef> xs) {
  const TupleType& outs = body_outputs(kind, xs[0]);
  const auto& params = body_params(xs[0]);
  if (params.size() != xs.size() - 1)
    throw TypeError(fmt::format("call: the function takes {} argument{}, got {}", params.size(),
                                params.size() == 1 ? "" : "s", xs.size() - 1));
  for (std::size_t i = 0; i < params.size(); ++i)
    if (!compatible(params[i], tensor(kind, xs, i + 1)))
      throw TypeError(fmt::format("call: argument {} has type {}, the parameter has type {}", i + 1,
                                  to_string(tensor(kind, xs, i + 1)), to_string(params[i])))
          .about_operand(static_cast<int>(i + 1));
  if (outs.elements.size() == 1) return outs.elements[0];
  return outs;
}

Type get_rule(OpKind, Attrs& attrs, std::span<const TermRef> xs) {
  if (!xs[0]->is_tuple() || xs[0]->kind() == OpKind::Fn)
    throw TypeError("get: operand is not a tuple").about_operand(0);
  const auto& elements = std::get<TupleType>(xs[0]->type()).elements;
  const std::int64_t i = int_attr(OpKind::Get, attrs, AttrKey::Index);
  if (i < 0 || i >= static_cast<std::int64_t>(elements.size()))
    throw TypeError(fmt::format("get: index {} out of range for a tuple of {}", i, elements.size()))
        .about_attr(AttrKey::Index);
  return elements[i];
}

Type grad_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  // `:checkpoint K` (an addition to docs/language.md): loops on the path store
  // one state every K steps; 0, the default, is stored as no attribute.
  if (attrs.has(AttrKey::Checkpoint)) {
    const std::int64_t k = int_attr(kind, attrs, AttrKey::Checkpoint);
    if (k < 0)
      throw TypeError(":checkpoint must be >= 1 (steps per segment)")
          .about_attr(AttrKey::Checkpoint);
    if (k == 0) attrs.erase(AttrKey::Checkpoint);
  }
  const TensorType& cost = tensor(kind, xs, 0);
  if (!cost.is_scalar() || !is_float(cost.dtype))
    throw TypeError(fmt::format("grad: the cost must be a float scalar, got {}", to_string(cost)))
        .about_operand(0);
  if (xs[1]->kind() != OpKind::Input && xs[1]->kind() != OpKind::Nominal)
    throw TypeError("grad: WRT must name a graph input or a parameter of the enclosing body")
        .about_operand(1);
  const TensorType& wrt = tensor(kind, xs, 1);
  try {
    require_float(kind, wrt, "WRT");
  } catch (TypeError& e) {
    throw e.about_operand(1);
  }
  return wrt;
}

}  // namespace eqsat::ops::type_rules
