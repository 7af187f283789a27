#include "cost_model.hpp"

#include "kernel_groups.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace eqsat::backend {

using ops::CostClass;
using ops::OpKind;

double CostModel::elements(const ops::TensorType& t) const {
  double n = 1;
  for (auto d : t.dims) n *= static_cast<double>(d == ops::kUnknownDim ? w_.unknown_dim : d);
  return n;
}

double CostModel::bytes(const ops::Type& t) const {
  if (auto* tensor = std::get_if<ops::TensorType>(&t))
    return elements(*tensor) * static_cast<double>(ops::dtype_size(tensor->dtype));
  double b = 0;
  for (const auto& e : std::get<ops::TupleType>(t).elements) b += bytes(e);
  return b;
}

std::int64_t CostModel::trip_count(const ops::Type& scan_result) const {
  const auto* tuple = std::get_if<ops::TupleType>(&scan_result);
  if (tuple && !tuple->elements.empty() && !tuple->elements[0].dims.empty() &&
      tuple->elements[0].dims[0] != ops::kUnknownDim)
    return tuple->elements[0].dims[0];
  return w_.unknown_trip_count;
}

std::int64_t CostModel::trip_count(const ops::ScanSpec& spec,
                                   std::span<const ops::Type> operand_types,
                                   const ops::Type& result, const StepBounds& n_steps) const {
  // An output keeping every step has one row per step.
  if (const auto* tuple = std::get_if<ops::TupleType>(&result); tuple && !spec.until)
    for (std::size_t o = 0; o < tuple->elements.size(); ++o) {
      const ops::Dims& d = tuple->elements[o].dims;
      const bool all = spec.keep.empty() || spec.keep[o] == 0;
      if (all && !d.empty() && d[0] != ops::kUnknownDim) return d[0];
    }
  std::int64_t steps = w_.unknown_trip_count;
  if (spec.has_n_steps) {
    const auto& [exact, at_most, at_least] = n_steps;
    if (exact)
      steps = *exact;
    else if (at_most && at_least)
      steps = (std::min(*at_least, *at_most) + *at_most) / 2;
    else
      steps = std::min(at_most.value_or(w_.unknown_trip_count), w_.unknown_trip_count);
  } else if (!spec.sequence_taps.empty()) {
    steps = std::numeric_limits<std::int64_t>::max();
    for (std::size_t i = 0; i < spec.sequence_taps.size(); ++i) {
      const auto* seq = 1 + i < operand_types.size()
                            ? std::get_if<ops::TensorType>(&operand_types[1 + i])
                            : nullptr;
      if (!seq || seq->dims.empty() || seq->dims[0] == ops::kUnknownDim) {
        steps = w_.unknown_trip_count;
        break;
      }
      steps =
          std::min(steps, std::max<std::int64_t>(0, seq->dims[0] - spec.sequence_taps[i].back()));
    }
  }
  // An :until loop may stop early: its bound, at most the unknown count.
  return spec.until ? std::min(steps, w_.unknown_trip_count) : steps;
}

std::int64_t CostModel::trip_count(ops::TermRef scan) const {
  const auto& spec = scan->attrs().get<ops::ScanSpec>(ops::AttrKey::Scan);
  std::vector<ops::Type> operand_types;
  for (ops::TermRef t : scan->operands()) operand_types.push_back(t->type());
  StepBounds n_steps;
  if (spec.has_n_steps) {
    const auto constant = [](ops::TermRef t) -> std::optional<std::int64_t> {
      const ops::Array* a = t->const_value();
      return a && a->rank() == 0 ? a->integer_element(0) : std::nullopt;
    };
    const auto forms = [](ops::TermRef t, const auto& f) { f(t->kind(), t->operands()); };
    n_steps = StepBounds::read(scan->operand(1), constant, forms);
  }
  return trip_count(spec, operand_types, scan->type(), n_steps);
}

