#include "ops/run_time_failure.hpp"

#include "ops/post_order.hpp"
#include "ops/slice.hpp"

#include <algorithm>
#include <optional>
#include <variant>

namespace eqsat::ops {

namespace {

const TensorType* tensor_of(const Type* t) {
  return t ? std::get_if<TensorType>(t) : nullptr;
}

std::optional<std::int64_t> int_value(const Array* a) {
  if (!a || a->size() != 1 || !is_integer(a->dtype())) return std::nullopt;
  return a->integer_element(0);
}

// Broadcasting the operands provably succeeds: along each axis (aligned
// from the right) at most one length other than 1, and an unknown length
// only beside lengths of 1.
bool broadcast_proven(std::span<const Type* const> types) {
  std::size_t rank = 0;
  for (const Type* t : types) {
    const TensorType* x = tensor_of(t);
    if (!x) return false;
    rank = std::max(rank, x->dims.size());
  }
  for (std::size_t i = 0; i < rank; ++i) {
    std::optional<std::int64_t> known;
    int unknown = 0;
    for (const Type* t : types) {
      const Dims& d = tensor_of(t)->dims;
      if (i >= d.size()) continue;
      const std::int64_t n = d[d.size() - 1 - i];
      if (n == kUnknownDim) {
        ++unknown;
      } else if (n != 1) {
        if (known && *known != n) return false;
        known = n;
      }
    }
    if (unknown > 1 || (unknown == 1 && known)) return false;
  }
  return true;
}

// `value` provably broadcasts to `target` (a region being written).
bool fits(const Dims& value, const Dims& target) {
  if (value.size() > target.size()) return false;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::int64_t v = value[value.size() - 1 - i], t = target[target.size() - 1 - i];
    if (v != 1 && (v == kUnknownDim || v != t)) return false;
  }
  return true;
}

// Index `i` provably in range for an axis of length n.
bool index_in_range(const Dims& x, const Array* i) {
  const auto v = int_value(i);
  return !x.empty() && x[0] != kUnknownDim && v && *v >= -x[0] && *v < x[0];
}

// A slice op's region of `x`: x with its axis resolved, when x is static.
std::optional<Dims> slice_region(const Attrs& attrs, const Dims& x) {
  if (std::ranges::count(x, kUnknownDim) > 0) return std::nullopt;
  SliceBounds b;
  if (attrs.has(AttrKey::Start)) b.start = attrs.get<std::int64_t>(AttrKey::Start);
  if (attrs.has(AttrKey::Stop)) b.stop = attrs.get<std::int64_t>(AttrKey::Stop);
  if (attrs.has(AttrKey::Step)) b.step = attrs.get<std::int64_t>(AttrKey::Step);
  const auto axis = static_cast<std::size_t>(attrs.get<std::int64_t>(AttrKey::Axis));
  Dims region = x;
  region[axis] = resolve_slice(b, x[axis]).length;
  return region;
}

bool all_static(std::span<const Type* const> types) {
  return std::ranges::all_of(types, [](const Type* t) {
    if (const TensorType* x = tensor_of(t)) return x->is_static();
    if (const auto* tuple = std::get_if<TupleType>(t))
      return std::ranges::all_of(tuple->elements,
                                 [](const TensorType& e) { return e.is_static(); });
    return false;
  });
}

// Every length of `types` (tensors of one rank) but those of axis `axis` is
// static and the same in all of them.
bool static_beside(std::span<const Type* const> types, std::int64_t axis) {
  const TensorType* first = tensor_of(types[0]);
  return first && std::ranges::all_of(types, [&](const Type* t) {
           const TensorType* x = tensor_of(t);
           if (!x || x->dims.size() != first->dims.size()) return false;
           for (std::size_t a = 0; a < x->dims.size(); ++a)
             if (static_cast<std::int64_t>(a) != axis &&
                 (x->dims[a] == kUnknownDim || x->dims[a] != first->dims[a]))
               return false;
           return true;
         });
}

// A loop provably runs its steps: a step count given by :n-steps is a
// known constant that every sequence (of static length) allows, and every
// mit-sot's initial history has a static length (the type rule compared
// it with the taps). Not covered: a body output whose run-time shape
// differs from its state's where their static types have unknown lengths.
bool scan_proven(const Attrs& attrs, std::span<const Type* const> types,
                 std::span<const Array* const> values) {
  const auto& spec = attrs.get<ScanSpec>(AttrKey::Scan);
  std::size_t at = 1;
  std::optional<std::int64_t> steps;
  if (spec.has_n_steps) {
    steps = int_value(values[at++]);
    if (!steps || *steps < 0) return false;
  }
  for (const IntList& taps : spec.sequence_taps) {
    const TensorType* seq = tensor_of(types[at++]);
    if (!seq) return false;
    const std::int64_t rows = seq->dims[0];
    if (steps && (rows == kUnknownDim || rows - taps.back() < *steps)) return false;
  }
  for (std::size_t m = 0; m < spec.mitsot_taps.size(); ++m) {
    const TensorType* init = tensor_of(types[at++]);
    if (!init || init->dims[0] == kUnknownDim) return false;
  }
  return true;
}

}  // namespace

