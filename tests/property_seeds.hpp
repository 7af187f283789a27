// How many seeds a long property test runs. All of them normally; under the
// sanitizers, where each seed runs several times slower, .ci/sanitize sets
// EQSAT_PROPERTY_SEEDS_PERCENT so that the suite fits CI's time limit while
// every property is still checked on some seeds.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace eqsat::testing {

// `all` scaled by EQSAT_PROPERTY_SEEDS_PERCENT (1..100, default 100), at
// least 1. A value that is not a number in 1..100 is ignored.
inline std::uint64_t property_seeds(std::uint64_t all) {
  const char* text = std::getenv("EQSAT_PROPERTY_SEEDS_PERCENT");
  if (text == nullptr) return all;
  char* end = nullptr;
  const long percent = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || percent < 1 || percent > 100) return all;
  return std::max<std::uint64_t>(1, all * static_cast<std::uint64_t>(percent) / 100);
}

}  // namespace eqsat::testing
