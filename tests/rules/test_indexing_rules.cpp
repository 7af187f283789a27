// The indexing rule set (rules/indexing.rules): PyTensor's
// test_subtensor.py read of a write, write over a write, writes into
// zeros and of zeros (useless inc), and test_basic.py's join of one.
// Index checks are kept: a rule that drops a read or write needs a
// constant index proven in range (`in-bounds`); at an index known only at
// run time the read x[i] stays and carries the write's range check.
#include "tests/support/check_optimizes.hpp"

#include "backend/program.hpp"
#include "backend/runtime_error.hpp"

#include <limits>
#include <string>
#include <utility>

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
  // A row of unknown length may not fit: the write's check stays, on the
  // row alone.
  check_optimizes(kIn + "(output (index (set_index x 1 v) 1))",
                  kIn + "(output (set_slice (index x 1) v :axis 0))");
  // v may widen a row of unknown length (v of 2, a row of 1: the
  // increment fails, x[i] + v would not): an inc_slice of the row alone.
  const std::string inc = kIn + "(output (index (inc_index x -1 v) -1))";
  check_optimizes(inc, kIn + "(output (inc_slice (index x -1) v :axis 0))");
  check_same_values(shipped_rules(), inc, kAt);
  const std::string inc_fit = fit + "(output (index (inc_index x -1 v) -1))";
  check_proves(shipped_rules(), inc_fit + "(output (add (index x -1) v))");
  // A value that may fail for a reason of its own (a + b on unknown
  // lengths) is not the read: a and b of 1 element set into a row of 3
  // give 3 elements (it was a + b, of 1, before).
  const std::string ab = "(input x (f64 3 ?)) (input a (f64 ?)) (input b (f64 ?))\n";
  check_optimizes(ab + "(output (index (set_index x 1 (add a b)) 1))",
                  ab + "(output (set_slice (index x 1) (add a b) :axis 0))");
  check_same_values(
      shipped_rules(), ab + "(output (index (set_index x 1 (add a b)) 1))",
      {matrix({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), f64_vector({kInf}), f64_vector({1})});
  // Out of range: the write's check stays (in the read of x[3]).
  const std::string bad = kIn + "(output (index (set_index x 3 v) 3))";
  CHECK(contains(optimized(graph(bad)).outputs[0].term, ops::OpKind::Index));
}

namespace {
// What follows "error: OP: " in a message (the op that failed differs:
// the written set_index, the optimized index of the row).
std::string reason(const std::string& message) {
  const std::size_t at = message.find(": ", message.find("error: ") + 7);
  return at == std::string::npos ? message : message.substr(at);
}
}  // namespace

TEST_CASE("indexing: a read of what was just written at an index known only at run time",
          "[rules][indexing]") {
  // PyTensor's read of a write with i an input: no write of the whole x is
  // left; the read x[i] keeps the write's range check and a write into
  // x[i] alone (or a scalar, which fits any row) its check that v fits.
  const std::string in = kIn + "(input s f64) (input i i64)\n";
  const std::string set_s = in + "(output (index (set_index x i s) i))";
  const std::string set_v = in + "(output (index (set_index x i v) i))";
  const std::string inc_s = in + "(output (index (inc_index x i s) i))";
  const std::string inc_v = in + "(output (index (inc_index x i v) i))";
  check_optimizes(set_s, in + "(output (broadcast_like s (index x i)))");
  check_optimizes(set_v, in + "(output (set_slice (index x i) v :axis 0))");
  check_optimizes(inc_s, in + "(output (inc_slice (index x i) s :axis 0))");
  check_proves(shipped_rules(), inc_s + "(output (add (index x i) s))");
  check_optimizes(inc_v, in + "(output (inc_slice (index x i) v :axis 0))");
  // A scalar of another dtype is cast as the write casts it, into the row.
  const std::string ik = in + "(input k i64)\n";
  check_optimizes(ik + "(output (index (set_index x i k) i))",
                  ik + "(output (set_slice (index x i) k :axis 0))");
  for (std::int64_t i : {-1, 1})
    check_same_values(
        shipped_rules(), ik + "(output (index (inc_index x i k) i))",
        {kAt[0], kAt[1], kAt[2], ops::Array::scalar(ops::DType::F64, 0),
         ops::Array::scalar(ops::DType::I64, i), ops::Array::scalar(ops::DType::I64, -7)});
  const auto at = [](std::int64_t i, ops::Array v, ops::Array x = kAt[0]) {
    return std::vector<ops::Array>{std::move(x), std::move(v), kAt[2],
                                   ops::Array::scalar(ops::DType::F64, -kInf),
                                   ops::Array::scalar(ops::DType::I64, i)};
  };
  const ops::Array x31 = matrix({3, 1}, {kNaN, 2, -0.0});
  for (const std::string& text : {set_s, set_v, inc_s, inc_v}) {
    INFO(text);
    // In range (from the end too), v of a row's length or of 1, ±inf, NaN.
    for (std::int64_t i : {0, 1, 2, -1, -3}) {
      check_same_values(shipped_rules(), text, at(i, kAt[1]));
      check_same_values(shipped_rules(), text, at(i, f64_vector({kInf})));
      check_same_values(shipped_rules(), text, at(i, f64_vector({kNaN}), x31));
    }
    // Out of range either way, and a v that does not fit a row (3 into 2;
    // 2 into 1, which x[i] + v would widen): both fail, the same way, at
    // a position of the written graph (the read's, where the row's check
    // now runs).
    const ops::Graph g = graph(text);
    for (const auto& bad : {at(3, kAt[1]), at(-4, kAt[1]), at(1, f64_vector({1, 2, 3})),
                            at(0, f64_vector({1, 2}), x31)}) {
      const auto [written, opt] = failures(g, optimized(g), bad);
      if (text == set_s || text == inc_s) {
        // A scalar fits any row: only the index may be out of range.
        if (bad[4].element(0) < 3 && bad[4].element(0) >= -3) {
          CHECK(written.empty());
          CHECK(opt.empty());
          continue;
        }
      }
      INFO(written << "\n" << opt);
      CHECK(written.starts_with("t.eg:3:"));
      CHECK(opt.starts_with("t.eg:3:"));
      CHECK_FALSE(written.empty());
      CHECK(reason(written) == reason(opt));
    }
  }
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
