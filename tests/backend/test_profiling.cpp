// Program::set_profiling: one timing per top-level instruction, labelled by
// what it runs, counting every run while on and nothing once off.
#include "backend/program.hpp"

#include "graph_builder.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using namespace eqsat::test;

TEST_CASE("profiling times each instruction of every run while it is on") {
  TermRef a = input("a", DType::F64, {8, 8});
  TermRef b = input("b", DType::F64, {8, 8});
  TermRef d = op(OpKind::Dot, {a, b});
  TermRef y = op(OpKind::Sum, {op(OpKind::Exp, {op(OpKind::Sin, {d})})},
                 {{AttrKey::Axis, ops::IntList{0, 1}}, {AttrKey::Keepdims, false}});
  ops::Graph g = graph({a, b}, {y, op(OpKind::Tanh, {op(OpKind::Neg, {d})})});
  g.locations[d] = {"p.eg", 3, 5};
  backend::Program p = backend::compile(g);
  const ops::Array av = ops::Array::filled(DType::F64, {8, 8}, 0.25);
  CHECK(p.op_timings().empty());
  p.run({av, av});
  p.set_profiling(true);
  REQUIRE(p.op_timings().size() == p.num_instructions());
  for (int r = 0; r < 3; ++r) p.run({av, av});
  std::vector<std::string> labels;
  for (const auto& t : p.op_timings()) {
    labels.push_back(t.op);
    CHECK(t.calls == 3);
    CHECK(t.seconds >= 0);
  }
  // In evaluation order: operands first, outputs in the order written.
  CHECK(labels ==
        std::vector<std::string>{"dot at p.eg:3:5", "sum(fused: sin exp)", "fused(neg tanh)"});
  p.set_profiling(false);
  p.run({av, av});
  CHECK(p.op_timings().empty());
  CHECK(p.bytes_allocated() >= 3 * 64 * sizeof(double));
}
