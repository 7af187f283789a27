// The shape-identities built-in applier (rules/tensor/shape_identities.hpp) on the
// default schedule: slices, reshapes, transposes, flips, casts and whole-array
// set_slice / inc_slice that do nothing become their operand ("start ⇒
// goal"), and the gradient of a whole slice needs no inc_slice.
#include "tests/support/check_optimizes.hpp"

#include "backend/program.hpp"
#include "backend/runtime_error.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <utility>

using namespace eqsat;
using namespace eqsat::rules;
using namespace eqsat::testing;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

TEST_CASE("shape identities: slices covering the whole axis") {
  const std::string in = "(input x (f64 4 3))";
  check_optimizes(in + "(output (slice x :start 0))", in + "(output x)");
  check_optimizes(in + "(output (slice x :axis 1 :start 0 :stop 10))", in + "(output x)");
  check_optimizes(in + "(output (slice x :axis -1 :stop 3 :step 1))", in + "(output x)");
  // not the whole axis: kept (reversed, it is a flip: test_view_chains.cpp)
  check_optimizes(in + "(output (slice x :start 1))", in + "(output (slice x :start 1))");
  // unknown length: kept
  check_optimizes("(input y (f64 ?)) (output (slice y :start 0 :stop 5))",
                  "(input y (f64 ?)) (output (slice y :start 0 :stop 5))");
}

TEST_CASE("shape identities: flips, transposes and reshapes that do nothing") {
  const std::string in = "(input x (f64 2 3 4))";
  check_optimizes(in + "(output (flip (flip x :axis 1) :axis 1))", in + "(output x)");
  check_optimizes("(input x (f64 1 3)) (output (flip x :axis 0))",
                  "(input x (f64 1 3)) (output x)");
  check_optimizes(in + "(output (transpose (transpose x :perm (1 2 0)) :perm (2 0 1)))",
                  in + "(output x)");
  check_optimizes(in + "(output (transpose (transpose x :perm (1 0 2)) :perm (0 2 1)))",
                  in + "(output (transpose x :perm (1 2 0)))");
  check_optimizes(in + "(output (transpose x :perm (0 1 2)))", in + "(output x)");
  check_optimizes(in + "(output (reshape x :shape (2 3 4)))", in + "(output x)");
  check_optimizes(in + "(output (reshape x :shape (2 -1 4)))", in + "(output x)");
}

TEST_CASE("shape identities: set_slice and inc_slice of zeros over the whole array") {
  const std::string in = "(input x (f64 4 3)) (input v (f64 4 3)) (input r (f64 3))";
  check_optimizes(in + "(output (set_slice x v))", in + "(output v)");
  check_optimizes(in + "(output (inc_slice (zeros_like x) v :axis 0 :start 0))", in + "(output v)");
  check_optimizes(in + "(output (set_slice x r))", in + "(output (broadcast_to r :shape (4 3)))");
  // a part of the array, or a target that is not zero: kept
  // (zeros_like reads only x's shape: as cheap as the folded constant)
  check_optimizes(in + "(output (inc_slice (zeros_like x) r :start 1))",
                  in + "(output (inc_slice (zeros_like x) r :start 1))");
  check_optimizes(in + "(output (inc_slice x v))", in + "(output (inc_slice x v))");
  check_optimizes(in + "(output (set_slice x r :start 1))",
                  in + "(output (set_slice x r :start 1))");
}

TEST_CASE("shape identities: the gradient of a whole slice has no inc_slice") {
  const ops::Graph out = optimize(
      graph("(input x (f64 4 3)) (output (grad (sum (slice x :start 0)) x))"), shipped_rules());
  INFO(ops::print_graph(out));
  CHECK_FALSE(contains(out.outputs[0].term, ops::OpKind::IncSlice));
  CHECK_FALSE(contains(out.outputs[0].term, ops::OpKind::Grad));
}

TEST_CASE(
    "shape identities: an inc_slice of everything is an add, a concat with empties its "
    "operand") {
  // PyTensor's test_subtensor.py (inc of the whole array) and test_basic.py
  // (join with empty operands).
  const std::string in = "(input x (f64 4 3)) (input k (i64 3)) (input e (f64 0 3))";
  // equal in the e-graph; the cost model finds the one inc_slice cheaper
  check_proves(shipped_rules(),
               in + "(output (inc_slice x k)) (output (add x (cast k :dtype f64)))");
  check_optimizes(in + "(output (concat e x e :axis 0))", in + "(output x)");
  check_optimizes(in + "(output (concat x e :axis 0))", in + "(output x)");
  check_same_values(
      shipped_rules(), in + "(output (inc_slice x k))",
      {ops::Array::filled(ops::DType::F64, {4, 3}, 1.5),
       ops::Array::filled(ops::DType::I64, {3}, -2), ops::Array(ops::DType::F64, {0, 3})});
}

