// Gradients through calls (rules/autodiff/call_pullback.cpp): a def's pullback def
// is built once and shared by every call, `:inline false` defs stay calls,
// and gradients of gradients go through calls; all against finite
// differences.
#include "tests/rules/gradient_check.hpp"

#include "rules/autodiff/gradient.hpp"
#include "rules/autodiff/vjp.hpp"

#include "ops/graph_printer.hpp"

using namespace eqsat;
using namespace eqsat::test;
using rules::gradient;

namespace {

const char* kDefs =
    "(input x (f64 3)) (input y (f64 3)) (input v (f64 3))\n"
    "(def f (fn ((p (f64 3)) (q (f64 3))) (mul (sin p) q) (exp (mul p 0.5))) :inline false)\n"
    "(def g (fn ((p (f64 3))) (tanh (mul p p))))\n";

}  // namespace

TEST_CASE("a def is differentiated once and its pullback def shared by every call",
          "[grad][calls]") {
  // Every call reads both of f's outputs: one pullback def serves them all
  // (a call reading one output calls the def's pullback for that one).
  const ops::Graph cost = graph(std::string(kDefs) +
                                "(let a (call f x y)) (let b (call f y x))"
                                " (let c (call f (call g x) y))\n"
                                "(output (sum (add (mul (get 0 a) (get 1 a)) (add (mul (get 1 b)"
                                " (get 0 c)) (add (get 0 b) (get 1 c))))))");
  std::mt19937_64 rng(3);
  const auto inputs = random_inputs(cost, rng);
  for (std::size_t w = 0; w < 2; ++w) {
    const ops::TermRef d = gradient(cost.outputs[0].term, cost.inputs[w]);
    INFO(ops::print_graph(with_output(cost, d)));
    // f, g and one pullback def each (g's only for x, which g reads):
    // three calls of f's pullback def.
    const ops::TermRef f = cost.outputs[0].term->operand(0)->operand(0)->operand(0)->operand(0);
    REQUIRE(f->kind() == ops::OpKind::Call);
    const ops::TermRef df = rules::pullback_def(f->operand(0));
    REQUIRE(df);
    CHECK(df == rules::pullback_def(f->operand(0)));
    CHECK_FALSE(df->attrs().get_or<bool>(ops::AttrKey::Inline, true));
    std::size_t calls_of_df = 0;
    for_each_term(d, [&](ops::TermRef t) {
      calls_of_df += t->kind() == ops::OpKind::Call && t->operand(0) == df;
    });
    CHECK(calls_of_df == 3);
    CHECK(count_ops(d, ops::OpKind::Fn) == (w == 0 ? 4u : 3u));
    check_close(finite_difference(cost, inputs, w), run1(with_output(cost, d), inputs), 1e-5);
  }
}

TEST_CASE(
    "a call pulls back only the outputs a cost reads - a NaN derivative behind another stays out",
    "[grad][calls]") {
  // h's first output is NaN at p < 0 and the cost never reads it: its
  // cotangent is a structural zero, not zeros multiplied by sqrt's NaN
  // derivative in the pullback def (issue 25, point 9's like for calls).
  // r's second parameter reaches only the output the cost does not read.
  const ops::Graph cost = graph(
      "(input x (f64 3)) (input z (f64 3))\n"
      "(def h (fn ((p (f64 3))) (sqrt p) (mul p 2.0)) :inline false)\n"
      "(def r (fn ((p (f64 3)) (q (f64 3))) (mul p 3.0) (mul p (sqrt q))) :inline false)\n"
      "(output (sum (add (get 1 (call h x)) (get 0 (call r x z)))))");
  ops::Array x(ops::DType::F64, {3}), z(ops::DType::F64, {3});
  for (int i = 0; i < 3; ++i) {
    x.data<double>()[i] = i == 1 ? -2.0 : 1.0 + i;
    z.data<double>()[i] = -1.0 - i;
  }
  const std::vector<ops::Array> inputs{x, z};
  for (std::size_t w = 0; w < 2; ++w) {
    const ops::TermRef d = gradient(cost.outputs[0].term, cost.inputs[w]);
    INFO(ops::print_graph(with_output(cost, d)));
    const ops::Array got = run1(with_output(cost, d), inputs);
    for (std::int64_t i = 0; i < 3; ++i) CHECK(got.element(i) == (w == 0 ? 5.0 : 0.0));
    check_close(finite_difference(cost, inputs, w), got, 1e-6);
  }
  // Neither call uses the pullback def for all outputs.
  const ops::TermRef dx = gradient(cost.outputs[0].term, cost.inputs[0]);
  const ops::TermRef h = cost.outputs[0].term->operand(0)->operand(0)->operand(0);
  REQUIRE(h->kind() == ops::OpKind::Call);
  std::size_t calls_of_full = 0;
  for_each_term(dx, [&](ops::TermRef t) {
    calls_of_full +=
        t->kind() == ops::OpKind::Call && t->operand(0) == rules::pullback_def(h->operand(0));
  });
  CHECK(calls_of_full == 0);
}

