// Pullbacks at the edges of their domains (rules/autodiff/pullback.cpp and the zero
// masks of rules/autodiff/gradient.cpp), each as written and after optimization:
// prod with zeros, ties of maximum/minimum and max/min, abs and sqrt at 0,
// pow's exponent at base 0, log1mexp at ±0, where with NaN or inf in the
// branch not taken, integer inputs, a wrt the cost does not use, an element
// at −∞ in a softmax or log-sum-exp.
#include "tests/rules/gradient_check.hpp"

#include "rules/autodiff/gradient.hpp"

#include "ops/graph_printer.hpp"
#include "rules/autodiff/pullback.hpp"

#include <limits>

using namespace eqsat;
using namespace eqsat::test;

namespace {

ops::Array vec(std::vector<double> v, ops::Dims shape = {}) {
  if (shape.empty()) shape = {static_cast<std::int64_t>(v.size())};
  ops::Array a(ops::DType::F64, shape);
  for (std::size_t i = 0; i < v.size(); ++i) a.data<double>()[i] = v[i];
  return a;
}

// The gradient of COST with respect to x at `x`, as written and optimized;
// both must equal `want` exactly (NaN nowhere unless wanted).
void check_gradient(const std::string& inputs, const std::string& cost,
                    const std::vector<ops::Array>& at, const std::vector<double>& want) {
  const ops::Graph c = graph(inputs + "(output " + cost + ")");
  const ops::Graph direct = with_output(c, rules::gradient(c.outputs[0].term, c.inputs[0]));
  const ops::Graph opt =
      rules::optimize(graph(inputs + "(output (grad " + cost + " x))"), shipped_rules());
  for (const ops::Graph* g : {&direct, &opt}) {
    INFO(cost << "\n" << ops::print_graph(*g));
    const ops::Array d = run1(*g, at);
    REQUIRE(d.size() == static_cast<std::int64_t>(want.size()));
    for (std::size_t i = 0; i < want.size(); ++i) {
      INFO("element " << i);
      if (std::isinf(want[i]))
        CHECK(d.element(static_cast<std::int64_t>(i)) == want[i]);
      else
        CHECK(d.element(static_cast<std::int64_t>(i)) == Approx(want[i]).margin(1e-12));
    }
  }
}

}  // namespace

TEST_CASE("prod with zeros: the gradient is the product of the others", "[grad][edges]") {
  const std::string in = "(input x (f64 3))\n";
  check_gradient(in, "(prod x)", {vec({2, 0, 3})}, {0, 6, 0});
  check_gradient(in, "(prod x)", {vec({2, 0, 0})}, {0, 0, 0});
  check_gradient(in, "(prod x)", {vec({2, -1, 3})}, {-3, 6, -2});
  check_gradient("(input x (f64 2 3))\n", "(sum (mul (prod x :axis 1) (const (f64 2) (1 10))))",
                 {vec({0, 4, 5, 1, 2, 3}, {2, 3})}, {20, 0, 0, 60, 30, 20});
  // Second derivative: d/dx_1 of (product of the others of x_0) is x_2, no NaN.
  const ops::Graph c = graph(in + "(output (prod x))");
  const ops::TermRef g1 = rules::gradient(c.outputs[0].term, c.inputs[0]);
  const ops::TermRef e0 =
      ops::Term::make(ops::OpKind::Index, {}, {g1, ops::Term::scalar(ops::DType::I64, 0)});
  const ops::Array h = run1(with_output(c, rules::gradient(e0, c.inputs[0])), {vec({2, 0, 3})});
  CHECK(h.element(0) == 0);
  CHECK(h.element(1) == 3);
  CHECK(h.element(2) == 0);
  // Away from zeros, against finite differences.
  std::mt19937_64 rng(6);
  const ops::Graph m = graph("(input x (f64 3 4))\n(output (sum (prod x :axis 0)))");
  const auto inputs = random_inputs(m, rng);
  check_close(finite_difference(m, inputs, 0),
              run1(with_output(m, rules::gradient(m.outputs[0].term, m.inputs[0])), inputs), 1e-6);
}

TEST_CASE("ties: maximum and minimum pick the first operand, max and min split evenly",
          "[grad][edges]") {
  const std::string in = "(input x (f64 3)) (input y (f64 3))\n";
  const auto xs = vec({1, 2, 3}), ys = vec({1, 5, 0});
  check_gradient(in, "(sum (maximum x y))", {xs, ys}, {1, 0, 1});
  check_gradient(in, "(sum (minimum x y))", {xs, ys}, {1, 1, 0});
  check_gradient(in, "(sum (maximum y x))", {xs, ys}, {0, 0, 1});
  check_gradient(in, "(max x)", {vec({3, 1, 3}), ys}, {0.5, 0, 0.5});
  check_gradient(in, "(min x)", {vec({1, 1, 1}), ys}, {1.0 / 3, 1.0 / 3, 1.0 / 3});
}