TEST_CASE("shape identities: an inc_slice of everything on unknown lengths") {
  // PyTensor's useless inc on lengths unknown statically: x + v where v
  // provably does not widen x (a scalar, a value of x's lengths); an
  // unrelated v of 3 elements would widen an x of 1, where the inc_slice
  // fails and the add gives 3 elements: not proven.
  const std::string in = "(input x (f64 ?)) (input v (f64 ?)) (input s f64)\n";
  check_proves(shipped_rules(), in + "(output (inc_slice x (exp x))) (output (add x (exp x)))");
  check_proves(shipped_rules(), in + "(output (inc_slice x s)) (output (add x s))");
  const ops::Graph g = graph(in + "(output (inc_slice x v)) (output (add x v))");
  CHECK_FALSE(prove_equal(g, g.outputs[0].term, g.outputs[1].term, shipped_rules()).explanation);
  check_same_values(
      shipped_rules(), in + "(output (inc_slice x (exp x))) (output (inc_slice x s))",
      {f64_vector({1, -kInf, kNaN}), f64_vector({2}), ops::Array::scalar(ops::DType::F64, 0.5)});
}

TEST_CASE("shape identities: a read of the slice just written") {
  // PyTensor's read of a write for slices: the region alone is written,
  // the check that v fits it kept (v of 3 into a region of 2 fails).
  const std::string in =
      "(input x (f64 ?)) (input v (f64 ?)) (input r (f64 8)) (input w (f64 2))\n";
  const std::string set = in + "(output (slice (set_slice x v :start 1 :stop 3) :start 1 :stop 3))";
  const std::string inc = in + "(output (slice (inc_slice x v :step -2) :step -2))";
  // Unknown lengths: proven (the cost model sees regions as long as x).
  check_proves(shipped_rules(), set + "(output (set_slice (slice x :start 1 :stop 3) v :axis 0))");
  check_proves(shipped_rules(), inc + "(output (inc_slice (slice x :step -2) v :axis 0))");
  // A region of static length: v broadcast to it (failing where v does
  // not fit: 3 elements into 2), or the region incremented.
  check_optimizes(in + "(output (slice (set_slice r v :start 1 :stop 3) :start 1 :stop 3))",
                  in + "(output (broadcast_to v :shape (2)))");
  check_optimizes(in + "(output (slice (set_slice r w :start 1 :stop 3) :start 1 :stop 3))",
                  in + "(output w)");
  check_optimizes(in + "(output (slice (inc_slice r v :step -2) :step -2))",
                  in + "(output (inc_slice (slice r :step -2) v :axis 0))");
  check_proves(shipped_rules(), in + "(output (slice (inc_slice r w :start 6) :start 6)) "
                                     "(output (add (slice r :start 6) w))");
  // Other bounds: not a read of the write.
  CHECK(count_ops(optimized(graph(in + "(output (slice (set_slice x v :start 1) :start 2))")),
                  ops::OpKind::SetSlice) == 1);
  for (const std::string& text : {set, inc})
    for (const auto& v : {f64_vector({kInf}), f64_vector({kNaN, -0.0})}) {
      INFO(text);
      check_same_values(shipped_rules(), text,
                        {f64_vector({1, -kInf, kNaN, 4}), v, iota({8}), iota({2})});
      if (v.size() == 1)  // an empty region takes one element (broadcast), not two
        check_same_values(shipped_rules(), text, {f64_vector({}), v, iota({8}), iota({2})});
    }
  for (const char* out : {"(slice (set_slice r v :start 1 :stop 3) :start 1 :stop 3)",
                          "(slice (inc_slice r v :step -2) :step -2)"})
    check_same_values(
        shipped_rules(), in + "(output " + out + ")",
        {iota({4}), f64_vector({-kInf}), f64_vector({1, kNaN, 3, 4, 5, 6, 7, kInf}), iota({2})});
  for (const std::string& text : {set, inc}) {
    const ops::Graph g = graph(text);
    const std::vector<ops::Array> bad = {iota({4}), f64_vector({1, 2, 3}), iota({8}), iota({2})};
    CHECK_THROWS_AS(backend::compile(g).run(bad), backend::RuntimeError);
    CHECK_THROWS_AS(backend::compile(optimized(g)).run(bad), backend::RuntimeError);
  }
}

