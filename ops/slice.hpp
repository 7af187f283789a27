// Python slice semantics along one axis (`x[start:stop:step]`): negative
// indices count from the end, out-of-range bounds are clamped. Shared by
// static shape inference and the executor.
#pragma once

#include <cstdint>
#include <optional>

namespace eqsat::ops {

struct SliceBounds {
  std::optional<std::int64_t> start, stop, step;
};

// A slice resolved against a dimension of known length.
struct ResolvedSlice {
  std::int64_t start = 0;   // first index read
  std::int64_t step = 1;    // never 0
  std::int64_t length = 0;  // number of elements selected
};

// Resolves `b` for an axis of length `n`; `b.step` must not be 0.
ResolvedSlice resolve_slice(const SliceBounds& b, std::int64_t n);

// Whether `b` selects the whole axis whatever its length, in order (`step`
// 1) or reversed (`step` -1): only the bounds Python fills in.
bool selects_any_whole_axis(const SliceBounds& b, std::int64_t step);

}  // namespace eqsat::ops
