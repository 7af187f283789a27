// PyTensor's everyday rewrite tests as their graphs are written there:
// vectors and matrices of unknown length (`pt.vector()`, `pt.matrix()`).
// Each case is one graph of a test class, optimized with the shipped rules
// (with fast-math where PyTensor's law needs finite inputs) to what the
// PyTensor test asserts, and run against the graph as written, at ±∞ and
// NaN too where the law is exact. Other graphs of these classes, on static
// shapes, are in the family tests (test_*_rules.cpp, tensor/test_*.cpp).
#include "tests/support/check_optimizes.hpp"
#include "tests/support/f64_array.hpp"

#include <cmath>
#include <limits>

using namespace eqsat;
using namespace eqsat::testing;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::string kVec = "(input x (f64 ?)) (input y (f64 ?))\n";
const std::string kMat = "(input x (f64 ? ?))\n";
}  // namespace

TEST_CASE("PyTensor: constants and signs cancel on unknown lengths (fast-math)",
          "[rules][pytensor]") {
  // TestAlgebraicCanonizer: y − y, (2x)/(4y); TestExpLog: eˣ·e⁻ˣ
  check_optimizes(fast_math_rules(), kVec + "(output (sub y y))", kVec + "(output (zeros_like y))");
  check_optimizes(fast_math_rules(), kVec + "(output (mul (exp x) (exp (neg x))))",
                  kVec + "(output (ones_like x))");
  check_optimizes(fast_math_rules(), kVec + "(output (div (mul 2.0 x) (mul 4.0 y)))",
                  kVec + "(output (mul 0.5 (div x y)))", nullptr, Match::UpToCommuting);
  // Without fast-math y − y stays: ∞ − ∞ is NaN.
  CHECK(count_ops(optimized(graph(kVec + "(output (sub y y))")), ops::OpKind::Sub) == 1);
}

TEST_CASE("PyTensor: powers become their specialized chains (fast-math)", "[rules][pytensor]") {
  // test_local_pow_specialize and test_local_pow_to_nested_squaring on a
  // vector of unknown length: the executor fuses the chains.
  const std::pair<const char*, const char*> cases[] = {
      {"(pow x -2.0)", "(reciprocal (square x))"},
      {"(pow x -0.5)", "(reciprocal (sqrt x))"},
      {"(pow x 16.0)", "(square (square (square (square x))))"},
      {"(pow x -16.0)", "(reciprocal (square (square (square (square x)))))"},
  };
  for (const auto& [start, goal] : cases)
    check_optimizes(fast_math_rules(), kVec + "(output " + start + ")",
                    kVec + "(output " + goal + ")");
  const ops::Graph x15 = rules::optimize(graph(kVec + "(output (pow x 15.0))"), fast_math_rules());
  CHECK(count_ops(x15, ops::OpKind::Pow) == 0);
  CHECK(count_ops(x15, ops::OpKind::Square) + count_ops(x15, ops::OpKind::Mul) == 6);
  // x⁻¹⁵: the nested squarings and a reciprocal (pow runs about 5 times as
  // long as exp: bench/README.md).
  const ops::Graph x_15 =
      rules::optimize(graph(kVec + "(output (pow x -15.0))"), fast_math_rules());
  CHECK(count_ops(x_15, ops::OpKind::Pow) == 0);
  CHECK(x_15.outputs[0].term->kind() == ops::OpKind::Reciprocal);
  CHECK(count_ops(x_15, ops::OpKind::Square) + count_ops(x_15, ops::OpKind::Mul) == 6);
  check_same_values(fast_math_rules(), kVec + "(output (pow x 15.0)) (output (pow x -15.0))",
                    {f64_vector({0.5, 1.25, 2, 3, kInf, -kInf, kNaN, 0}), f64_vector({1})}, 1e-12);
  // x^−½ = 1/√x ignores x = −∞ (pow gives 0, √ NaN): fast-math's law.
  check_same_values(fast_math_rules(), kVec + "(output (pow x -0.5))",
                    {f64_vector({0.5, 1.25, 2, 3, kInf, kNaN}), f64_vector({1})}, 1e-12);
  // On 8 elements (ops run one by one, a call each) the chains cost more
  // than one pow: the pow stays.
  for (const char* n : {"15.0", "16.0", "-15.0"}) {
    const ops::Graph short_pow = rules::optimize(
        graph(std::string("(input x (f64 8))\n(output (pow x ") + n + "))"), fast_math_rules());
    CHECK(short_pow.outputs[0].term->kind() == ops::OpKind::Pow);
  }
}