TEST_CASE("shape identities: an inc_slice of everything of an unrelated unknown length") {
  // v may widen x (3 elements into 1: the inc_slice fails, x + v gives 3),
  // so the add reads v set into zeros of x's shape, which fails exactly
  // where v does not fit x.
  const std::string in = "(input x (f64 ?)) (input v (f64 ?)) (input m (f64 2 ?))\n";
  check_proves(shipped_rules(),
               in + "(output (inc_slice x v)) (output (add x (set_slice (zeros_like x) v)))");
  check_proves(shipped_rules(),
               in + "(output (inc_slice m v)) (output (add m (set_slice (zeros_like m) v)))");
  const std::string text = in + "(output (add x (set_slice (zeros_like x) v)))";
  const std::string inc = in + "(output (inc_slice x v))";
  const ops::Array m = ops::Array::filled(ops::DType::F64, {2, 3}, 0.5);
  for (const auto& [x, v] : {std::pair{f64_vector({1, -kInf, kNaN}), f64_vector({2, 3, -0.0})},
                             std::pair{f64_vector({1, -kInf, kNaN}), f64_vector({kInf})},
                             std::pair{f64_vector({-0.0}), f64_vector({-0.0})},
                             std::pair{f64_vector({}), f64_vector({5})}}) {
    check_same_values(shipped_rules(), text, {x, v, m});
    check_same_values(shipped_rules(), inc, {x, v, m});
    // The rewritten form runs the inc_slice's values.
    const auto a = backend::compile(graph(text)).run({x, v, m})[0];
    const auto b = backend::compile(graph(inc)).run({x, v, m})[0];
    REQUIRE(a.shape() == b.shape());
    for (std::int64_t i = 0; i < a.size(); ++i)
      CHECK((std::isnan(b.element(i)) ? std::isnan(a.element(i)) : a.element(i) == b.element(i)));
  }
  // v wider than x, or of another length: both fail, with one message.
  for (const auto& [x, v] : {std::pair{f64_vector({1}), f64_vector({1, 2, 3})},
                             std::pair{f64_vector({1, 2, 3}), f64_vector({1, 2})},
                             std::pair{f64_vector({}), f64_vector({1, 2})}}) {
    std::string messages[2];
    int k = 0;
    for (const std::string& t : {text, inc}) {
      try {
        backend::compile(graph(t)).run({x, v, m});
      } catch (const backend::RuntimeError& e) {
        messages[k] = e.what();
      }
      ++k;
    }
    INFO(messages[0] << "\n" << messages[1]);
    CHECK(messages[0].find("does not fit a target of shape") != std::string::npos);
    CHECK(messages[0].substr(messages[0].find("value")) ==
          messages[1].substr(messages[1].find("value")));
  }
}

TEST_CASE("shape identities: a set_slice of everything on unknown lengths") {
  // v is the set only where it provably has x's shape: v of 1 element set
  // into x of 3 gives 3 elements (it was v, of 1, before).
  const std::string in =
      "(input x (f64 ?)) (input a (f64 ?)) (input b (f64 ?)) "
      "(input m (f64 ? 3)) (input r (f64 3))\n";
  const ops::Graph g = graph(in + "(output (set_slice x (add a b))) (output (add a b))");
  CHECK_FALSE(prove_equal(g, g.outputs[0].term, g.outputs[1].term, shipped_rules()).explanation);
  check_same_values(shipped_rules(), in + "(output (set_slice x (add a b)))",
                    {f64_vector({1, 2, 3}), f64_vector({5}), f64_vector({kInf}),
                     ops::Array(ops::DType::F64, {0, 3}), f64_vector({1, 2, 3})});
  check_optimizes(in + "(output (set_slice x (exp x)))", in + "(output (exp x))");
  // A row that provably does not widen m: the row broadcast like m.
  check_proves(shipped_rules(), in + "(output (set_slice m r)) (output (broadcast_like r m))");
  check_same_values(
      shipped_rules(), in + "(output (set_slice m r))",
      {f64_vector({1}), f64_vector({1}), f64_vector({1}),
       ops::Array::filled(ops::DType::F64, {2, 3}, 0.5), f64_vector({kNaN, -kInf, 2})});
}

