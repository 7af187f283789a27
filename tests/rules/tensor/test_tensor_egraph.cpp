// The tensor e-graph's unstable marks (docs/architecture.md decision 11): a marked
// e-node stays marked through merges and rebuilds, and the optimize
// pipeline never extracts a form a stabilizing rewrite replaced, even when
// sharing its unstable subterm with another output would be cheaper.
#include "rules/tensor/op_symbols.hpp"
#include "rules/tensor/tensor_egraph.hpp"

#include "tests/support/check_optimizes.hpp"

#include <cmath>

using namespace eqsat;
using namespace eqsat::rules;
using namespace eqsat::testing;

namespace {

ops::Array filled(ops::Dims dims, double v) {
  return ops::Array::filled(ops::DType::F64, std::move(dims), v);
}

}  // namespace

TEST_CASE("a marked e-node stays unstable through merges and rebuilds") {
  const ops::Graph in =
      graph("(input x (f64 3)) (input y (f64 3)) (output (log (exp x))) (output y)");
  TensorEGraph g;
  const egraph::EClassId log_x = g.add_term(in.outputs[0].term);
  const egraph::EClassId exp_x = g.add_term(in.outputs[0].term->operand(0));
  const egraph::EClassId y = g.add_term(in.outputs[1].term);
  g.egraph().rebuild();
  const egraph::ENodeId n = g.egraph().nodes(log_x)[0];
  CHECK_FALSE(g.unstable(n));
  const egraph::EClassId kids[] = {exp_x};
  g.mark_unstable(op_symbol(ops::OpKind::Log), g.analysis().payloads().intern({}), kids);
  CHECK(g.unstable(n));
  CHECK(g.unstable(in.outputs[0].term));
  CHECK_FALSE(g.unstable(in.outputs[0].term->operand(0)));
  g.egraph().merge(exp_x, y);  // the child's class changes its id
  g.egraph().rebuild();
  for (egraph::ENodeId m : g.egraph().nodes(log_x)) CHECK(g.unstable(m));
}

TEST_CASE("a stable form wins over sharing: two log-sum-exps of one exp") {
  const std::string in = "(input x (f64 2 3))";
  const std::string start =
      in + "(output (log (sum (exp x)))) (output (log (sum (exp x) :axis (1))))";
  const ops::Graph out = optimize(graph(start), shipped_rules());
  INFO(ops::print_graph(out));
  CHECK(out.outputs[0].term == graph(in + "(output (logsumexp x))").outputs[0].term);
  CHECK(out.outputs[1].term == graph(in + "(output (logsumexp x :axis 1))").outputs[0].term);
  const auto values = backend::compile(out).run({filled({2, 3}, 1000)});
  CHECK(values[0].element(0) == Approx(1000 + std::log(6.0)));
  for (std::int64_t i = 0; i < 2; ++i) CHECK(values[1].element(i) == Approx(1000 + std::log(3.0)));
}

TEST_CASE("a stable form wins when its unstable subterm feeds another output") {
  const std::string in = "(input x (f64 4))";
  const ops::Graph out =
      optimize(graph(in + "(output (log (add 1 (exp x)))) (output (exp x))"), shipped_rules());
  INFO(ops::print_graph(out));
  CHECK(out.outputs[0].term == graph(in + "(output (softplus x))").outputs[0].term);
  const auto values = backend::compile(out).run({filled({4}, 1000)});
  CHECK(values[0].element(0) == 1000);
  CHECK(std::isinf(values[1].element(0)));

  const std::string in2 = "(input x (f64 2 3))";
  const ops::Graph out2 =
      optimize(graph(in2 + "(output (log (softmax x :axis 1))) (output (sum (softmax x :axis 1)))"),
               shipped_rules());
  INFO(ops::print_graph(out2));
  CHECK(out2.outputs[0].term == graph(in2 + "(output (log_softmax x :axis 1))").outputs[0].term);
  ops::Array x = filled({2, 3}, 0);
  x.data<double>()[0] = 1000;  // the other elements of row 0 underflow in softmax
  const auto v2 = backend::compile(out2).run({x});
  CHECK(v2[0].element(1) == Approx(-1000));
  CHECK(std::isfinite(v2[0].element(1)));
}