TEST_CASE("PyTensor: comparisons with self on vectors and matrices", "[rules][pytensor]") {
  // test_inequality_with_self on `pt.vector()` and `pt.matrix()`: a bool
  // constant of x's shape. x < x is false for every x (NaN included);
  // the others need fast-math (NaN ≤ NaN is false).
  const std::pair<const char*, const char*> cases[] = {
      {"lt", "zeros_like"}, {"gt", "zeros_like"}, {"le", "ones_like"},
      {"ge", "ones_like"},  {"eq", "ones_like"},  {"ne", "zeros_like"},
  };
  for (const std::string& in : {kVec, kMat})
    for (const auto& [op, like] : cases) {
      INFO(op);
      check_optimizes(fast_math_rules(), in + "(output (" + op + " x x))",
                      in + "(output (" + like + " x :dtype bool))");
    }
  check_optimizes(kVec + "(output (gt x x))", kVec + "(output (zeros_like x :dtype bool))");
  check_same_values(shipped_rules(), kVec + "(output (lt x x)) (output (gt x x))",
                    {f64_vector({1, -kInf, kInf, kNaN}), f64_vector({0})});
  check_same_values(fast_math_rules(), kMat + "(output (le x x)) (output (ne x x))",
                    {f64_array({2, 2}, {1, -3, 0, 7})});
  // Without fast-math x ≤ x stays: it is false at NaN.
  CHECK(count_ops(optimized(graph(kVec + "(output (le x x))")), ops::OpKind::Le) == 1);
}

TEST_CASE("PyTensor: a sum of a concatenation is the sum of the sums (fast-math)",
          "[rules][pytensor]") {
  // TestReduceJoin: each sum absorbs its elementwise operand in one pass,
  // so no concatenation (nor exp u, log v) is written to memory.
  const std::string g = kVec + "(output (sum (concat (exp x) (log y))))";
  check_optimizes(fast_math_rules(), g, kVec + "(output (add (sum (exp x)) (sum (log y))))");
  check_same_values(fast_math_rules(), g, {f64_vector({0.5, -1, 2}), f64_vector({1, 2, 3, 4})});
  check_same_values(fast_math_rules(), g, {f64_vector({0.5, kInf}), f64_vector({-1, 2})});
  check_same_values(fast_math_rules(), g, {f64_vector({kNaN}), f64_vector({0, 2})});
}

TEST_CASE("PyTensor: expand_dims that broadcasting adds itself are lifted away",
          "[rules][pytensor]") {
  // TestDimshuffleLift's test_lift: x + y + z of a vector, a matrix and a
  // rank-3 tensor, with the DimShuffles PyTensor's broadcasting inserts.
  const std::string in = "(input x (f64 ?)) (input y (f64 ? ?)) (input z (f64 ? ? ?))\n";
  const std::string g =
      in + "(output (add (expand_dims (add (expand_dims x :axis 0) y) :axis 0) z))";
  check_optimizes(g, in + "(output (add (add x y) z))");
  ops::Array y(ops::DType::F64, {2, 3}), z(ops::DType::F64, {2, 2, 3});
  for (int i = 0; i < 6; ++i) y.data<double>()[i] = i == 4 ? kNaN : i;
  for (int i = 0; i < 12; ++i) z.data<double>()[i] = i == 7 ? -kInf : i * 0.5;
  check_same_values(shipped_rules(), g, {f64_vector({1, kInf, -2}), y, z});
  // Lengths that do not broadcast fail as written.
  ops::Array bad(ops::DType::F64, {2, 4});
  CHECK_THROWS(backend::compile(optimized(graph(g))).run({f64_vector({1, 2, 3}), bad, z}));
  // An expand_dims that adds the result's only leading axis stays.
  const std::string two = "(input x (f64 ?)) (input y (f64 ?))\n";
  CHECK(count_ops(optimized(graph(two + "(output (add (expand_dims x :axis 0) y))")),
                  ops::OpKind::ExpandDims) == 1);
}

