// The index-lift built-in applier (rules/tensor/index_lift.hpp): an index
// or slice of an elementwise op, a reduction or a softmax reads the
// operands instead, on static and unknown lengths, with the values (±∞ and
// NaN, bit for bit up to the sign of a NaN) and failures of the graph as written; operands whose
// length on the read axis is not provably the result's stay unread.
#include "tests/support/check_optimizes.hpp"
#include "tests/support/f64_array.hpp"

#include <cmath>
#include <cstring>
#include <limits>

using namespace eqsat;
using namespace eqsat::testing;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Pseudo-random f64 values with ±∞ and NaN mixed in.
ops::Array mixed(ops::Dims dims) {
  ops::Array a(ops::DType::F64, std::move(dims));
  for (std::int64_t i = 0; i < a.size(); ++i) {
    const double v = std::sin(1.7 * static_cast<double>(i) + 0.3) * 3;
    a.data<double>()[i] = i % 11 == 5 ? kInf : i % 13 == 7 ? -kInf : i % 17 == 3 ? kNaN : v;
  }
  return a;
}

// The graph `text` run as written and optimized gives the same bits (a
// NaN for a NaN, whatever its sign bit: kernels set it differently).
void check_same_bits(const std::string& text, const std::vector<ops::Array>& in) {
  const ops::Graph g = graph(text);
  const ops::Array a = backend::compile(g).run(in)[0];
  const ops::Array b = backend::compile(optimized(g)).run(in)[0];
  REQUIRE(a.shape() == b.shape());
  REQUIRE(a.dtype() == b.dtype());
  for (std::int64_t i = 0; i < a.size(); ++i) {
    INFO(text << " element " << i << ": " << a.data<double>()[i] << " and " << b.data<double>()[i]);
    const double u = a.data<double>()[i], w = b.data<double>()[i];
    CHECK(((std::isnan(u) && std::isnan(w)) || std::memcmp(&u, &w, sizeof(double)) == 0));
  }
}
}  // namespace

TEST_CASE("index-lift: a read of an elementwise op reads its operands", "[rules][index-lift]") {
  const std::string m = "(input x (f64 ? ?)) (input v (f64 ?))\n";
  check_optimizes(m + "(output (index (exp x) 1))", m + "(output (exp (index x 1)))");
  check_optimizes(m + "(output (index (cast x :dtype f32) 0))",
                  m + "(output (cast (index x 0) :dtype f32))");
  // A vector operand is stretched along the rows: it is read whole.
  check_optimizes(m + "(output (index (mul x v) 0))", m + "(output (mul v (index x 0)))");
  check_optimizes(m + "(output (slice (tanh x) :axis 1 :start 1))",
                  m + "(output (tanh (slice x :axis 1 :start 1)))");
  // where, with operands of one dim symbol (exp x has x's lengths).
  check_optimizes(m + "(output (index (where (lt x 0.0) (exp x) x) 0))",
                  m + "(let r (index x 0)) (output (where (lt r 0.0) (exp r) r))");
  check_same_bits(m + "(output (index (mul (exp x) v) 1))",
                  {mixed({3, 4}), f64_vector({1, kNaN, -2, kInf})});
  check_same_bits(m + "(output (slice (log1p x) :axis 1 :start 1 :step 2))",
                  {mixed({3, 5}), f64_vector({0})});
}

TEST_CASE("index-lift: a read of a reduction or softmax over other axes", "[rules][index-lift]") {
  const std::string x = "(input x (f64 5 3 2))\n";
  // test_local_subtensor_of_reduce's cases that index before the reduced axis
  check_optimizes(x + "(output (index (sum x :axis (2)) 0))",
                  x + "(output (sum (index x 0) :axis (1)))");
  check_optimizes(x + "(output (slice (max x :axis (1)) :axis 1 :start 1))",
                  x + "(output (max (slice x :axis 2 :start 1) :axis (1)))");
  check_optimizes(x + "(output (index (logsumexp x :axis (1 2) :keepdims true) 4))",
                  x + "(output (logsumexp (index x 4) :axis (0 1) :keepdims true))");
  // test_local_subtensor_of_softmax
  const std::string m = "(input x (f64 5 3))\n";
  check_optimizes(m + "(output (index (softmax x :axis 1) 0))",
                  m + "(output (softmax (index x 0) :axis 0))");
  check_optimizes(m + "(output (slice (log_softmax x :axis 0) :axis 1 :start 1))",
                  m + "(output (log_softmax (slice x :axis 1 :start 1) :axis 0))");
  for (const char* g : {"(index (sum x :axis (2)) 3)", "(index (mean x :axis (1 2)) 1)",
                        "(index (prod x :axis (1)) 0)", "(slice (min x :axis (2)) :start 2)"})
    check_same_bits(x + "(output " + std::string(g) + ")", {mixed({5, 3, 2})});
  check_same_bits(m + "(output (index (softmax x :axis 1) 2))", {mixed({5, 3})});
  // Long rows, where the fused reduction runs in blocks: the same bits.
  check_same_bits(
      "(input x (f64 3 5000)) (output (index (sum (exp x) :axis (1) :keepdims true) 1))",
      {mixed({3, 5000})});
}

