#include "slice.hpp"

#include <algorithm>

namespace eqsat::ops {

ResolvedSlice resolve_slice(const SliceBounds& b, std::int64_t n) {
  const std::int64_t step = b.step.value_or(1);
  const std::int64_t lower = step > 0 ? 0 : -1;
  const std::int64_t upper = step > 0 ? n : n - 1;
  auto clamp = [&](std::optional<std::int64_t> v, std::int64_t fallback) {
    if (!v) return fallback;
    const std::int64_t i = *v < 0 ? *v + n : *v;
    return std::clamp(i, lower, upper);
  };
  const std::int64_t start = clamp(b.start, step > 0 ? lower : upper);
  const std::int64_t stop = clamp(b.stop, step > 0 ? upper : lower);
  const std::int64_t span = step > 0 ? stop - start : start - stop;
  // Unsigned, and without rounding up by adding: any int64 step (INT64_MIN
  // included) is exact.
  const std::uint64_t abs_step =
      step > 0 ? static_cast<std::uint64_t>(step) : 0 - static_cast<std::uint64_t>(step);
  const auto count = span > 0 ? 1 + (static_cast<std::uint64_t>(span) - 1) / abs_step : 0;
  return {start, step, static_cast<std::int64_t>(count)};
}

bool selects_any_whole_axis(const SliceBounds& b, std::int64_t step) {
  const bool whole_start = !b.start || *b.start == (step == 1 ? 0 : -1);
  return b.step.value_or(1) == step && whole_start && !b.stop;
}

}  // namespace eqsat::ops
