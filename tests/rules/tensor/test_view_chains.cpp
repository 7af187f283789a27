// The view-chains built-in applier (rules/tensor/view_chains.hpp):
// PyTensor's test_shape.py reshape fusion (reshape, squeeze and expand_dims
// chains are one reshape) and test_subtensor.py's subtensor merge (slice of
// a slice, index of a slice are one read; a whole reversed slice is flip),
// on fixed cases and on random pairs of slices against the graph as written.
#include "tests/support/check_optimizes.hpp"

#include "tests/property_seeds.hpp"

#include <fmt/format.h>

#include <random>

using namespace eqsat;
using namespace eqsat::testing;

namespace {

// `:start S :stop E :step K`, each present or not, drawn in -8..8.
std::string random_bounds(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> coin(0, 2), bound(-8, 8), step(-3, 3);
  std::string out;
  if (coin(rng)) out += fmt::format(" :start {}", bound(rng));
  if (coin(rng)) out += fmt::format(" :stop {}", bound(rng));
  int k = 0;
  while (k == 0) k = step(rng);
  if (coin(rng)) out += fmt::format(" :step {}", k);
  return out;
}
}  // namespace

TEST_CASE("view-chains: reshape, squeeze and expand_dims chains are one reshape",
          "[rules][view-chains]") {
  const std::string in = "(input x (f64 2 3 4))\n";
  check_optimizes(in + "(output (reshape (reshape x :shape (6 4)) :shape (4 6)))",
                  in + "(output (reshape x :shape (4 6)))");
  check_optimizes(in + "(output (squeeze (expand_dims (reshape x :shape (6 4)) :axis 0) :axis 0))",
                  in + "(output (reshape x :shape (6 4)))");
  check_optimizes(in + "(output (expand_dims (reshape x :shape (24)) :axis 1))",
                  in + "(output (reshape x :shape (24 1)))");
  check_same_values(shipped_rules(), in + "(output (expand_dims (reshape x :shape (24)) :axis 1))",
                    {iota({2, 3, 4})});
}

TEST_CASE("view-chains: slice of a slice, index of a slice, reversed slices",
          "[rules][view-chains]") {
  const std::string in = "(input x (f64 10 3))\n";
  check_optimizes(in + "(output (slice (slice x :start 2) :start 1 :stop 5))",
                  in + "(output (slice x :start 3 :stop 7 :step 1))");
  check_optimizes(in + "(output (index (slice x :start 2 :step 3) 2))",
                  in + "(output (index x 8))");
  check_optimizes(in + "(output (slice x :step -1))", in + "(output (flip x :axis 0))");
  // index out of the slice's range: the read (and its error) stays
  CHECK(count_ops(optimized(graph(in + "(output (index (slice x :start 8) 2))")),
                  ops::OpKind::Slice) == 1);
  std::mt19937_64 rng(26);
  const auto trials = property_seeds(60);
  for (std::uint64_t t = 0; t < trials; ++t) {
    const std::string g =
        in + fmt::format("(output (slice (slice x{}){}))", random_bounds(rng), random_bounds(rng));
    INFO(g);
    CHECK(count_ops(optimized(graph(g)), ops::OpKind::Slice) <= 1);
    check_same_values(shipped_rules(), g, {iota({10, 3})});
  }
}
