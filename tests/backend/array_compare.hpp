// Test helper: compares two arrays the way the backend's tests want —
// dtype and shape exactly, integers and bools exactly, floats within
// tolerances (f64: 1e-10 relative + 1e-12 absolute; f32: 2e-5 + 1e-6),
// NaN equal to NaN and infinities equal to themselves.
#pragma once

#include "ops/array.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>

namespace eqsat::test {

// "" when equal, else a description of the first difference.
inline std::string compare_arrays(const ops::Array& got, const ops::Array& want,
                                  double scale = 1.0) {
  if (got.dtype() != want.dtype())
    return fmt::format("dtype {} != {}", ops::dtype_name(got.dtype()),
                       ops::dtype_name(want.dtype()));
  if (got.shape() != want.shape())
    return fmt::format("shape {} != {}", ops::dims_to_string(got.shape()),
                       ops::dims_to_string(want.shape()));
  const bool f32 = got.dtype() == ops::DType::F32;
  const double rtol = (f32 ? 2e-5 : 1e-10) * scale, atol = (f32 ? 1e-6 : 1e-12) * scale;
  for (std::int64_t i = 0; i < got.size(); ++i) {
    const double g = got.element(i), w = want.element(i);
    bool same = g == w || (std::isnan(g) && std::isnan(w));
    if (!same && ops::is_float(got.dtype()) && std::isfinite(g) && std::isfinite(w))
      same = std::abs(g - w) <= atol + rtol * std::abs(w);
    if (!same) return fmt::format("element {}: got {}, want {}", i, g, w);
  }
  return "";
}

}  // namespace eqsat::test
