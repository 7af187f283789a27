// The shape-identities built-in applier (rules/tensor/shape_identities.hpp) on the
// default schedule: slices, reshapes, transposes, flips, casts and whole-array
// set_slice / inc_slice that do nothing become their operand ("start ⇒
// goal"), and the gradient of a whole slice needs no inc_slice.
#include "tests/support/check_optimizes.hpp"

#include <limits>

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
