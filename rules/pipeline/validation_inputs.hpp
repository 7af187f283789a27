// The random input sets of `--validate` (validate.hpp): values a user's
// inputs may take that rewrites get wrong most often — 0, −0, ±1, large
// values, ±∞ and NaN where the dtype has them — and unknown dimensions
// given 1 (broadcasting at run time) or 0 (empty arrays) as well as an
// ordinary length.
//
//   ValidationInputs draw(graph, {}, seed);
//   std::vector<ops::Array> set0 = draw.input_set(0);   // in graph.inputs order
//   std::string what = draw.describe(set0);               // "x = (f64 3) [0 1 -inf]"
#pragma once

#include "ops/array.hpp"
#include "ops/graph.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::rules {

// Set 0 is ordinary: floats uniform in [−2, 2], integers in [−3, 3],
// unknown dimensions 3. Set k ≥ 1 mixes in edge values (about one element
// in three: 0, −0, ±1, ±1000, the dtype's ±largest finite value, ±∞ and
// NaN for floats; 0, ±1, ±1000 for integers, kept small so that a
// run-time step count or length stays cheap) and gives its unknown
// dimensions, by k mod 3, 1, 0 or 3, each unknown dimension of set k ≥ 3
// being 1 instead one time in four (broadcasting at run time). Inputs with
// a fixed value (`run --input`) keep it in every set; values a graph loads
// are constants, not inputs, and are never drawn.
class ValidationInputs {
 public:
  // `fixed`: empty, or one entry per graph input (nullopt: draw it).
  ValidationInputs(const ops::Graph& graph, std::vector<std::optional<ops::Array>> fixed,
                   std::uint64_t seed);

  // Input set `k`, one array per graph input, in input order; the same
  // for the same k, graph, fixed values and seed.
  std::vector<ops::Array> input_set(std::size_t k) const;
  // The largest type each input takes in any set (unknown dimensions 3),
  // for a memory check before drawing.
  std::vector<ops::TensorType> largest_types() const;
  // True when some input is drawn (else every set is the same).
  bool random() const;
  // `NAME = TYPE [v0 v1 ...]` per input (at most 8 values each), joined by
  // "; ".
  std::string describe(const std::vector<ops::Array>& set) const;

 private:
  std::vector<ops::TermRef> inputs_;
  std::vector<std::optional<ops::Array>> fixed_;
  std::uint64_t seed_;
};

}  // namespace eqsat::rules
