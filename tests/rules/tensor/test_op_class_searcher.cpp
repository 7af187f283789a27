// The searcher of the built-in appliers that match by op: every class of
// the ops, unless the e-graph holds none of the ops the applier needs.
#include "rules/tensor/op_class_searcher.hpp"

#include "tests/support/load_outputs.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using namespace eqsat::rules;
using ops::OpKind;

namespace {

struct Loaded {
  TensorEGraph g;
  std::vector<egraph::EClassId> out;
  explicit Loaded(const std::string& text) : out(testing::load_outputs(g, text)) {}
  std::size_t found(const OpClassSearcher& s) {
    egraph::Matches m;
    s.search(g.egraph(), m, 1000);
    return m.size();
  }
  std::size_t found_in(const OpClassSearcher& s, std::size_t output) {
    egraph::Matches m;
    s.search_eclass(g.egraph(), out[output], m, 1000);
    return m.size();
  }
};

}  // namespace

TEST_CASE("an op-class searcher finds every class of its ops") {
  Loaded l("(input x (f64 3)) (output (add (mul x 2.0) 1.0)) (output (exp x))");
  const OpClassSearcher adds_and_muls({OpKind::Add, OpKind::Mul}, "(add|mul ...)");
  CHECK(l.found(adds_and_muls) == 2);
  CHECK(l.found_in(adds_and_muls, 0) == 1);
  CHECK(l.found_in(adds_and_muls, 1) == 0);
}

TEST_CASE("an op-class searcher finds nothing while no op its applier needs is there") {
  const OpClassSearcher adds({OpKind::Add}, "(add (expand_dims ?x) ?y)", {OpKind::ExpandDims});
  Loaded without("(input x (f64 3)) (output (add (mul x 2.0) 1.0))");
  CHECK(without.found(adds) == 0);
  CHECK(without.found_in(adds, 0) == 0);
  // An expand_dims anywhere (here not under the add) and the adds are
  // found again: the applier looks at their operands itself.
  Loaded with("(input x (f64 3)) (output (add (mul x 2.0) 1.0)) (output (expand_dims x :axis 0))");
  CHECK(with.found(adds) == 1);
  CHECK(with.found_in(adds, 0) == 1);
}
