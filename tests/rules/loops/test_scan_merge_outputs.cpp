// scan-merge-outputs: two outputs of a loop holding the same values become
// one (then scan-remove-unused drops the other).
#include "tests/rules/loop_testing.hpp"

using namespace eqsat;
using namespace eqsat::testing;

TEST_CASE("two nit-sots returning the same value become one") {
  const ops::Graph g = graph(R"(
    (input xs (f64 6 3))
    (let s (scan :sequences (xs) :nit-sot 2 (fn (x) (exp x) (exp x))))
    (output (add (get 0 s) (get 1 s))))");
  optimize_and_compare(g);
  // The second nit-sot is the first; different values stay apart.
  CHECK(proves(R"(
    (input xs (f64 6 3))
    (let s (scan :sequences (xs) :nit-sot 2 (fn (x) (exp x) (exp x))))
    (output (get 1 s)) (output (get 0 s)))",
               {"scan-merge-outputs"}));
  CHECK_FALSE(proves(R"(
    (input xs (f64 6 3))
    (let s (scan :sequences (xs) :nit-sot 2 (fn (x) (exp x) (sin x))))
    (output (get 1 s)) (output (get 0 s)))",
                     {"scan-merge-outputs", "scan-remove-unused"}));
}

TEST_CASE("two sit-sots with the same start and the same recurrence become one") {
  const ops::Graph g = graph(R"(
    (input x0 (f64 3))
    (let s (scan :n-steps 5 :sit-sot (x0 x0) (fn (a b) (mul a 0.5) (mul b 0.5))))
    (output (sub (get 0 s) (exp (get 1 s)))))");
  const auto loops = scans_in(optimize_and_compare(g));
  REQUIRE(loops.size() == 1);
  CHECK(spec_of(loops[0]).num_sitsot == 1);
}

TEST_CASE("states with different starts or recurrences stay apart") {
  const ops::Graph g = graph(R"(
    (input x0 (f64 3)) (input y0 (f64 3))
    (let s (scan :n-steps 5 :sit-sot (x0 y0 x0) (fn (a b c) (mul a 0.5) (mul b 0.5) (mul c 0.25))))
    (output (add (get 0 s) (add (get 1 s) (get 2 s)))))");
  const auto loops = scans_in(optimize_and_compare(g));
  REQUIRE(loops.size() == 1);
  CHECK(spec_of(loops[0]).num_sitsot == 3);
}

// The nit-sots read the state, so they cannot move out of the loop.
TEST_CASE("nit-sots with different :keep stay apart") {
  const ops::Graph g = graph(R"(
    (input xs (f64 6 3)) (input h0 (f64 3))
    (let s (scan :sequences (xs) :sit-sot (h0) :nit-sot 2 :keep (all all 2)
      (fn (x h) (tanh (add h x)) (exp h) (exp h))))
    (output (get 1 s)) (output (get 2 s)))");
  const auto loops = scans_in(optimize_and_compare(g));
  REQUIRE(loops.size() == 1);
  CHECK(spec_of(loops[0]).num_nitsot == 2);
}
