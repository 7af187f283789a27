// The reduce-chain and reduce-chain-rounding built-in appliers
// (rules/tensor/reduce_chain.hpp) on random chains: two reductions of the
// same op over random axes of a rank-3 array (with and without keepdims)
// become one reduction — max and min on the default schedule, sum and prod
// under fast-math — and give the values of the graph as written.
#include "tests/support/check_optimizes.hpp"

#include "tests/property_seeds.hpp"

#include <fmt/format.h>

#include <array>
#include <limits>
#include <random>

using namespace eqsat;
using namespace eqsat::testing;

namespace {

// A random nonempty set of the axes 0..rank-1, written `(a b ...)`.
std::string random_axes(std::int64_t rank, std::mt19937_64& rng) {
  std::string out;
  while (out.empty())
    for (std::int64_t a = 0; a < rank; ++a)
      if (std::uniform_int_distribution<int>(0, 1)(rng)) out += fmt::format("{} ", a);
  return fmt::format("({})", out.substr(0, out.size() - 1));
}

ops::Array random_array(ops::Dims dims, std::mt19937_64& rng) {
  ops::Array a(ops::DType::F64, std::move(dims));
  std::uniform_real_distribution<double> u(-2, 2);
  for (std::int64_t i = 0; i < a.size(); ++i) a.data<double>()[i] = u(rng);
  return a;
}

}  // namespace

TEST_CASE("reduce-chain: random chains of two reductions are one", "[rules][reduce-chain]") {
  std::mt19937_64 rng(2026);
  const std::string in = "(input x (f64 2 3 4))\n";
  const auto trials = static_cast<int>(property_seeds(24));
  for (int trial = 0; trial < trials; ++trial) {
    const char* op = std::array{"max", "min", "sum", "prod"}[trial % 4];
    const bool keep = std::uniform_int_distribution<int>(0, 1)(rng) != 0;
    const std::string inner = random_axes(3, rng);
    const std::int64_t rank_left =
        keep ? 3 : 3 - static_cast<std::int64_t>(std::count(inner.begin(), inner.end(), ' ') + 1);
    if (rank_left == 0) continue;
    const std::string k = keep ? " :keepdims true" : "";
    const std::string g = in + fmt::format("(output ({} ({} x :axis {}{}) :axis {}{}))", op, op,
                                           inner, k, random_axes(rank_left, rng), k);
    INFO(g);
    const bool exact = trial % 4 < 2;
    const rules::RuleProgram& rules = exact ? shipped_rules() : fast_math_rules();
    const ops::Graph out = rules::optimize(graph(g), rules);
    const ops::OpKind kind = ops::parse_op(op).value();
    CHECK(count_ops(out, kind) == 1);
    ops::Array x = random_array({2, 3, 4}, rng);
    if (trial % 8 == 0) x.data<double>()[5] = std::numeric_limits<double>::quiet_NaN();
    check_same_values(rules, g, {x}, 1e-12);
  }
}

TEST_CASE("reduce-chain: over unit axes of unknown other lengths a reduction is a squeeze",
          "[rules][reduce-chain]") {
  const std::string in = "(input x (f64 ? 1 ?))\n";
  check_optimizes(in + "(output (max x :axis (1)))", in + "(output (squeeze x :axis (1)))");
  check_optimizes(in + "(output (mean x :axis (1)))", in + "(output (squeeze x :axis (1)))");
  ops::Array x(ops::DType::F64, {2, 1, 2});
  const double v[] = {1, std::numeric_limits<double>::quiet_NaN(),
                      -std::numeric_limits<double>::infinity(), 4};
  for (int i = 0; i < 4; ++i) x.data<double>()[i] = v[i];
  check_same_values(shipped_rules(), in + "(output (sum x :axis (1)))", {x});
}

TEST_CASE("reduce-chain: max and min over the axes a broadcast adds are the operand",
          "[rules][reduce-chain]") {
  // PyTensor's local_careduce_of_alloc: new leading axes and axes stretched from 1
  const std::string in = "(input x (f64 3 1))\n";
  check_optimizes(in + "(output (max (broadcast_to x :shape (4 3 5)) :axis (0 2)))",
                  in + "(output (squeeze x :axis (1)))");
  check_optimizes("(input x (f64 3)) (output (min (broadcast_to x :shape (5 3)) :axis (0)))",
                  "(input x (f64 3)) (output x)");
  ops::Array x(ops::DType::F64, {3, 1});
  const double v[] = {std::numeric_limits<double>::quiet_NaN(),
                      -std::numeric_limits<double>::infinity(), 2};
  for (int i = 0; i < 3; ++i) x.data<double>()[i] = v[i];
  check_same_values(shipped_rules(),
                    in + "(output (max (broadcast_to x :shape (4 3 5)) :axis (0 2)))", {x});
  // An axis of length 0 (max of nothing fails), a stretched axis kept, or
  // an axis of x reduced: the reduction stays.
  for (const char* g : {"(max (broadcast_to x :shape (0 3 5)) :axis (0))",
                        "(max (broadcast_to x :shape (4 3 5)) :axis (0))",
                        "(max (broadcast_to x :shape (4 3 5)) :axis (1 2))"})
    CHECK(count_ops(optimized(graph(in + "(output " + std::string(g) + ")")), ops::OpKind::Max) ==
          1);
}

TEST_CASE("reduce-chain-rounding: sums and products over the axes a broadcast adds (fast-math)",
          "[rules][reduce-chain]") {
  // local_careduce_of_alloc for sum, prod and mean: k copies added are k·x
  const std::string in = "(input x (f64 3))\n";
  check_optimizes(fast_math_rules(), in + "(output (sum (broadcast_to x :shape (5 3)) :axis (0)))",
                  in + "(output (mul x 5.0))");
  check_optimizes(fast_math_rules(), in + "(output (prod (broadcast_to x :shape (2 3)) :axis (0)))",
                  in + "(output (square x))");
  check_optimizes(fast_math_rules(), in + "(output (mean (broadcast_to x :shape (4 3)) :axis (0)))",
                  in + "(output x)");
  ops::Array x(ops::DType::F64, {3});
  const double v[] = {0.1, -std::numeric_limits<double>::infinity(),
                      std::numeric_limits<double>::quiet_NaN()};
  for (int i = 0; i < 3; ++i) x.data<double>()[i] = v[i];
  check_same_values(fast_math_rules(),
                    in + "(output (sum (broadcast_to x :shape (5 3)) :axis (0))) (output (prod "
                         "(broadcast_to x :shape (7 3)) :axis (0)))",
                    {x}, 1e-14);
  // Without fast-math the sum stays (five additions round where 5·x does not).
  CHECK(count_ops(optimized(graph(in + "(output (sum (broadcast_to x :shape (5 3)) :axis (0)))")),
                  ops::OpKind::Sum) == 1);
}