bool may_fail(OpKind kind, const Attrs& attrs, std::span<const Type* const> types,
              std::span<const Array* const> values) {
  const TensorType* x = types.empty() ? nullptr : tensor_of(types[0]);
  switch (kind) {
    case OpKind::Input:
    case OpKind::Nominal:
    case OpKind::Const:
    case OpKind::Neg:
    case OpKind::Abs:
    case OpKind::Sign:
    case OpKind::Square:
    case OpKind::Exp:
    case OpKind::Expm1:
    case OpKind::Log:
    case OpKind::Log1p:
    case OpKind::Sqrt:
    case OpKind::Reciprocal:
    case OpKind::Sin:
    case OpKind::Cos:
    case OpKind::Tanh:
    case OpKind::Erf:
    case OpKind::Sigmoid:
    case OpKind::Softplus:
    case OpKind::Log1mexp:
    case OpKind::Floor:
    case OpKind::Ceil:
    case OpKind::LogicalNot:
    case OpKind::Cast:
    case OpKind::Sum:
    case OpKind::Prod:
    case OpKind::Mean:
    case OpKind::Logsumexp:
    case OpKind::Softmax:
    case OpKind::LogSoftmax:
    case OpKind::Transpose:
    case OpKind::ExpandDims:
    case OpKind::Flip:
    case OpKind::Dim:
    case OpKind::Slice:
    case OpKind::Zeros:
    case OpKind::Ones:
    case OpKind::Full:
    case OpKind::ZerosLike:
    case OpKind::OnesLike:
    case OpKind::Fn:
    case OpKind::Get:
    case OpKind::Grad:
      return false;
    case OpKind::Pow:  // an integer to a negative integer power fails
      if (x && is_integer(x->dtype)) {
        const Array* e = values.size() > 1 ? values[1] : nullptr;
        if (!e) return true;
        for (std::int64_t i = 0; i < e->size(); ++i)
          if (e->element(i) < 0) return true;
      }
      return !broadcast_proven(types);
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::Maximum:
    case OpKind::Minimum:
    case OpKind::Logaddexp:
    case OpKind::Hypot:
    case OpKind::Eq:
    case OpKind::Ne:
    case OpKind::Lt:
    case OpKind::Le:
    case OpKind::Gt:
    case OpKind::Ge:
    case OpKind::LogicalAnd:
    case OpKind::LogicalOr:
    case OpKind::Where:
    case OpKind::BroadcastLike:
      return !broadcast_proven(types);
    case OpKind::Max:
    case OpKind::Min:  // no identity: an empty axis fails
      if (!x) return true;
      for (std::int64_t a : attrs.get<IntList>(AttrKey::Axis))
        if (x->dims[static_cast<std::size_t>(a)] == kUnknownDim ||
            x->dims[static_cast<std::size_t>(a)] == 0)
          return true;
      return false;
    case OpKind::Concat:  // one operand has nothing to agree with
      return types.size() > 1 && !static_beside(types, attrs.get<std::int64_t>(AttrKey::Axis));
    case OpKind::Stack:
      return types.size() > 1 && !all_static(types);
    case OpKind::Dot:
    case OpKind::Reshape:
      return !all_static(types);  // the type rule checked static shapes
    case OpKind::Squeeze:
      if (!x) return true;
      for (std::int64_t a : attrs.get<IntList>(AttrKey::Axis))
        if (x->dims[static_cast<std::size_t>(a)] != 1) return true;
      return false;
    case OpKind::BroadcastTo:
      return !x || !fits(x->dims, attrs.get<IntList>(AttrKey::Shape));
    case OpKind::Index:
      return !x || !index_in_range(x->dims, values.size() > 1 ? values[1] : nullptr);
    case OpKind::SetIndex:
    case OpKind::IncIndex: {
      const TensorType* v = types.size() > 2 ? tensor_of(types[2]) : nullptr;
      if (!x || !v || !index_in_range(x->dims, values[1])) return true;
      return !fits(v->dims, Dims(x->dims.begin() + 1, x->dims.end()));
    }
    case OpKind::SetSlice:
    case OpKind::IncSlice: {
      const TensorType* v = types.size() > 1 ? tensor_of(types[1]) : nullptr;
      if (!x || !v) return true;
      if (v->rank() == 0) return false;
      const auto region = slice_region(attrs, x->dims);
      return !region || !fits(v->dims, *region);
    }
    case OpKind::ResizeRows: {  // fails on a negative row count
      const auto n = values.size() > 1 ? int_value(values[1]) : std::nullopt;
      return !n || *n < 0;
    }
    case OpKind::Arange: {  // fails on a negative or fractional length
      const Array* n = values.empty() ? nullptr : values[0];
      const auto length = n && n->size() == 1 ? n->integer_element(0) : std::nullopt;
      return !length || *length < 0;
    }
    case OpKind::Scan:
      return !scan_proven(attrs, types, values);
    case OpKind::Call:  // an argument less precise than its parameter is checked
      return types.empty() || !all_static(types.subspan(1));
  }
  return true;
}

bool TermFailures::operator()(TermRef t) {
  for_each_post_order(
      std::span(&t, 1), Bodies::Enter,
      [&](TermRef u) {
        std::vector<const Type*> types;
        std::vector<const Array*> values;
        bool fails = false;
        for (TermRef o : u->operands()) {
          types.push_back(&o->type());
          values.push_back(o->const_value());
          fails = fails || memo_.at(o);
        }
        memo_[u] = fails || may_fail(u->kind(), u->attrs(), types, values);
      },
      [&](TermRef u) { return !memo_.contains(u); });
  return memo_.at(t);
}

}  // namespace eqsat::ops