TEST_CASE("index-lift: what it cannot prove stays, failures as written", "[rules][index-lift]") {
  // The reduced axis, or the softmax's, is the read one.
  const std::string x = "(input x (f64 5 3))\n";
  CHECK(optimized(graph(x + "(output (index (sum x :axis (0)) 1))")).outputs[0].term->kind() ==
        ops::OpKind::Index);
  CHECK(optimized(graph(x + "(output (index (softmax x :axis 0) 1))")).outputs[0].term->kind() ==
        ops::OpKind::Index);
  // Two matrices of unrelated unknown lengths: x may have one row stretched
  // to y's three, where x[2] would fail; or 3 rows against 4, where the add
  // fails and x[0] + y[0] would not.
  const std::string xy = "(input x (f64 ? ?)) (input y (f64 ? ?))\n";
  const ops::Graph g = graph(xy + "(output (index (add x y) 2))");
  const ops::Graph out = optimized(g);
  CHECK(out.outputs[0].term->kind() == ops::OpKind::Index);
  const ops::Array y3 = f64_array({3, 1}, {1, 2, 3});
  CHECK(run_optimized(xy + "(output (index (add x y) 2))", {f64_array({1, 1}, {10}), y3})
            .data<double>()[0] == 13);
  // An integer power with a negative exponent fails in a row not read.
  const std::string ip = "(input x (i64 ? ?)) (input e (i64 ? ?))\n";
  const ops::Graph p = graph(ip + "(output (index (pow x e) 0))");
  CHECK(optimized(p).outputs[0].term->kind() == ops::OpKind::Index);
  // An index out of range fails optimized as written, with its message.
  const std::string m = "(input x (f64 ? ?)) (input v (f64 ?))\n";
  const ops::Graph r = graph(m + "(output (index (exp (add x v)) 3))");
  const auto [written, opt] = failures(r, optimized(r), {mixed({3, 2}), f64_vector({1, 2})});
  CHECK(!written.empty());
  CHECK(written == opt);
  const auto [w2, o2] =
      failures(r, optimized(r), {mixed({4, 2}), f64_vector({1, 2, 3})});  // 2 vs 3 columns
  CHECK(!w2.empty());
  CHECK(!o2.empty());
}

TEST_CASE("index-lift: a constant row of a concatenation is a row of its operand",
          "[rules][index-lift]") {
  // test_local_subtensor_of_join
  const std::string in = "(input x (f64 2 3)) (input y (f64 4 3))\n";
  check_optimizes(in + "(output (index (concat x y) 3))", in + "(output (index y 1))");
  check_optimizes(in + "(output (index (concat x y) -5))", in + "(output (index x 1))");
  check_same_bits(in + "(output (index (concat x y) -2))", {mixed({2, 3}), mixed({4, 3})});
  // Out of range, or columns unknown statically (3 and 4 fail to concat):
  // the concat stays and fails as written.
  CHECK(optimized(graph(in + "(output (index (concat x y) 6))")).outputs[0].term->kind() ==
        ops::OpKind::Index);
  const std::string cols = "(input x (f64 2 ?)) (input y (f64 4 ?))\n";
  const ops::Graph g = graph(cols + "(output (index (concat x y) 3))");
  const ops::Graph out = optimized(g);
  CHECK(count_ops(out, ops::OpKind::Concat) == 1);
  const auto [written, opt] = failures(g, out, {mixed({2, 3}), mixed({4, 4})});
  CHECK(!written.empty());
  CHECK(written == opt);
}

