// CLI11 checks of numeric options with messages a user can act on
// (`--node-limit: expected a whole number from 1 to 1000000000000, got 0`)
// instead of CLI11's ranges over doubles, which print 300-digit bounds and
// let NaN through.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>

namespace eqsat::tools {

// A whole number from `min` to `max` (no sign where min >= 0, no fraction).
CLI::Validator whole_number_in(std::int64_t min, std::int64_t max);

// A seed: a whole number from 0 to 2^64 - 1, written in digits (not -1,
// which CLI11 would wrap around, nor 1e23, which it would round).
CLI::Validator seed_number();

// A finite number of seconds greater than 0: not NaN, inf, 0 or negative.
CLI::Validator positive_seconds();

}  // namespace eqsat::tools
