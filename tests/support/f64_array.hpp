// Test helper: an f64 array of the given shape filled row-major from a
// list of values, for the rule tests' inputs.
#pragma once

#include "ops/array.hpp"

#include <vector>

namespace eqsat::testing {

inline ops::Array f64_array(ops::Dims dims, const std::vector<double>& v) {
  ops::Array a(ops::DType::F64, std::move(dims));
  for (std::size_t i = 0; i < v.size(); ++i) a.data<double>()[i] = v[i];
  return a;
}

}  // namespace eqsat::testing
