// The where rule set (rules/where.rules): an elementwise op of two wheres
// with the same condition is one where (PyTensor's
// TestLocalMergeSwitchSameCond), and the selections canonicalize keeps
// (where(c, x, x), constant conditions, on lengths known or not).
#include "tests/support/check_optimizes.hpp"

#include "backend/program.hpp"
#include "backend/runtime_error.hpp"

#include <limits>
#include <tuple>
#include <utility>

using namespace eqsat;
using namespace eqsat::testing;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::string kIn =
    "(input c (bool 4)) (input a (f64 4)) (input b (f64 4)) (input d (f64 4)) (input e (f64 4))\n";

ops::Array bools(std::vector<bool> v) {
  ops::Array a(ops::DType::Bool, {static_cast<std::int64_t>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) a.data<bool>()[i] = v[i];
  return a;
}
}  // namespace

TEST_CASE("where: ops of two wheres with the same condition are one where", "[rules][where]") {
  const std::vector<ops::Array> at = {
      bools({true, false, true, false}), f64_vector({1, kInf, kNaN, -0.0}),
      f64_vector({2, 3, -kInf, 4}), f64_vector({kInf, 5, 6, 7}), f64_vector({8, kNaN, 9, 0})};
  for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum"}) {
    INFO(op);
    const std::string g = kIn + "(output (" + op + " (where c a b) (where c d e)))";
    // A where costs more than a division (bench/README.md): one where,
    // whatever the op.
    CHECK(count_ops(optimized(graph(g)), ops::OpKind::Where) == 1);
    check_same_values(shipped_rules(), g, at);
  }
}

TEST_CASE("where: comparisons, powers and logical ops of two wheres are one where",
          "[rules][where]") {
  // TestLocalMergeSwitchSameCond's other ops (gt and ge are written lt, le).
  const std::vector<ops::Array> at = {
      bools({true, false, true, false}), f64_vector({1, kInf, kNaN, -0.0}),
      f64_vector({2, 3, -kInf, 0.5}), f64_vector({kInf, 5, 6, 0}), f64_vector({8, kNaN, 0.5, 0})};
  for (const char* op : {"lt", "le", "gt", "ge", "eq", "ne"}) {
    INFO(op);
    const std::string g = kIn + "(output (" + op + " (where c a b) (where c d e)))";
    CHECK(count_ops(optimized(graph(g)), ops::OpKind::Where) == 1);
    check_same_values(shipped_rules(), g, at);
  }
  // Two pows cost more than a where (bench/README.md): the merged power is
  // proven, and the model keeps the one pow.
  const std::string pow = kIn + "(output (pow (where c a b) (where c d e)))";
  CHECK(count_ops(optimized(graph(pow)), ops::OpKind::Pow) == 1);
  check_proves(
      shipped_rules(),
      kIn + "(output (pow (where c a b) (where c d e))) (output (where c (pow a d) (pow b e)))");
  check_same_values(shipped_rules(), pow, at);
  const std::string bits =
      "(input c (bool 4)) (input p (bool 4)) (input q (bool 4)) (input r (bool 4))"
      " (input s (bool 4))\n";
  for (const char* op : {"logical_and", "logical_or"}) {
    INFO(op);
    const std::string g = bits + "(output (" + op + " (where c p q) (where c r s)))";
    CHECK(count_ops(optimized(graph(g)), ops::OpKind::Where) == 1);
    check_same_values(shipped_rules(), g,
                      {bools({true, false, true, false}), bools({true, true, false, false}),
                       bools({false, true, true, false}), bools({true, false, false, true}),
                       bools({false, false, true, true})});
  }
  // An integer power of the branch not taken may fail (a negative
  // exponent): the rule does not apply.
  const ops::Graph ints = graph(
      "(input c (bool 2)) (input a (i64 2)) (input b (i64 2)) (input d (i64 2)) (input e (i64 2))\n"
      "(output (pow (where c a b) (where c d e))) (output (where c (pow a d) (pow b e)))");
  CHECK_FALSE(rules::prove_equal(ints, ints.outputs[0].term, ints.outputs[1].term, shipped_rules())
                  .explanation);
}

