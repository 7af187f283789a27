// The tensor analysis's facts about a class: here the lengths `dim` reads
// from a static type (an axis of an op's result, a loop's step count), and
// the ones it must leave to run time.
#include "rules/tensor/tensor_egraph.hpp"

#include "tests/support/load_outputs.hpp"

#include "ops/graph_parser.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using namespace eqsat::rules;

namespace {

// The analysis's "every element equals" fact for the first output of `text`.
std::optional<double> uniform_of_output(const std::string& text) {
  const ops::Graph g = ops::parse_graph(text, "t.eg", ".");
  TensorEGraph eg;
  return eg.data(eg.add_term(g.outputs[0].term)).uniform;
}

}  // namespace

TEST_CASE("dim of a statically known axis is a constant") {
  CHECK(uniform_of_output("(input x (f64 30 4)) (output (dim (exp x) :axis 1))") == 4.0);
  // A loop's output is as long as its constant step count.
  CHECK(uniform_of_output(R"((input h0 (f64 3))
    (output (dim (get 0 (scan :n-steps 7 :sit-sot (h0) (fn (h) (tanh h)))))))") == 7.0);
  // Unknown lengths stay unknown: an input's, an until-loop's.
  CHECK_FALSE(uniform_of_output("(input x (f64 ? 4)) (output (dim x))"));
  CHECK_FALSE(uniform_of_output(R"((input h0 f64)
    (output (dim (get 0 (scan :n-steps 7 :until true :sit-sot (h0)
      (fn (h) (mul h 2.0) (gt h 5.0)))))))"));
  // The values of a constant array are not its length.
  CHECK(uniform_of_output("(input x (f64 5)) (output (dim (zeros_like x)))") == 5.0);
}

TEST_CASE("a value whose computation may fail is not folded") {
  // Issue 25 point 8: x has 3 rows, so (index x 5) fails when the graph
  // runs; its length is not 4, it is an error. In range, it is 4.
  CHECK_FALSE(uniform_of_output("(input x (f64 3 4)) (output (dim (index x 5) :axis 0))"));
  CHECK_FALSE(uniform_of_output("(input x (f64 3 4)) (output (dim (index x -4) :axis 0))"));
  CHECK(uniform_of_output("(input x (f64 3 4)) (output (dim (index x -3) :axis 0))") == 4.0);
  // A run-time index, shapes that may not broadcast, a max over an axis
  // that may be empty, a loop whose sequence may be too short.
  CHECK_FALSE(
      uniform_of_output("(input x (f64 3 4)) (input i i64) (output (dim (index x i) :axis 0))"));
  CHECK_FALSE(
      uniform_of_output("(input x (f64 ?)) (input y (f64 3)) (output (zeros_like (add x y)))"));
  CHECK(uniform_of_output("(input x (f64 ?)) (output (zeros_like (add x 1.0)))") == 0.0);
  CHECK_FALSE(uniform_of_output("(input x (f64 ?)) (output (max (zeros_like x)))"));
  CHECK_FALSE(uniform_of_output(R"((input xs (f64 6)) (input h0 f64)
    (output (dim (get 0 (scan :n-steps 10 :sequences (xs) :sit-sot (h0)
      (fn (x h) (add x h)))))))"));
  CHECK(uniform_of_output(R"((input xs (f64 6)) (input h0 f64)
    (output (dim (get 0 (scan :n-steps 6 :sequences (xs) :sit-sot (h0)
      (fn (x h) (add x h)))))))") == 6.0);
}

TEST_CASE("a class is as sure to compute as its surest form") {
  TensorEGraph eg;
  const ops::Graph g = ops::parse_graph(
      "(input x (f64 3 4)) (input i i64) (output (index x i)) (output (index x 1))", "t.eg", ".");
  const egraph::EClassId any = eg.add_term(g.outputs[0].term);
  const egraph::EClassId one = eg.add_term(g.outputs[1].term);
  CHECK(eg.data(any).may_fail);
  CHECK_FALSE(eg.data(one).may_fail);
  CHECK(drops_check(eg, any, one));
  CHECK_FALSE(drops_check(eg, one, any));
  eg.egraph().merge(any, one);
  eg.egraph().rebuild();
  CHECK_FALSE(eg.data(any).may_fail);
}

namespace {

// The analysis's facts about each output of `text`.
std::vector<TensorData> facts(const std::string& text) {
  const ops::Graph g = ops::parse_graph(text, "t.eg", ".");
  TensorEGraph eg;
  std::vector<TensorData> out;
  for (const auto& o : g.outputs) out.push_back(eg.data(eg.add_term(o.term)));
  return out;
}

}  // namespace

TEST_CASE("abs and square of an integer are not known nonnegative (they wrap)") {
  const auto f = facts(
      "(input k (i32 3)) (input x (f64 3))"
      " (output (abs k)) (output (square k)) (output (abs x)) (output (square x))");
  CHECK_FALSE(f[0].nonneg);  // abs(-2147483648) is -2147483648
  CHECK_FALSE(f[1].nonneg);  // 46341² wraps below 0
  CHECK(f[2].nonneg);
  CHECK(f[3].nonneg);
}

TEST_CASE("the analysis knows every dtype a class was made with") {
  TensorEGraph eg;
  auto load = [&](const std::string& text) { testing::load_outputs(eg, text); };
  CHECK(eg.analysis().dtypes_made() == 0);
  load("(input x (f64 3)) (output (exp (add x 1.0)))");
  CHECK(eg.analysis().dtypes_made() == dtype_bit(ops::DType::F64));
  // dim is an i64 and a comparison a bool, whatever their operands.
  load("(input x (f64 3)) (output (dim x))");
  CHECK(eg.analysis().dtypes_made() == (dtype_bit(ops::DType::F64) | dtype_bit(ops::DType::I64)));
  load("(input x (f64 3)) (output (gt x 0.0))");
  CHECK(eg.analysis().dtypes_made() ==
        (dtype_bit(ops::DType::F64) | dtype_bit(ops::DType::I64) | dtype_bit(ops::DType::Bool)));
}