double CostModel::scan_cost(std::int64_t trips, const ops::ScanSpec& spec, const ops::Type& result,
                            std::span<const ops::Type> operand_types) const {
  double copied = 0;  // bytes of sequence rows read per step
  const std::size_t first_sequence = 1 + (spec.has_n_steps ? 1 : 0);
  for (std::size_t i = 0; i < spec.sequence_taps.size(); ++i) {
    if (first_sequence + i >= operand_types.size()) break;
    const auto& seq = std::get<ops::TensorType>(operand_types[first_sequence + i]);
    if (seq.dims.empty()) continue;
    const ops::TensorType row{seq.dtype, ops::Dims(seq.dims.begin() + 1, seq.dims.end())};
    copied += static_cast<double>(spec.sequence_taps[i].size()) * bytes(row);
  }
  double stored = 0;
  if (const auto* tuple = std::get_if<ops::TupleType>(&result))
    for (std::size_t o = 0; o < tuple->elements.size(); ++o) {
      const ops::TensorType& t = tuple->elements[o];
      if (t.dims.empty()) continue;
      ops::TensorType row{t.dtype, ops::Dims(t.dims.begin() + 1, t.dims.end())};
      double rows = static_cast<double>(t.dims[0] == ops::kUnknownDim ? trips : t.dims[0]);
      if (!spec.keep.empty() && spec.keep[o] > 0)
        rows = std::min(rows, static_cast<double>(spec.keep[o]));
      stored += rows * bytes(row);
    }
  return w_.call_overhead_ns +
         (w_.scan_step_overhead_ns + 2 * w_.ns_per_byte * copied) * static_cast<double>(trips) +
         w_.ns_per_byte * stored;
}

double CostModel::op_cost(OpKind kind, std::span<const ops::Type> operand_types,
                          const ops::Type& result) const {
  const CostClass cost_class = ops::cost_class(kind);
  switch (cost_class) {
    case CostClass::Free:
      return 0;  // leaves, fn and get: bookkeeping only
    case CostClass::Never:
      return kInfiniteCost;
    case CostClass::Loop:
      return scan_cost(trip_count(result), ops::ScanSpec{}, result);
    case CostClass::Invoke:
      return w_.call_overhead_ns;
    case CostClass::Move:
    case CostClass::Flop:
    case CostClass::Flop4:
    case CostClass::Transc:
    case CostClass::Transc2:
    case CostClass::Select:
    case CostClass::Gemm:
      break;
  }
  // zeros_like and ones_like read only their operand's shape; an op whose
  // elements are operand 0's (Keeps) reads the others only for a shape
  // (broadcast_like's y) or one index.
  double moved = bytes(result);
  if (ops::op_info(kind).group != ops::OpGroup::Creation)
    for (std::size_t i = 0; i < operand_types.size(); ++i)
      if (i == 0 || !ops::keeps_elements(kind)) moved += bytes(operand_types[i]);
  return w_.call_overhead_ns + w_.ns_per_byte * moved + compute_ns(kind, operand_types, result);
}

double CostModel::compute_ns(OpKind kind, std::span<const ops::Type> operand_types,
                             const ops::Type& result) const {
  const CostClass cost_class = ops::cost_class(kind);
  const auto& out = std::get<ops::TensorType>(result);
  const double n_out = elements(out);
  const auto in_elements = [&](std::size_t i) {
    return elements(std::get<ops::TensorType>(operand_types[i]));
  };
  const bool transcendental = cost_class == CostClass::Transc;
  switch (ops::op_info(kind).group) {
    case ops::OpGroup::Unary:
    case ops::OpGroup::Binary:
    case ops::OpGroup::Select:
      return n_out * elementwise_flops(cost_class);
    case ops::OpGroup::Reduction:
      // logsumexp: a pass for the max, then exp and the sum.
      return in_elements(0) *
             (transcendental ? w_.ns_per_transcendental + 2 * w_.ns_per_flop : w_.ns_per_flop);
    case ops::OpGroup::Softmax:
      return in_elements(0) * (w_.ns_per_transcendental + 3 * w_.ns_per_flop);
    case ops::OpGroup::LinAlg: {
      // matmul: 2·m·n·k flops, k the contracted length.
      const auto& a = std::get<ops::TensorType>(operand_types[0]);
      const std::int64_t k = a.dims.back() == ops::kUnknownDim ? w_.unknown_dim : a.dims.back();
      return 2 * n_out * static_cast<double>(k) * w_.ns_per_gemm_flop;
    }
    case ops::OpGroup::Shape:
    case ops::OpGroup::Indexing:
    case ops::OpGroup::Creation:
      return 0;  // they only move memory
    case ops::OpGroup::Leaf:
    case ops::OpGroup::Control:
    case ops::OpGroup::Gradient:
      return 0;  // priced by their cost class (Free, Loop, Invoke, Never)
  }
  return 0;
}