TEST_CASE("a def with inline false is differentiated right by the optimize pipeline",
          "[grad][calls]") {
  // The gradient keeps the calls; the optimizer may still inline them when
  // that is cheaper (docs/language.md), as here.
  const std::string cost = "(sum (mul v (get 0 (call f x y))))";
  const ops::Graph g = graph(std::string(kDefs) + "(output (grad " + cost + " x))");
  const ops::Graph opt = rules::optimize(g, shipped_rules());
  INFO(ops::print_graph(opt));
  REQUIRE_FALSE(has_grad(opt.outputs[0].term));
  const ops::Graph c = graph(std::string(kDefs) + "(output " + cost + ")");
  std::mt19937_64 rng(4);
  const auto inputs = random_inputs(c, rng);
  check_close(finite_difference(c, inputs, 0), run1(opt, inputs), 1e-5);
}

TEST_CASE("gradients of gradients through calls match finite differences",
          "[grad][calls][higher]") {
  const std::string c = "(sum (add (get 0 (call f x y)) (call g (get 1 (call f y x)))))";
  const ops::Graph cost = graph(std::string(kDefs) + "(output " + c + ")");
  std::mt19937_64 rng(5);
  const auto inputs = random_inputs(cost, rng);
  for (std::size_t w = 0; w < 2; ++w) {
    const char name = "xy"[w];
    const ops::TermRef g1 = gradient(cost.outputs[0].term, cost.inputs[w]);
    const ops::TermRef inner = ops::Term::make(
        ops::OpKind::Sum, {}, {ops::Term::make(ops::OpKind::Mul, {}, {cost.inputs[2], g1})});
    const ops::Array fd = finite_difference(with_output(cost, inner), inputs, w);
    check_close(fd, run1(with_output(cost, gradient(inner, cost.inputs[w])), inputs), 1e-5);
    const ops::Graph opt =
        rules::optimize(graph(std::string(kDefs) + "(output (grad (sum (mul v (grad " + c + " " +
                              name + "))) " + name + "))"),
                        shipped_rules());
    INFO(ops::print_graph(opt));
    REQUIRE_FALSE(has_grad(opt.outputs[0].term));
    check_close(fd, run1(opt, inputs), 1e-5);
  }
}

TEST_CASE("a call whose parameter types are narrower than its arguments differentiates",
          "[grad][calls]") {
  // The def's parameters are (f64 4) and (f64 2 4), the arguments (f64 ?)
  // and (f64 ? 4): inlined or kept as a call, the gradient is expanded and
  // equals finite differences where the arguments have the parameters' shapes.
  for (const char* inl : {"", " :inline false"}) {
    const std::string head = std::string("(input x (f64 ?)) (input m (f64 ? 4))\n") +
                             "(def f (fn ((p (f64 4)) (q (f64 2 4))) (mul (sin p) q) (sum p))" +
                             inl + ")\n(let c (call f x m))\n";
    const std::string cost = "(add (sum (square (get 0 c))) (get 1 c))";
    const ops::Graph c = graph(head + "(output " + cost + ")");
    std::mt19937_64 rng(9);
    const std::vector<ops::Array> in{random_array({ops::DType::F64, {4}}, rng),
                                     random_array({ops::DType::F64, {2, 4}}, rng)};
    for (std::size_t w : {0, 1}) {
      INFO("inline" << inl << ", wrt "
                    << "xm"[w]);
      const ops::Graph opt = rules::optimize(
          graph(head + "(output (grad " + cost + " " + "xm"[w] + "))"), shipped_rules());
      REQUIRE_FALSE(has_grad(opt.outputs[0].term));
      check_close(finite_difference(c, in, w), run1(opt, in), 1e-5);
    }
  }
}
