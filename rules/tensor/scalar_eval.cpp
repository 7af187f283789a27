#include "rules/tensor/scalar_eval.hpp"

#include "rules/tensor/const_fold.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace eqsat::rules {

using ops::DType;
using ops::OpKind;

namespace {

// The value of `v` as C++ type T, as a cast to T's dtype would give.
template <class T>
T as(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_integral_v<T>) {
    if (!std::isfinite(v) || std::abs(v) >= 9.2e18) return std::numeric_limits<T>::min();
    // Truncate, then wrap to T's width.
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<std::int64_t>(std::trunc(v))));
  } else {
    return static_cast<T>(v);
  }
}

// `r`, unless it is an integer a double does not hold exactly (2^53 and
// beyond): the caller then knows no value rather than a rounded one.
std::optional<double> exact(std::optional<double> r, DType dtype) {
  if (r && ops::is_integer(dtype) && std::abs(*r) >= 0x1p53) return std::nullopt;
  return r;
}

}  // namespace

double convert_scalar(double value, DType dtype) {
  return ops::visit_dtype(
      dtype, [&]<class T>(std::type_identity<T>) { return static_cast<double>(as<T>(value)); });
}

std::optional<double> eval_scalar(OpKind kind, std::span<const TypedScalar> xs, DType result) {
  if (!ops::is_elementwise(kind)) return std::nullopt;
  // The executor's kernel on one-element arrays: its value, in every dtype.
  std::vector<ops::Array> values;
  std::vector<const ops::Array*> operands;
  for (const TypedScalar& x : xs) values.push_back(ops::Array::scalar(x.dtype, x.value));
  for (const ops::Array& v : values) operands.push_back(&v);
  ops::Attrs attrs;
  if (kind == OpKind::Cast) attrs.set(ops::AttrKey::Dtype, result);
  const auto folded = fold_constant(kind, attrs, operands, ops::TensorType{result, {}});
  if (!folded) return std::nullopt;
  return exact(folded->element(0), result);
}

}  // namespace eqsat::rules