TEST_CASE("where: the merged division is chosen on long rows, where it fuses", "[rules][where]") {
  // On matrices of unknown size (as PyTensor's `matrices("cabxy")`) the
  // executor runs where(c, a/d, b/e) in one pass: one where.
  const std::string m =
      "(input c (bool ? ?)) (input a (f64 ? ?)) (input b (f64 ? ?)) (input d (f64 ? ?))"
      " (input e (f64 ? ?))\n";
  for (const char* op : {"div", "add", "lt"}) {
    INFO(op);
    const std::string g = m + "(output (" + op + " (where c a b) (where c d e)))";
    CHECK(count_ops(optimized(graph(g)), ops::OpKind::Where) == 1);
  }
  ops::Array c(ops::DType::Bool, {2, 2});
  for (int i = 0; i < 4; ++i) c.data<bool>()[i] = i % 2 == 0;
  const auto mat = [](std::vector<double> v) {
    ops::Array a(ops::DType::F64, {2, 2});
    for (std::size_t i = 0; i < 4; ++i) a.data<double>()[i] = v[i];
    return a;
  };
  check_same_values(shipped_rules(), m + "(output (div (where c a b) (where c d e)))",
                    {c, mat({1, kInf, kNaN, 0}), mat({2, 3, -kInf, 1}), mat({kInf, 0, 6, 0}),
                     mat({8, kNaN, 0, -0.0})});
}

TEST_CASE("where: the merged division is proven", "[rules][where]") {
  check_proves(shipped_rules(), kIn +
                                    "(output (div (where c a b) (where c d e))) "
                                    "(output (where c (div a d) (div b e)))");
}

TEST_CASE("where: a constant condition whose branch needs a cast or broadcast", "[rules][where]") {
  const std::string in = "(input a (f64 3)) (input k (i64 2 3)) (input m (f64 2 3))\n";
  check_optimizes(in + "(output (where true a m))", in + "(output (broadcast_to a :shape (2 3)))");
  check_optimizes(in + "(output (where (full true :shape (2 3)) k a))",
                  in + "(output (cast k :dtype f64))");
  check_optimizes(in + "(output (where false m a))", in + "(output (broadcast_to a :shape (2 3)))");
}

TEST_CASE("where: equal branches and constant conditions", "[rules][where]") {
  check_optimizes(kIn + "(output (where c (exp a) (exp a)))", kIn + "(output (exp a))");
  check_optimizes(kIn + "(output (add (where true a b) (where false d e)))",
                  kIn + "(output (add a e))");
}

TEST_CASE("where: equal branches and constant conditions on unknown lengths", "[rules][where]") {
  // PyTensor's useless switch: the selected branch, broadcast like the
  // others at run time (lengths 1 and 2 give 2), failing where they do not
  // broadcast, at the written where.
  const std::string in = "(input c (bool ?)) (input x (f64 ?)) (input y (f64 ?))\n";
  for (const char* w : {"(where c x x)", "(where true x y)", "(where false y x)"}) {
    INFO(w);
    const std::string text = in + "(output " + w + ")";
    const ops::Graph g = graph(text), out = optimized(g);
    CHECK(count_ops(out, ops::OpKind::Where) == 0);
    CHECK(count_ops(out, ops::OpKind::BroadcastLike) == 1);
    const ops::Array x2 = f64_vector({kInf, kNaN}), x1 = f64_vector({-kInf});
    for (const auto& [cx, xx, yy] : {std::tuple{bools({true, false}), x2, f64_vector({1, 2})},
                                     std::tuple{bools({true, false}), x1, f64_vector({1, 2})},
                                     std::tuple{bools({false}), x2, f64_vector({3})},
                                     std::tuple{bools({true, false}), x1, f64_vector({4})}})
      check_same_values(shipped_rules(), text, {cx, xx, yy});
    const auto [written, optimized_error] =
        failures(g, out, {bools({true, false, true}), x2, f64_vector({1, 2, 3})});
    CHECK(written.starts_with("t.eg:2:9: error: "));
    CHECK(written.find("do not broadcast") != std::string::npos);
    CHECK(optimized_error.starts_with("t.eg:2:9: error: "));
    CHECK(optimized_error.find("do not broadcast") != std::string::npos);
  }
  // Where the other operand provably does not widen the branch, the branch.
  check_optimizes(in + "(output (where (lt x 0.0) x x))", in + "(output x)");
  check_optimizes(in + "(output (where true x (exp x)))", in + "(output x)");
}