TEST_CASE("shape identities: a cast to the dtype its operand has is the operand") {
  // PyTensor's local_useless_cast; gradients of mean build such casts.
  const std::string in = "(input x (f64 3)) (input k (i64 ?))";
  check_optimizes(in + "(output (mul (cast x :dtype f64) 2.0))", in + "(output (mul x 2.0))");
  check_optimizes(in + "(output (cast k :dtype i64))", in + "(output k)");
  // a cast that changes the dtype stays
  check_optimizes(in + "(output (cast k :dtype f64))", in + "(output (cast k :dtype f64))");
  const ops::Graph out =
      optimize(graph("(input x (f64 ? 3)) (output (grad (mean (log_softmax x :axis 1)) x))"),
               shipped_rules());
  INFO(ops::print_graph(out));
  // the pullback of mean casts its cotangent to x's dtype: f64 already
  CHECK(ops::print_graph(out).find("(zeros_like (cast") == std::string::npos);
}

TEST_CASE("shape-identities: a region's own values written back are the array",
          "[rules][shape-identities]") {
  // PyTensor's local_useless_inc_subtensor: set_subtensor(x[1:], x[1:])
  check_optimizes("(input x (f64 5)) (output (set_slice x (slice x :start 1) :start 1))",
                  "(input x (f64 5)) (output x)");
  check_optimizes(
      "(input x (f64 4 6)) (output (set_slice x (slice x :axis 1 :start 1 :step 2) :axis 1 "
      ":start 1 :step 2))",
      "(input x (f64 4 6)) (output x)");
  // Another region, or the values of another array: the write stays.
  for (const char* g : {"(set_slice x (slice x :start 1 :stop 5) :start 2 :stop 6)",
                        "(set_slice x (slice (neg x) :start 1) :start 1)"})
    CHECK(count_ops(optimized(graph("(input x (f64 7)) (output " + std::string(g) + ")")),
                    ops::OpKind::SetSlice) == 1);
}

TEST_CASE("shape-identities: a concat with an empty operand, other lengths unknown",
          "[rules][shape-identities]") {
  // test_local_join_empty on a matrix of unknown rows: the empty operand's
  // columns match statically, so the concat cannot fail and is x.
  check_optimizes("(input x (f64 ? 3)) (input e (f64 0 3)) (output (concat x e :axis 0))",
                  "(input x (f64 ? 3)) (input e (f64 0 3)) (output x)");
  // Columns unknown: 3 against 4 fails as written, so the concat stays.
  const std::string in = "(input x (f64 ? ?)) (input e (f64 0 ?))\n";
  const ops::Graph g = graph(in + "(output (concat x e :axis 0))");
  const ops::Graph out = optimized(g);
  CHECK(count_ops(out, ops::OpKind::Concat) == 1);
  const auto [written, opt] =
      failures(g, out, {ops::Array(ops::DType::F64, {2, 3}), ops::Array(ops::DType::F64, {0, 4})});
  CHECK(!written.empty());
  CHECK(written == opt);
}

TEST_CASE("shape-identities: a concat of stacks of scalars is one stack",
          "[rules][shape-identities]") {
  // PyTensor's test_local_join_make_vector
  const std::string in = "(input a f64) (input b f64) (input c i32)\n";
  check_optimizes(in + "(output (concat (stack a b) (stack c) (expand_dims b :axis 0)))",
                  in + "(output (stack a b c b))");
  ops::Array a(ops::DType::F64, {}), b(ops::DType::F64, {}), c(ops::DType::I32, {});
  a.data<double>()[0] = std::numeric_limits<double>::quiet_NaN();
  b.data<double>()[0] = -std::numeric_limits<double>::infinity();
  c.data<std::int32_t>()[0] = 7;
  check_same_values(shipped_rules(), in + "(output (concat (stack a b) (stack c)))", {a, b, c});
  // A vector that is not a stack of scalars: the concat stays.
  CHECK(count_ops(optimized(graph("(input a f64) (input v (f64 ?)) (output (concat (stack a) "
                                  "(exp v)))")),
                  ops::OpKind::Concat) == 1);
}
