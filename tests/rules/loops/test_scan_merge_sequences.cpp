// scan-merge-sequences: a sequence given twice is read once, its taps
// joined; the trip count and the values do not change.
#include "tests/rules/loop_testing.hpp"

using namespace eqsat;
using namespace eqsat::testing;

TEST_CASE("a sequence given twice with the same taps is read once") {
  const ops::Graph g = graph(R"(
    (input xs (f64 6 3)) (input h0 (f64 3))
    (output (get 0 (scan :sequences (xs xs) :sit-sot (h0) (fn (a b h) (add h (mul a b)))))))");
  const auto loops = scans_in(optimize_and_compare(g));
  REQUIRE(loops.size() == 1);
  CHECK(spec_of(loops[0]).sequence_taps == std::vector<ops::IntList>{{0}});
  CHECK(num_params(loops[0]) == 2);
}

TEST_CASE("a sequence given twice with different taps is read once at the union of its taps") {
  const ops::Graph g = graph(R"(
    (input xs (f64 ? 3)) (input ys (f64 ? 3)) (input h0 (f64 3))
    (output (get 0 (scan :sequences ((xs :taps (0 1)) ys (xs :taps (1 2))) :sit-sot (h0)
      (fn (a0 a1 y b1 b2 h)
        (tanh (add (mul h a0) (add (mul h a1) (add (mul h y) (add (mul h b1) (mul h b2)))))))))))");
  const auto loops = scans_in(optimize_and_compare(g));
  REQUIRE(loops.size() == 1);
  CHECK(spec_of(loops[0]).sequence_taps == std::vector<ops::IntList>{{0, 1, 2}, {0}});
  CHECK(num_params(loops[0]) == 5);
}

// Each sequence element meets the state, so no work moves out of the loop.
TEST_CASE("different sequences are not merged") {
  const ops::Graph g = graph(R"(
    (input xs (f64 6 3)) (input zs (f64 6 3)) (input h0 (f64 3))
    (output (get 0 (scan :sequences (xs zs) :sit-sot (h0)
      (fn (a b h) (mul (tanh (add h a)) (tanh (sub h b))))))))");
  const auto loops = scans_in(optimize_and_compare(g));
  REQUIRE(loops.size() == 1);
  CHECK(spec_of(loops[0]).sequence_taps.size() == 2);
}
