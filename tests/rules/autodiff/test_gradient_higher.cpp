// Higher-order gradients through the optimize pipeline (expand-gradients,
// innermost grad first): Hessian-vector products of a small MLP, and a
// third-order derivative, against finite differences of the order below.
#include "tests/rules/gradient_check.hpp"

#include "rules/autodiff/gradient.hpp"

#include "ops/graph_printer.hpp"

using namespace eqsat;
using namespace eqsat::test;

namespace {

const char* kMlp =
    "(input x (f64 4 3)) (input y (f64 4 2)) (input w1 (f64 3 5)) (input w2 (f64 5 2))"
    " (input v1 (f64 3 5)) (input v2 (f64 5 2))\n"
    "(let loss (mean (square (sub (dot (tanh (dot x w1)) w2) y))))\n";

ops::TermRef inner_product(ops::TermRef a, ops::TermRef b) {
  return ops::Term::make(ops::OpKind::Sum, {}, {ops::Term::make(ops::OpKind::Mul, {}, {a, b})});
}

}  // namespace

TEST_CASE("Hessian-vector products of a small MLP match finite differences", "[grad][higher]") {
  const ops::Graph loss = graph(std::string(kMlp) + "(output loss)");
  std::mt19937_64 rng(12);
  const auto inputs = random_inputs(loss, rng);
  const char* names[] = {"x", "y", "w1", "w2"};
  for (std::size_t w : {2u, 3u}) {
    for (std::size_t d : {4u, 5u}) {
      // Hv for the direction v (of w's type when d matches w, else the
      // mixed second derivative through the other weight).
      if ((d == 4) != (w == 2)) continue;
      const ops::TermRef g1 = rules::gradient(loss.outputs[0].term, loss.inputs[w]);
      const ops::Graph first = with_output(loss, inner_product(loss.inputs[d], g1));
      const ops::Array fd = finite_difference(first, inputs, w);
      const std::string text = std::string(kMlp) + "(output (grad (sum (mul " +
                               (d == 4 ? "v1" : "v2") + " (grad loss " + names[w] + "))) " +
                               names[w] + "))";
      const ops::Graph opt = rules::optimize(graph(text), shipped_rules());
      INFO(text << "\n" << ops::print_graph(opt));
      REQUIRE_FALSE(has_grad(opt.outputs[0].term));
      check_close(fd, run1(opt, inputs), 1e-5);
    }
  }
}

TEST_CASE("a third derivative expands innermost first and matches finite differences",
          "[grad][higher]") {
  const std::string in = "(input x (f64 3)) (input u (f64 3))\n";
  const std::string c = "(sum (mul (sin x) (exp (mul x 0.5))))";
  const ops::Graph g = graph(in + "(output " + c + ")");
  std::mt19937_64 rng(13);
  const auto inputs = random_inputs(g, rng);
  const ops::TermRef x = g.inputs[0], u = g.inputs[1];
  const ops::TermRef second =
      inner_product(u, rules::gradient(inner_product(u, rules::gradient(g.outputs[0].term, x)), x));
  const ops::Array fd = finite_difference(with_output(g, second), inputs, 0);
  const std::string text =
      in + "(output (grad (sum (mul u (grad (sum (mul u (grad " + c + " x))) x))) x))";
  const ops::Graph opt = rules::optimize(graph(text), shipped_rules());
  INFO(ops::print_graph(opt));
  REQUIRE_FALSE(has_grad(opt.outputs[0].term));
  check_close(fd, run1(opt, inputs), 1e-5);
}