double CostModel::elementwise_flops(CostClass cost_class) const {
  switch (cost_class) {
    case CostClass::Transc:
      return w_.ns_per_transcendental;
    case CostClass::Transc2:
      return w_.ns_per_pow;
    case CostClass::Select:
      return w_.ns_per_select;
    case CostClass::Flop4:
      return 4 * w_.ns_per_flop;
    case CostClass::Flop:
      return w_.ns_per_flop;
    case CostClass::Free:
    case CostClass::Move:
    case CostClass::Gemm:
    case CostClass::Loop:
    case CostClass::Invoke:
    case CostClass::Never:
      break;  // not the class of an op computed element by element
  }
  return w_.ns_per_flop;
}

std::optional<CostModel::FusedRole> CostModel::fused_role(OpKind kind, const ops::Attrs& attrs,
                                                          std::span<const ops::Type> operand_types,
                                                          const ops::Type& result) const {
  const auto* out = std::get_if<ops::TensorType>(&result);
  if (!out) return std::nullopt;
  if (ops::op_info(kind).group == ops::OpGroup::Reduction) {
    const auto& x = std::get<ops::TensorType>(operand_types[0]);
    const auto& axes = attrs.get<ops::IntList>(ops::AttrKey::Axis);
    if (!detail::fused_reduction(kind, axes, x.rank(), x.dtype, out->dtype)) return std::nullopt;
    double row = 1;  // the reduced length: the executor's rows
    for (std::int64_t a : axes) {
      const std::int64_t d = x.dims[static_cast<std::size_t>(a)];
      row *= static_cast<double>(d == ops::kUnknownDim ? w_.unknown_dim : d);
    }
    if (row < static_cast<double>(detail::kShortRow)) return std::nullopt;
    return FusedRole{out->dtype, true};
  }
  // Elementwise ops have at most three operands.
  if (!ops::is_elementwise(kind) || operand_types.size() > 3) return std::nullopt;
  std::array<ops::DType, 3> dtypes{};
  for (std::size_t i = 0; i < operand_types.size(); ++i) {
    const auto* o = std::get_if<ops::TensorType>(&operand_types[i]);
    if (!o) return std::nullopt;
    dtypes[i] = o->dtype;
  }
  const auto compute = detail::fused_compute_dtype(
      kind, std::span<const ops::DType>(dtypes.data(), operand_types.size()), out->dtype);
  if (!compute || elements(*out) < static_cast<double>(detail::kShortRow)) return std::nullopt;
  return FusedRole{*compute, false};
}

bool CostModel::reads_fused(const FusedRole& role, std::size_t i, const ops::Type& operand,
                            const ops::Type& result) {
  const auto* o = std::get_if<ops::TensorType>(&operand);
  if (!o) return false;
  if (role.reduction) return i == 0;
  return o->dims == std::get<ops::TensorType>(result).dims &&
         (o->dtype == role.compute || o->dtype == ops::DType::Bool);
}

double CostModel::fused_op_cost(OpKind kind, std::span<const ops::Type> operand_types,
                                const ops::Type& result, std::uint32_t fused_operands,
                                bool materialized) const {
  double moved = materialized ? bytes(result) : 0;
  for (std::size_t i = 0; i < operand_types.size(); ++i)
    if (!(fused_operands >> i & 1u)) moved += bytes(operand_types[i]);
  return (materialized ? w_.call_overhead_ns : 0) + w_.ns_per_byte * moved +
         compute_ns(kind, operand_types, result);
}

double CostModel::op_cost(ops::TermRef term) const {
  std::vector<ops::Type> operand_types;
  for (ops::TermRef t : term->operands()) operand_types.push_back(t->type());
  if (term->kind() == OpKind::Scan)
    return scan_cost(trip_count(term), term->attrs().get<ops::ScanSpec>(ops::AttrKey::Scan),
                     term->type(), operand_types);
  return op_cost(term->kind(), operand_types, term->type());
}

}  // namespace eqsat::backend
