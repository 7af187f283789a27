// Test helpers: values written into arrays element by element.
#pragma once

#include "ops/array.hpp"

#include <cmath>
#include <type_traits>

namespace eqsat::test {

// a's element i set to v converted to its dtype.
inline void set_element(ops::Array& a, std::int64_t i, double v) {
  ops::visit_dtype(a.dtype(), [&]<class T>(std::type_identity<T>) { a.data<T>()[i] = T(v); });
}

// An f64 array of `shape` holding sin(0.37 i) * scale.
inline ops::Array ramp(ops::Dims shape, double scale) {
  ops::Array a(ops::DType::F64, std::move(shape));
  for (std::int64_t i = 0; i < a.size(); ++i) a.data<double>()[i] = std::sin(i * 0.37) * scale;
  return a;
}

}  // namespace eqsat::test
