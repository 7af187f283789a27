// The indexing rule set (rules/indexing.rules): PyTensor's
// test_subtensor.py read of a write, write over a write, writes into
// zeros and of zeros (useless inc), and test_basic.py's join of one.
// Index checks are kept: a rule that drops a read or write needs a
// constant index proven in range (`in-bounds`).
#include "tests/support/check_optimizes.hpp"

#include <limits>

using namespace eqsat;
using namespace eqsat::testing;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::string kIn = "(input x (f64 3 ?)) (input v (f64 ?)) (input w (f64 ?))\n";

ops::Array matrix(ops::Dims dims, std::vector<double> v) {
  ops::Array a(ops::DType::F64, std::move(dims));
  for (std::size_t i = 0; i < v.size(); ++i) a.data<double>()[i] = v[i];
  return a;
}
const std::vector<ops::Array> kAt = {matrix({3, 2}, {1, 2, kInf, kNaN, -0.0, 5}),
                                     f64_vector({kNaN, -kInf}), f64_vector({7, 8})};
}  // namespace

TEST_CASE("indexing: a read of what was just written is the value", "[rules][indexing]") {
  // v is proven to fit a row of x: the write cannot fail.
  const std::string fit = "(input x (f64 3 2)) (input v (f64 2)) (input w (f64 2))\n";
  const std::string g = fit + "(output (index (set_index x 1 v) 1))";
  check_optimizes(g, fit + "(output v)");
  check_same_values(shipped_rules(), g, kAt);
  // A row of unknown length may not fit: the write's check stays.
  CHECK(contains(optimized(graph(kIn + "(output (index (set_index x 1 v) 1))")).outputs[0].term,
                 ops::OpKind::SetIndex));
  const std::string inc = kIn + "(output (index (inc_index x -1 v) -1))";
  check_optimizes(inc, kIn + "(output (add (index x -1) v))", Match::UpToCommuting);
  check_same_values(shipped_rules(), inc, kAt);
  // Out of range: the write's check stays.
  const std::string bad = kIn + "(output (index (set_index x 3 v) 3))";
  CHECK(contains(optimized(graph(bad)).outputs[0].term, ops::OpKind::SetIndex));
  // A run-time index: the write's check stays too.
  const std::string rt = kIn + "(input i i64)\n(output (index (set_index x i v) i))";
  CHECK(contains(optimized(graph(rt)).outputs[0].term, ops::OpKind::SetIndex));
}

TEST_CASE("indexing: a write over a write at the same place is one write", "[rules][indexing]") {
  // v must fit where w does: it broadcasts to w.
  const std::string in = "(input x (f64 3 2)) (input v (f64 2)) (input w (f64 2))\n";
  const std::string g = in + "(output (set_index (set_index x 0 v) 0 w))";
  check_optimizes(g, in + "(output (set_index x 0 w))");
  check_same_values(shipped_rules(), g, kAt);
  // Shapes not known to broadcast: the first write (and its check) stays.
  CHECK(count_ops(optimized(graph(kIn + "(output (set_index (set_index x 0 v) 0 w))")),
                  ops::OpKind::SetIndex) == 2);
}

TEST_CASE("indexing: writes into zeros and of zeros", "[rules][indexing]") {
  const std::string inc = kIn + "(output (inc_index (zeros_like x) 2 v))";
  check_optimizes(inc, kIn + "(output (set_index (zeros_like x) 2 v))");
  check_same_values(shipped_rules(), inc, kAt);
  check_optimizes(kIn + "(output (inc_index x 1 0.0))", kIn + "(output x)");
}

TEST_CASE("indexing: concat and stack of one operand", "[rules][indexing]") {
  check_optimizes(kIn + "(output (concat x :axis 1))", kIn + "(output x)");
  check_optimizes(kIn + "(output (stack v :axis 0))", kIn + "(output (expand_dims v :axis 0))");
}