TEST_CASE("abs and sqrt at 0", "[grad][edges]") {
  const std::string in = "(input x (f64 3))\n";
  const double inf = std::numeric_limits<double>::infinity();
  check_gradient(in, "(sum (abs x))", {vec({0, -2, 3})}, {0, -1, 1});
  check_gradient(in, "(sum (sqrt x))", {vec({0, 4, 1})}, {inf, 0.25, 0.5});
  // In the branch of a where not taken, 0 rather than 0 * inf.
  check_gradient(in, "(sum (where (gt x 0.0) (sqrt x) 0.0))", {vec({0, 4, 1})}, {0, 0.25, 0.5});
}

TEST_CASE("pow's exponent at base 0 and log1mexp at 0: PyTensor's values", "[grad][edges]") {
  const double inf = std::numeric_limits<double>::infinity();
  // d(bˣ)/dx = bˣ log b is 0 at b = 0 (the formula gives 0 · −∞ = NaN).
  check_gradient("(input x (f64 3)) (input b (f64 3))\n", "(sum (pow b x))",
                 {vec({2, 0.5, 3}), vec({0, 0, 2})}, {0, 0, 8 * std::log(2.0)});
  // d/dx log(1 − eˣ) = −1/expm1(−x) is −∞ at +0 and −0 alike.
  check_gradient("(input x (f64 3))\n", "(sum (log1mexp x))", {vec({0.0, -0.0, -1})},
                 {-inf, -inf, -1 / std::expm1(1.0)});
}

TEST_CASE("where: NaN or inf in the branch not taken never reaches the gradient", "[grad][edges]") {
  const std::string in = "(input x (f64 4))\n";
  const auto at = vec({-1, 0, 2, 1000});
  check_gradient(in, "(sum (where (gt x 0.0) (log x) 0.0))", {at}, {0, 0, 0.5, 0.001});
  check_gradient(in, "(sum (where (lt x 100.0) (exp x) 0.0))", {at},
                 {std::exp(-1.0), 1, std::exp(2.0), 0});
  check_gradient(in, "(sum (where (gt x 0.0) (sqrt x) (mul x 3.0)))", {at},
                 {3, 3, 0.5 / std::sqrt(2.0), 0.5 / std::sqrt(1000.0)});
  check_gradient(in, "(sum (where (le x 0.0) 1.0 (reciprocal (mul x x))))", {at},
                 {0, 0, -2 / 8.0, -2 / 1e9});
  // Nested: the inner where's untaken branch is masked through the outer one.
  check_gradient(in, "(sum (where (gt x -0.5) (where (gt x 0.5) (log x) (mul x 2.0)) 0.0))", {at},
                 {0, 2, 0.5, 0.001});
}

TEST_CASE(
    "elements an index, slice or set_index does not read get 0, even where the derivative is NaN",
    "[grad][edges]") {
  // Finite differences of the written cost: 0 for an element it never
  // reads (JAX and PyTensor give 0 · NaN = NaN there).
  const std::string in = "(input x (f64 4))\n";
  const auto at = vec({4, -1, 1, -4});
  check_gradient(in, "(index (sqrt x) 0)", {at}, {0.25, 0, 0, 0});
  check_gradient(in, "(sum (slice (log x) :start 2 :stop 3))", {at}, {0, 0, 1, 0});
  check_gradient(in, "(index (sqrt x) -2)", {at}, {0, 0, 0.5, 0});
  // set_index overwrites element 1: the NaN derivative there is not read.
  check_gradient(in, "(sum (set_index (pow x 0.5) 1 2.0))", {vec({4, -1, 1, 9})},
                 {0.25, 0, 0.5, 1 / 6.0});
  // Through a where: the element read is in the branch not taken.
  check_gradient(in, "(index (where (gt x 0.0) (sqrt x) (mul x 2.0)) 1)", {at}, {0, 2, 0, 0});
}

TEST_CASE(
    "an operand broadcast or contracted along an axis empty at run time gets 0, even where its "
    "derivative is NaN",
    "[grad][edges]") {
  // e has no row when the graph runs: the cost is 0 whatever x is.
  check_gradient("(input x (f64 1)) (input e (f64 ?))\n", "(sum (add e (sqrt x)))",
                 {vec({-1}), vec({}, {0})}, {0});
  check_gradient("(input x (f64 2 3)) (input e (f64 ? 2))\n", "(sum (dot e (log x)))",
                 {vec({1, -1, 2, -3, 0, 4}, {2, 3}), vec({}, {0, 2})}, {0, 0, 0, 0, 0, 0});
  // With rows, the same gradients as always.
  check_gradient("(input x (f64 1)) (input e (f64 ?))\n", "(sum (add e (sqrt x)))",
                 {vec({4}), vec({1, 2})}, {0.5});
}

