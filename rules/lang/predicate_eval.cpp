#include "rules/lang/predicate_eval.hpp"

#include <optional>

namespace eqsat::rules {

namespace {

bool is_identity_matrix(const ops::Array& a) {
  if (a.rank() != 2 || a.shape()[0] != a.shape()[1]) return false;
  const std::int64_t n = a.shape()[0];
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      if (a.element(i * n + j) != (i == j ? 1.0 : 0.0)) return false;
  return true;
}

bool all_elements(const ops::Array& a, bool (*pred)(double)) {
  for (std::int64_t i = 0; i < a.size(); ++i)
    if (!pred(a.element(i))) return false;
  return true;
}

// Whether predicate p, when it depends on its first argument's dtype
// alone, holds for dtype d (`named`: a `dtype` condition's second
// argument); nullopt for every other predicate. evaluate and dtype_needs
// both ask it, so each such fact is written once.
std::optional<bool> holds_for_dtype(Predicate p, ops::DType d, ops::DType named) {
  switch (p) {
    case Predicate::Float:
      return ops::is_float(d);
    case Predicate::Integer:
      return ops::is_integer(d);
    case Predicate::Dtype:
      return d == named;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::vector<std::uint32_t> dtype_needs(std::span<const ast::Condition> conditions) {
  std::vector<std::uint32_t> needs;
  for (const ast::Condition& c : conditions) {
    const ops::DType named = c.args.size() > 1 ? c.args[1].dtype : ops::DType{};
    if (!holds_for_dtype(c.predicate, named, named)) continue;  // not a dtype predicate
    std::uint32_t mask = 0;
    for (int i = 0; i < ops::kNumDTypes; ++i)
      if (const auto d = static_cast<ops::DType>(i); *holds_for_dtype(c.predicate, d, named))
        mask |= dtype_bit(d);
    needs.push_back(mask);
  }
  return needs;
}

bool evaluate(Predicate p, std::span<const PredicateArg> args, const TensorEGraph& g) {
  const TensorData& x = g.data(args[0].eclass);
  const egraph::EGraph& eg = g.egraph();
  auto second = [&]() -> const TensorData& { return g.data(args[1].eclass); };
  auto same_class = [&] { return eg.find(args[0].eclass) == eg.find(args[1].eclass); };
  if (!x.is_tensor()) return false;
  const ops::TensorType& t = x.tensor_type();
  switch (p) {
    case Predicate::Const:
      return x.value.has_value();
    case Predicate::Uniform:
      return x.uniform.has_value();
    case Predicate::Finite:
      return x.finite;
    case Predicate::Zero:
      if (x.uniform) return *x.uniform == 0;
      return x.value && all_elements(*x.value, [](double v) { return v == 0; });
    case Predicate::Nonzero:
      if (x.uniform) return *x.uniform != 0;
      return x.value && all_elements(*x.value, [](double v) { return v != 0; });
    case Predicate::Positive:
      if (x.uniform) return *x.uniform > 0;
      return x.value && all_elements(*x.value, [](double v) { return v > 0; });
    case Predicate::Nonneg:
      return x.nonneg;
    case Predicate::Identity:
      return x.value && is_identity_matrix(*x.value);
    case Predicate::SameType: {
      if (!second().is_tensor()) return false;
      const ops::TensorType& u = second().tensor_type();
      if (u.dtype != t.dtype || u.rank() != t.rank()) return false;
      if (same_class()) return true;
      for (std::size_t i = 0; i < t.dims.size(); ++i)
        if (!same_length(x, i, second(), i)) return false;
      return true;
    }
    case Predicate::SameDtype:
      return second().is_tensor() && second().tensor_type().dtype == t.dtype;
    case Predicate::BroadcastsTo:
      if (!second().is_tensor()) return false;
      return same_class() || broadcasts_to(x, second());
    case Predicate::Ndim:
      return t.rank() == args[1].int_value;
    case Predicate::NdimAtLeast:
      return t.rank() >= args[1].int_value;
    case Predicate::Scalar:
      return t.is_scalar();
    case Predicate::ShapeKnown:
      return t.is_static();
    case Predicate::Float:
    case Predicate::Integer:
    case Predicate::Dtype:
      return *holds_for_dtype(p, t.dtype, args.size() > 1 ? args[1].dtype : ops::DType{});
    case Predicate::Closed:
      return x.free_nominals.empty();
    case Predicate::InBounds: {
      if (!x.value || !t.is_scalar() || !ops::is_integer(t.dtype) || !second().is_tensor())
        return false;
      const ops::Dims& dims = second().tensor_type().dims;
      if (dims.empty() || dims[0] == ops::kUnknownDim) return false;
      const double i = x.value->element(0);
      return i >= -static_cast<double>(dims[0]) && i < static_cast<double>(dims[0]);
    }
  }
  return false;
}

}  // namespace eqsat::rules