TEST_CASE("PyTensor: logit of a sigmoid and log_softmax from log-sum-exp, unknown lengths",
          "[rules][pytensor]") {
  // logit/odds: log(σ(x) / (1 − σ(x))) = x; the division of σ(x) by σ(−x)
  // cannot fail, as both have x's length.
  const std::string odds = kVec + "(output (log (div (sigmoid x) (sub 1.0 (sigmoid x)))))";
  check_optimizes(odds, kVec + "(output x)");
  check_same_values(shipped_rules(), odds,
                    {f64_vector({-3, 0.5, 2, kInf, -kInf, kNaN}), f64_vector({0})});
  // test_special: x − logsumexp(x, keepdims) = log_softmax x
  const std::string lse = kMat + "(output (sub x (logsumexp x :axis 1 :keepdims true)))";
  check_optimizes(lse, kMat + "(output (log_softmax x :axis 1))");
  check_same_values(shipped_rules(), lse, {f64_array({2, 3}, {1, 2, 3, -1, 0, kNaN})});
}

TEST_CASE("PyTensor: an output log_softmax or logsumexp is reused", "[rules][pytensor]") {
  // exp(log_softmax x) beside the output log_softmax x is exp of that output,
  // not a new softmax; x − logsumexp x reads the output logsumexp.
  check_optimizes(kMat + "(output (log_softmax x :axis 1)) (output (exp (log_softmax x :axis 1)))",
                  kMat + "(let l (log_softmax x :axis 1)) (output l) (output (exp l))");
  check_optimizes(
      kMat +
          "(output (logsumexp x :axis 1 :keepdims true))"
          " (output (sub x (logsumexp x :axis 1 :keepdims true)))",
      kMat + "(let s (logsumexp x :axis 1 :keepdims true)) (output s) (output (sub x s))");
  // Alone, exp(log_softmax x) is the fused softmax.
  check_optimizes(kMat + "(output (exp (log_softmax x :axis 1)))",
                  kMat + "(output (softmax x :axis 1))");
  check_same_values(
      shipped_rules(),
      kMat + "(output (log_softmax x :axis 1)) (output (exp (log_softmax x :axis 1)))",
      {f64_array({2, 3}, {1, 2, 3, 800, 0, -kInf})});
}

