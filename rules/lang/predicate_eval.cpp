#include "rules/lang/predicate_eval.hpp"

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

}  // namespace

std::vector<std::uint32_t> dtype_needs(std::span<const ast::Condition> conditions) {
  std::vector<std::uint32_t> needs;
  for (const ast::Condition& c : conditions) {
    std::uint32_t mask = 0;
    for (int i = 0; i < ops::kNumDTypes; ++i) {
      const auto d = static_cast<ops::DType>(i);
      const bool allowed = c.predicate == Predicate::Float     ? ops::is_float(d)
                           : c.predicate == Predicate::Integer ? ops::is_integer(d)
                           : c.predicate == Predicate::Dtype   ? d == c.args[1].dtype
                                                               : true;
      if (allowed) mask |= std::uint32_t{1} << i;
    }
    if (mask != (std::uint32_t{1} << ops::kNumDTypes) - 1) needs.push_back(mask);
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
      return ops::is_float(t.dtype);
    case Predicate::Integer:
      return ops::is_integer(t.dtype);
    case Predicate::Dtype:
      return t.dtype == args[1].dtype;
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
