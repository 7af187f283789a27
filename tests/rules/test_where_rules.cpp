// The where rule set (rules/where.rules): an elementwise op of two wheres
// with the same condition is one where (PyTensor's
// TestLocalMergeSwitchSameCond), and the selections canonicalize keeps
// (where(c, x, x), constant conditions).
#include "tests/support/check_optimizes.hpp"

#include <limits>

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
    // (div: its merged form is in the e-graph, proven below)
    INFO(op);
    const std::string g = kIn + "(output (" + op + " (where c a b) (where c d e)))";
    const ops::Graph out = optimized(graph(g));
    // Two divisions cost more than two wheres: the cost model keeps div's.
    CHECK(count_ops(out, ops::OpKind::Where) == (std::string(op) == "div" ? 2U : 1U));
    check_same_values(shipped_rules(), g, at);
  }
}

TEST_CASE("where: the merged division is proven, kept only where cheaper", "[rules][where]") {
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