TEST_CASE("integer inputs get no gradient and an unused wrt gets zeros", "[grad][edges]") {
  const ops::Graph g = graph(
      "(input x (f64 3)) (input k (i64 3)) (input y (f64 2))\n"
      "(output (sum (mul (exp x) (cast (mul k k) :dtype f64))))");
  CHECK_THROWS_AS(rules::gradient(g.outputs[0].term, g.inputs[1]), ops::PullbackError);
  ops::Array k(ops::DType::I64, {3});
  for (int i = 0; i < 3; ++i) k.data<std::int64_t>()[i] = i + 1;
  const ops::Array x = vec({0.1, 0.2, 0.3});
  const ops::Array d =
      run1(with_output(g, rules::gradient(g.outputs[0].term, g.inputs[0])), {x, k, vec({0, 0})});
  for (int i = 0; i < 3; ++i)
    CHECK(d.element(i) == Approx(std::exp(x.element(i)) * (i + 1) * (i + 1)));
  const ops::TermRef z = rules::gradient(g.outputs[0].term, g.inputs[2]);
  CHECK(z->kind() == ops::OpKind::ZerosLike);
  const ops::Array dz = run1(with_output(g, z), {x, k, vec({4, 5})});
  CHECK(dz.element(0) == 0);
  CHECK(dz.element(1) == 0);
}

TEST_CASE("resize_rows: the gradient cuts back the padding and pads back the cut rows",
          "[grad][edges]") {
  const std::string inputs = "(input x (f64 3)) (input n i64) (input w (f64 5))";
  const auto at = [&](std::int64_t n) {
    return std::vector<ops::Array>{vec({1, 2, 3}),
                                   ops::Array::filled(ops::DType::I64, {}, static_cast<double>(n)),
                                   vec({10, 20, 30, 40, 50})};
  };
  // The first n weights meet x's rows; rows past x's end are zeros.
  const std::string cost = "(sum (mul (resize_rows x n) (resize_rows (slice w :stop 3) n)))";
  check_gradient(inputs, cost, at(2), {10, 20, 0});
  check_gradient(inputs, cost, at(3), {10, 20, 30});
  check_gradient(inputs, cost, at(5), {10, 20, 30});
  check_gradient(inputs, cost, at(0), {0, 0, 0});
}

TEST_CASE("broadcasting known only at run time: the cotangent is summed to the run-time shape",
          "[grad][edges]") {
  // Issue 25 point 6: x of 1 element against y of 3 was broadcast, so its
  // gradient is one sum; of 3 elements it was not.
  const std::string inputs = "(input x (f64 ?)) (input y (f64 3))";
  check_gradient(inputs, "(sum (mul x y))", {vec({5}), vec({1, 2, 3})}, {6});
  check_gradient(inputs, "(sum (mul x y))", {vec({5, 5, 5}), vec({1, 2, 3})}, {1, 2, 3});
  // broadcast_to, and an unknown axis that is not the first.
  const std::string to = "(input x (f64 ?)) (input w (f64 2 3))";
  const std::string cost = "(sum (mul (broadcast_to x :shape (2 3)) w))";
  check_gradient(to, cost, {vec({1}), vec({1, 2, 3, 4, 5, 6}, {2, 3})}, {21});
  check_gradient(to, cost, {vec({1, 1, 1}), vec({1, 2, 3, 4, 5, 6}, {2, 3})}, {5, 7, 9});
  const std::string cols = "(input x (f64 2 ?)) (input y (f64 2 3))";
  check_gradient(cols, "(sum (mul x y))", {vec({1, 1}, {2, 1}), vec({1, 2, 3, 4, 5, 6}, {2, 3})},
                 {6, 15});
}

TEST_CASE(
    "an element at -inf in a softmax or log-sum-exp gets 0, even where its derivative is "
    "infinite",
    "[grad][edges]") {
  // x / max(y, 0) is -inf at element 0 (y < 0): it weighs 0 in the
  // log-sum-exp, and stays -inf a small step away, so finite differences
  // give 0 there (JAX and PyTensor: 0 · (1/0) = NaN).
  const std::string in = "(input x (f64 3)) (input y (f64 3))\n";
  const std::vector<ops::Array> at{vec({-1, 1, 2}), vec({-1, 1, 2})};
  check_gradient(in, "(logsumexp (div x (maximum y 0.0)))", at, {0, 0.5, 0.25});
  check_gradient(in, "(index (softmax (div x (maximum y 0.0)) :axis 0) 1)", at, {0, 0.25, -0.125});
}
