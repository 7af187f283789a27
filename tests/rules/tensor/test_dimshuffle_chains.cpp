// The dimshuffle-chains built-in applier (rules/tensor/dimshuffle_chains.hpp):
// PyTensor's TestDimshuffleLift (double transpose, merge2, elim3, useless
// dimshuffles, dimshuffles on broadcastable axes) on operands of unknown
// lengths, and random chains of transpose, expand_dims and squeeze against
// the graph as written.
#include "tests/support/check_optimizes.hpp"

#include "tests/property_seeds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <random>

using namespace eqsat;
using namespace eqsat::testing;

TEST_CASE("dimshuffle-chains: PyTensor's TestDimshuffleLift", "[rules][dimshuffle-chains]") {
  const std::string in = "(input x (f64 ? ?))\n";
  // test_double_transpose
  check_optimizes(in + "(output (transpose (transpose x)))", in + "(output x)");
  // test_merge2: ds(ds(x, (1, x, 0)), (2, 0, x, 1)) = ds(x, (0, 1, x, x)):
  // two new axes after x's own (expand_dims at 2 then at 3, or twice at 2)
  const ops::Graph merge2 =
      optimized(graph(in + "(output (expand_dims (transpose (expand_dims "
                           "(transpose x) :axis 1) :perm (2 0 1)) :axis 2))"));
  CHECK(count_ops(merge2, ops::OpKind::Transpose) == 0);
  CHECK(count_ops(merge2, ops::OpKind::ExpandDims) == 2);
  CHECK(merge2.outputs[0].term->operand(0)->operand(0)->kind() == ops::OpKind::Input);
  // test_elim3: ds(ds(ds(x, (0, x, 1)), (2, 0, x, 1)), (1, 0)) = x; the
  // middle one drops the new axis (a squeeze in our terms)
  check_optimizes(in + "(output (transpose (squeeze (transpose (expand_dims x :axis 1) "
                       ":perm (2 0 1)) :axis 2)))",
                  in + "(output x)");
  check_optimizes(in + "(output (squeeze (expand_dims x :axis 1) :axis 1))", in + "(output x)");
  // test_dimshuffle_on_broadcastable: an axis of length 1 moved is useless
  // where it lands beside... nothing: ds(x, (0, x)) of an (n, 1) x is x.
  const std::string col = "(input c (f64 ? 1))\n";
  check_optimizes(col + "(output (expand_dims (squeeze c :axis 1) :axis 1))", col + "(output c)");
  check_optimizes(col + "(output (expand_dims (squeeze c :axis 1) :axis 0))",
                  col + "(output (transpose c))");
  check_same_values(shipped_rules(),
                    in + "(output (expand_dims (transpose (expand_dims (transpose x) :axis 1) "
                         ":perm (2 0 1)) :axis 2))",
                    {iota({2, 3})});
}

TEST_CASE("dimshuffle-chains: random chains equal the graph as written",
          "[rules][dimshuffle-chains]") {
  const std::uint64_t seeds = property_seeds(60);
  for (std::uint64_t seed = 0; seed < seeds; ++seed) {
    std::mt19937_64 rng(seed);
    // x is (2, 1, 3), written (f64 ? 1 ?): lengths 1 are known, others not.
    std::vector<std::int64_t> dims = {2, 1, 3};
    std::string term = "x";
    const int steps = std::uniform_int_distribution<int>(2, 5)(rng);
    for (int s = 0; s < steps; ++s) {
      const auto rank = static_cast<int>(dims.size());
      std::vector<int> ones;
      for (int a = 0; a < rank; ++a)
        if (dims[static_cast<std::size_t>(a)] == 1) ones.push_back(a);
      const int op = std::uniform_int_distribution<int>(0, 2)(rng);
      if (op == 0 && rank > 1) {
        std::vector<std::int64_t> perm(dims.size());
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng);
        std::vector<std::int64_t> next;
        for (auto p : perm) next.push_back(dims[static_cast<std::size_t>(p)]);
        dims = next;
        term = fmt::format("(transpose {} :perm ({}))", term, fmt::join(perm, " "));
      } else if (op == 1 || ones.empty() || rank == 1) {
        const int at = std::uniform_int_distribution<int>(0, rank)(rng);
        dims.insert(dims.begin() + at, 1);
        term = fmt::format("(expand_dims {} :axis {})", term, at);
      } else {
        const int at = ones[std::uniform_int_distribution<std::size_t>(0, ones.size() - 1)(rng)];
        dims.erase(dims.begin() + at);
        term = fmt::format("(squeeze {} :axis {})", term, at);
      }
    }
    const std::string text = "(input x (f64 ? 1 ?))\n(output " + term + ")";
    INFO("seed " << seed << ": " << text);
    check_same_values(shipped_rules(), text, {iota({2, 1, 3})});
    // One canonical chain: at most one squeeze and one transpose.
    const ops::Graph out = optimized(graph(text));
    CHECK(count_ops(out, ops::OpKind::Squeeze) <= 1);
    CHECK(count_ops(out, ops::OpKind::Transpose) <= 1);
  }
}
