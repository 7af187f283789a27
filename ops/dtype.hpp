// Element types of the tensor language: bool i32 i64 f32 f64, their C++
// storage, NumPy-style promotion with weak literals, and a visitor that
// turns a run-time dtype into a compile-time element type.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace eqsat::ops {

// Ordered by promotion rank: the later of two wins.
enum class DType : std::uint8_t { Bool, I32, I64, F32, F64 };

inline constexpr int kNumDTypes = 5;

std::string_view dtype_name(DType d);
std::optional<DType> parse_dtype(std::string_view name);
std::size_t dtype_size(DType d);

inline bool is_float(DType d) {
  return d == DType::F32 || d == DType::F64;
}
inline bool is_integer(DType d) {
  return d == DType::I32 || d == DType::I64;
}

// Promotion of two operands (docs/language.md): the later dtype wins. A weak
// operand (a numeric literal) takes the dtype of a strong one, except that a
// float literal meeting an integer or bool array gives f64. Two weak operands
// give i64 or f64.
DType promote(DType a, bool a_weak, DType b, bool b_weak);
inline DType promote(DType a, DType b) {
  return promote(a, false, b, false);
}

// The dtype that float-valued functions (exp, log, mean, ...) return.
inline DType float_result(DType d) {
  return is_float(d) ? d : DType::F64;
}

// The C++ element type of each dtype.
template <DType D>
struct CType;
template <>
struct CType<DType::Bool> {
  using type = bool;
};
template <>
struct CType<DType::I32> {
  using type = std::int32_t;
};
template <>
struct CType<DType::I64> {
  using type = std::int64_t;
};
template <>
struct CType<DType::F32> {
  using type = float;
};
template <>
struct CType<DType::F64> {
  using type = double;
};
template <DType D>
using ctype_t = typename CType<D>::type;

template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<bool>() {
  return DType::Bool;
}
template <>
constexpr DType dtype_of<std::int32_t>() {
  return DType::I32;
}
template <>
constexpr DType dtype_of<std::int64_t>() {
  return DType::I64;
}
template <>
constexpr DType dtype_of<float>() {
  return DType::F32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::F64;
}

// Calls f(std::type_identity<T>{}) with T the element type of d.
template <class F>
decltype(auto) visit_dtype(DType d, F&& f) {
  switch (d) {
    case DType::Bool:
      return f(std::type_identity<bool>{});
    case DType::I32:
      return f(std::type_identity<std::int32_t>{});
    case DType::I64:
      return f(std::type_identity<std::int64_t>{});
    case DType::F32:
      return f(std::type_identity<float>{});
    case DType::F64:
      break;
  }
  return f(std::type_identity<double>{});
}

}  // namespace eqsat::ops
