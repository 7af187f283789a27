#include "dtype.hpp"

#include <algorithm>
#include <array>

namespace eqsat::ops {

namespace {
constexpr std::array<std::string_view, kNumDTypes> kNames = {"bool", "i32", "i64", "f32", "f64"};
}

std::string_view dtype_name(DType d) {
  return kNames[static_cast<int>(d)];
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (kNames[i] == name) return static_cast<DType>(i);
  return std::nullopt;
}

std::size_t dtype_size(DType d) {
  return visit_dtype(d, []<class T>(std::type_identity<T>) { return sizeof(T); });
}

DType promote(DType a, bool a_weak, DType b, bool b_weak) {
  if (a_weak && b_weak) return (is_float(a) || is_float(b)) ? DType::F64 : DType::I64;
  if (a_weak) std::swap(a, b);
  if (a_weak || b_weak) {  // a strong, b weak
    if (is_float(b) && !is_float(a)) return DType::F64;
    if (b == DType::Bool || a != DType::Bool) return a;
    return b == DType::I32 ? DType::I32 : DType::I64;  // int literal meets bool
  }
  return std::max(a, b);
}

}  // namespace eqsat::ops