TEST_CASE("PyTensor: slices of unknown length merge and vanish", "[rules][pytensor]") {
  // test_subtensor.py: useless slice, subtensor merge, index of a slice.
  check_optimizes(kVec + "(output (slice x :start 0))", kVec + "(output x)");
  check_optimizes(kVec + "(output (slice (slice x :start 1 :step 2) :start 2 :stop 4))",
                  kVec + "(output (slice x :start 5 :stop 9 :step 2))");
  check_optimizes(kVec + "(output (index (slice x :start 2) 1))", kVec + "(output (index x 3))");
  check_same_values(shipped_rules(),
                    kVec + "(output (slice (slice x :start 1 :step 2) :start 2 :stop 4))",
                    {f64_vector({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), f64_vector({0})});
  // A negative bound depends on the length: the slices stay.
  CHECK(count_ops(optimized(graph(kVec + "(output (slice (slice x :start -3) :start 1))")),
                  ops::OpKind::Slice) == 2);
  // index 1 of x[2:] fails where x[3] does (a vector of 3), so the read is one
  const ops::Graph out = optimized(graph(kVec + "(output (index (slice x :start 2) 1))"));
  CHECK_THROWS(backend::compile(out).run({f64_vector({1, 2, 3}), f64_vector({0})}));
  // set_slice over a whole axis reversed is a flip of the value
  check_optimizes("(input x (f64 5)) (input v (f64 5)) (output (set_slice x v :step -1))",
                  "(input x (f64 5)) (input v (f64 5)) (output (flip v))");
}

TEST_CASE("PyTensor: a read of part of a result computes only that part", "[rules][pytensor]") {
  // TestLocalSubtensorOfBatchDims (exp(x)[0]), test_local_subtensor_of_reduce,
  // test_local_subtensor_of_softmax on matrices of unknown lengths.
  const std::string in = "(input x (f64 ? ?)) (input y (f64 ?))\n";
  check_optimizes(in + "(output (index (exp x) 0))", in + "(output (exp (index x 0)))");
  check_optimizes(in + "(output (index (exp (add x y)) 0))",
                  in + "(output (exp (add y (index x 0))))", Match::UpToCommuting);
  check_optimizes(in + "(output (index (sum x :axis (1)) 2))",
                  in + "(output (sum (index x 2) :axis (0)))");
  check_optimizes(in + "(output (slice (softmax x :axis 1) :start 1))",
                  in + "(output (softmax (slice x :start 1) :axis 1))");
  const ops::Array x = f64_array({3, 2}, {1, kInf, -kInf, kNaN, 0.5, -2});
  check_same_values(shipped_rules(), in + "(output (index (exp (add x y)) 1))",
                    {x, f64_vector({kNaN, 3})});
  check_same_values(shipped_rules(), in + "(output (slice (softmax x :axis 1) :start 1))",
                    {x, f64_vector({0})});
  // exp(x) also an output (test_unary_multiple_clients): its row is read.
  check_optimizes(in + "(output (exp x)) (output (index (exp x) 0))",
                  in + "(let e (exp x)) (output e) (output (index e 0))");
}

TEST_CASE("PyTensor: zeros_like and ones_like operands vanish on unknown lengths",
          "[rules][pytensor]") {
  // test_local_useless_adds, test_local_elemwise_sub_zeros: exact (x + 0 is
  // x at ±∞ and NaN; only the sign of a zero may change).
  check_optimizes(kVec + "(output (add (zeros_like x) x))", kVec + "(output x)");
  check_optimizes(kVec + "(output (sub x (zeros_like x)))", kVec + "(output x)");
  check_optimizes(kVec + "(output (sub (zeros_like x) x))", kVec + "(output (neg x))");
  check_optimizes(kVec + "(output (mul x (ones_like x)))", kVec + "(output x)");
  check_same_values(shipped_rules(),
                    kVec + "(output (add (zeros_like x) x)) (output (sub (zeros_like x) x))",
                    {f64_vector({1, -kInf, kInf, kNaN, -0.0}), f64_vector({0})});
  // A zeros_like of another unknown length may widen x: it stays.
  CHECK(count_ops(optimized(graph(kVec + "(output (add x (zeros_like y)))")), ops::OpKind::Add) ==
        1);
}

TEST_CASE("PyTensor: abs of products, logical ops with constants, casts through a wider dtype",
          "[rules][pytensor]") {
  // local_abs_merge: |x|·|y| = |x·y| for floats
  check_optimizes(kVec + "(output (mul (abs x) (abs y)))", kVec + "(output (abs (mul x y)))");
  check_same_values(shipped_rules(), kVec + "(output (mul (abs x) (abs y)))",
                    {f64_vector({-2, kInf, -kInf, kNaN, 0}), f64_vector({3, 0, -1, 1, -kInf})});
  // TestLocalUselessElemwiseComparison's test_and / test_or on bools
  const std::string b = "(input b (bool ?))\n";
  check_optimizes(b + "(output (logical_and b true))", b + "(output b)");
  check_optimizes(b + "(output (logical_or false b))", b + "(output b)");
  check_optimizes(b + "(output (logical_and false b))", b + "(output (zeros_like b :dtype bool))");
  check_optimizes(b + "(output (logical_or b true))", b + "(output (ones_like b :dtype bool))");
  // TestCastCast: a cast through a dtype that holds every value is one cast
  check_optimizes("(input x (i32 ?)) (output (cast (cast x :dtype i64) :dtype f64))",
                  "(input x (i32 ?)) (output (cast x :dtype f64))");
  check_optimizes("(input x (f32 ?)) (output (cast (cast x :dtype f64) :dtype f32))",
                  "(input x (f32 ?)) (output x)");
  // i64 → f64 loses digits above 2^53: both casts stay.
  CHECK(count_ops(optimized(graph("(input x (i64 ?)) (output (cast (cast x :dtype f64) :dtype "
                                  "i64))")),
                  ops::OpKind::Cast) == 2);
  ops::Array big(ops::DType::I64, {1});
  big.data<std::int64_t>()[0] = (std::int64_t{1} << 53) + 1;
  CHECK(run_optimized("(input x (i64 ?)) (output (cast (cast x :dtype f64) :dtype i64))", {big})
            .data<std::int64_t>()[0] == std::int64_t{1} << 53);
}

TEST_CASE("PyTensor: reductions of a stack of three, over unit axes, of a product's row",
          "[rules][pytensor]") {
  // TestReduceJoin (nin = 3): sum and prod under fast-math (the reduction's
  // order of additions depends on the layout)
  const std::string v3 = kVec + "(input z (f64 ?))\n";
  check_optimizes(fast_math_rules(), v3 + "(output (sum (stack x y z) :axis (0)))",
                  v3 + "(output (add x (add y z)))", nullptr, Match::UpToCommuting);
  check_optimizes(fast_math_rules(), v3 + "(output (prod (stack x y z) :axis (0)))",
                  v3 + "(output (mul x (mul y z)))", nullptr, Match::UpToCommuting);
  check_same_values(fast_math_rules(), v3 + "(output (sum (stack x y z) :axis (0)))",
                    {f64_vector({1, kNaN, -kInf}), f64_vector({2, 0, 3}), f64_vector({0, 1, 9})});
  // test_local_sum_prod_of_scalar_mul, test_local_prod_of_div (fast-math: sⁿ
  // may overflow where the product does not): proven on unknown lengths,
  // taken where n is known (one pow for 1000 products)
  check_proves(fast_math_rules(),
               kMat +
                   "(input s f64) (output (prod (mul s x) :axis (1))) (output (mul (prod x :axis "
                   "(1)) (pow s (sum (ones_like x) :axis (1)))))");
  const std::string big = "(input x (f64 1000)) (input s f64)\n";
  check_optimizes(fast_math_rules(), big + "(output (prod (mul x s)))",
                  big + "(output (mul (prod x) (pow s 1000.0)))");
  check_optimizes(fast_math_rules(), big + "(output (prod (div x s)))",
                  big + "(output (div (prod x) (pow s 1000.0)))");
  std::vector<double> near_one(1000);
  for (std::size_t i = 0; i < near_one.size(); ++i) near_one[i] = 1 + 0.001 * std::sin(double(i));
  ops::Array s(ops::DType::F64, {});
  s.data<double>()[0] = -1.001;
  check_same_values(fast_math_rules(), big + "(output (prod (mul x s)))", {f64_vector(near_one), s},
                    1e-12);
  // TestLocalReduce / local_useless_reduce: over an axis of static length 1
  // with the others unknown, a squeeze
  const std::string u = "(input x (f64 ? 1))\n";
  check_optimizes(u + "(output (sum x :axis (1)))", u + "(output (squeeze x :axis (1)))");
  // test_local_subtensor_of_dot (fast-math: the vector kernel sums in another order)
  const std::string ab = "(input a (f64 ? ?)) (input b (f64 ? ?))\n";
  check_optimizes(fast_math_rules(), ab + "(output (index (dot a b) 1))",
                  ab + "(output (dot (index a 1) b))");
  // test_local_sumsqr2dot (fast-math)
  const std::string wg = "(input W (f64 ? ?)) (input G (f64 ? ?))\n";
  const std::string sq =
      wg +
      "(output (sum (square (mul (expand_dims W :axis 0) (expand_dims G :axis 1))) :axis (1 2)))";
  check_optimizes(fast_math_rules(), sq,
                  wg + "(output (dot (square G) (sum (square W) :axis (0))))");
  check_same_values(fast_math_rules(), sq,
                    {f64_array({2, 3}, {1, 2, -1, 0.5, 3, 2}),
                     f64_array({4, 3}, {1, 0, 2, -1, 1, 1, 3, 2, 0.25, 0, 0, 1})},
                    1e-12);
}