TEST_CASE("index-lift: a whole slice, merged with its operand, is not lifted without end",
          "[rules][index-lift]") {
  // Seed 396 of the property test: slice(Y) is Y (it covers the axis), so
  // Y's class holds slice(Y); lifting that read through Y's own e-nodes
  // built slices of slices until memory ran out.
  const std::string in =
      "(input x (f32 2 3 4)) (input y (f64 ? 1))\n"
      "(let c (const (f32 2 3 4) (0 0 0 2 0 0 2 -2.5 1 3 3 2 -1 0.5 -2.5 -2.5 3 0.5 1 0.5 0.5 "
      "-2.5 3 1)))\n";
  const std::string g =
      in +
      "(output (slice (div 2.0 (where (gt (squeeze (expand_dims x :axis 0)) -2.5) (neg y) c))))";
  check_optimizes(g, in + "(output (div 2.0 (where (lt -2.5 x) (neg y) c)))");
  ops::Array x(ops::DType::F32, {2, 3, 4});
  for (std::int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = float(i % 7) - 3.0f;
  check_same_values(shipped_rules(), g, {x, f64_array({3, 1}, {kNaN, -kInf, 2})});
}

TEST_CASE("index-lift: a constant index of an axis after a reduced one", "[rules][index-lift]") {
  // test_local_subtensor_of_reduce, "indexing at the axis of reduction":
  // sum(x, 0)[2] = sum(x[:, 2], 0), the column read as a one-long slice
  // (a constant in range: the slice cannot check it); taken where the
  // reduction is long enough to pay for the copy.
  const std::string x = "(input x (f64 500 300 2))\n";
  check_optimizes(x + "(output (index (sum x :axis (0)) 2))",
                  x + "(output (sum (squeeze (slice x :axis 1 :start 2 :stop 3) :axis (1)) :axis "
                      "(0)))");
  check_optimizes(x + "(output (index (transpose x :perm (1 0 2)) -1))",
                  x + "(output (squeeze (slice x :axis 1 :start 299 :stop 300) :axis (1)))");
  const std::string small = "(input x (f64 5 3 2))\n";
  check_proves(shipped_rules(),
               small +
                   "(output (index (max x :axis (0)) -1)) (output (max (squeeze (slice x :axis "
                   "1 :start 2 :stop 3) :axis (1)) :axis (0)))");
  check_same_bits(small + "(output (index (sum x :axis (0)) 1))", {mixed({5, 3, 2})});
  // A run-time index, or one out of range, is not read this way.
  const std::string ri = small + "(input i i64)\n";
  CHECK(optimized(graph(ri + "(output (index (sum x :axis (0)) i))")).outputs[0].term->kind() ==
        ops::OpKind::Index);
  CHECK(optimized(graph(small + "(output (index (sum x :axis (0)) 3))")).outputs[0].term->kind() ==
        ops::OpKind::Index);
}

TEST_CASE("index-lift: a value read in several places is computed once, whole",
          "[rules][index-lift]") {
  // An LSTM step's gates: four slices of one sum of a product. Lifted, each
  // read would compute its part of the sum; extraction chose a larger
  // program than the written one, so the optimizer kept the written loop
  // and lost its other rewrites (scan-save-mem's :keep among them).
  const std::string loop = R"(
(input x (f32 20 4 6))
(input r (f32 8 32))
(let zero (zeros :shape (4 8) :dtype f32))
(let s (scan :sequences ((dot x (ones :shape (6 32) :dtype f32))) :sit-sot (zero zero)
  :non-sequences (r)
  (fn (xw_t h c r_)
    (let g (add xw_t (dot h r_)))
    (let c2 (add (mul (sigmoid (slice g :axis 1 :start 16 :stop 24)) c)
                 (mul (sigmoid (slice g :axis 1 :stop 8)) (tanh (slice g :axis 1 :start 24)))))
    (mul (sigmoid (slice g :axis 1 :start 8 :stop 16)) (tanh c2))
    c2)))
(output (index (get 0 s) -1))
)";
  const ops::Graph g = optimized(graph(loop));
  const std::string text = ops::print_graph(g);
  INFO(text);
  CHECK(text.find(":keep (1 1)") != std::string::npos);
  // Inside the body the sum is one add over the whole row.
  CHECK(text.find("(add p0 (dot p1 p3))") != std::string::npos);
  // Two reads of one elementwise value on unknown lengths: one exp.
  const ops::Graph two =
      optimized(graph("(input x (f64 ? 8))\n(let e (exp x))\n"
                      "(output (add (slice e :axis 1 :stop 4) (slice e :axis 1 :start 4)))"));
  CHECK(count_ops(two, ops::OpKind::Exp) == 1);
}
