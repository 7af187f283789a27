// The e-class substitution (docs/architecture.md decision 6): renumbering through
// nested loops, e-nodes reading a dropped parameter skipped in favour of
// their equals, cycles skipped, identity where nothing changes, a class
// lifted to a new parameter; and the term-level helper instantiate.
#include "rules/tensor/substitute.hpp"

#include "ops/graph_parser.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using namespace eqsat::rules;
using egraph::EClassId;

namespace {

ops::TermRef body_of(const std::string& text) {
  const ops::Graph g = ops::parse_graph(text, "t.eg", ".");
  ops::TermRef t = g.outputs[0].term;
  while (t->kind() != ops::OpKind::Scan) t = t->operand(0);
  return t->operand(0);
}

const ops::TensorType kVec{ops::DType::F64, {3}};

ops::TermRef nominal(std::int64_t k) {
  return ops::Term::nominal(k, kVec);
}

}  // namespace

TEST_CASE("dropping a parameter renumbers later nominals, inside nested loops too") {
  const ops::TermRef before = body_of(R"(
    (input x0 (f64 3)) (input a (f64 3)) (input b (f64 3))
    (output (get 0 (scan :n-steps 2 :sit-sot (x0) :non-sequences (a b)
      (fn (h u w)
        (index (get 0 (scan :n-steps 3 :sit-sot (h) :non-sequences (w) (fn (g v) (add g v)))) -1))))))");
  const ops::TermRef after = body_of(R"(
    (input x0 (f64 3)) (input b (f64 3))
    (output (get 0 (scan :n-steps 2 :sit-sot (x0) :non-sequences (b)
      (fn (h w)
        (index (get 0 (scan :n-steps 3 :sit-sot (h) :non-sequences (w) (fn (g v) (add g v)))) -1))))))");
  TensorEGraph g;
  const EClassId fn = g.add_term(before);
  const std::int64_t slot_of[] = {0, -1, 1};
  const std::vector<EClassId> none(3);
  const std::size_t outputs[] = {0};
  const auto out = remap_body(g, fn, slot_of, none, {kVec, kVec}, outputs);
  REQUIRE(out);
  CHECK(g.egraph().find(*out) == g.add_term(after));
}

TEST_CASE("an e-node reading a dropped parameter gives way to an equal one") {
  TensorEGraph g;
  auto& eg = g.egraph();
  // Pretend the body proved n0 + n1 = exp(n0): the image without n1 exists.
  const EClassId sum = g.add_term(ops::Term::make(ops::OpKind::Add, {}, {nominal(0), nominal(1)}));
  const EClassId e = g.add_term(ops::Term::make(ops::OpKind::Exp, {}, {nominal(0)}));
  eg.merge(sum, e);
  eg.rebuild();
  Substitution drop(g, {{g.add_term(nominal(1)), EClassId{}}});
  const auto image = drop(sum);
  REQUIRE(image);
  CHECK(eg.find(*image) == eg.find(e));  // reads only n0: itself
  // Renaming n0 to n2 rebuilds the exp e-node and skips the add.
  Substitution rename(
      g, {{g.add_term(nominal(0)), g.add_term(nominal(2))}, {g.add_term(nominal(1)), EClassId{}}});
  const auto renamed = rename(sum);
  REQUIRE(renamed);
  CHECK(eg.find(*renamed) == g.add_term(ops::Term::make(ops::OpKind::Exp, {}, {nominal(2)})));
}

TEST_CASE("an e-node that would close a cycle is skipped") {
  TensorEGraph g;
  auto& eg = g.egraph();
  // m = mul(n0, n0) and m = abs(m): a cycle through the class.
  const EClassId m = g.add_term(ops::Term::make(ops::OpKind::Mul, {}, {nominal(0), nominal(0)}));
  const auto a = g.add_op(ops::OpKind::Abs, {}, std::vector<EClassId>{m});
  REQUIRE(a);
  eg.merge(m, *a);
  eg.rebuild();
  Substitution s(g, {{g.add_term(nominal(0)), g.add_term(nominal(1))}});
  const auto image = s(m);
  REQUIRE(image);
  CHECK(eg.find(*image) ==
        g.add_term(ops::Term::make(ops::OpKind::Mul, {}, {nominal(1), nominal(1)})));
}

TEST_CASE("a class reading no substituted parameter is its own image") {
  TensorEGraph g;
  const EClassId c = g.add_term(ops::Term::make(ops::OpKind::Sin, {}, {nominal(3)}));
  const std::size_t before = g.egraph().num_nodes();
  Substitution s(g, {{g.add_term(nominal(0)), g.add_term(nominal(1))}});
  CHECK(s(c) == c);
  CHECK(g.egraph().num_nodes() == before + 2);  // only the two nominals named
}

TEST_CASE("instantiate binds a body term's nominals to outer classes") {
  TensorEGraph g;
  const ops::TermRef x = ops::Term::input("x", kVec);
  const ops::TermRef body = ops::Term::make(ops::OpKind::Mul, {}, {nominal(0), nominal(2)});
  const EClassId xc = g.add_term(x);
  const EClassId args[] = {xc, EClassId{}, xc};
  const auto c = instantiate(g, body, args);
  REQUIRE(c);
  CHECK(g.egraph().find(*c) == g.add_term(ops::Term::make(ops::OpKind::Mul, {}, {x, x})));
  const EClassId missing[] = {xc, xc, EClassId{}};
  CHECK_FALSE(instantiate(g, body, missing));
}

TEST_CASE("a subterm's class becomes a new parameter (a generalization)") {
  TensorEGraph g;
  const ops::TermRef inner = ops::Term::make(ops::OpKind::Exp, {}, {nominal(1)});
  const EClassId out = g.add_term(ops::Term::make(ops::OpKind::Add, {}, {nominal(0), inner}));
  Substitution lift(g, {{g.add_term(inner), nominal_class(g, 2, kVec)}});
  const auto image = lift(out);
  REQUIRE(image);
  CHECK(g.egraph().find(*image) ==
        g.add_term(ops::Term::make(ops::OpKind::Add, {}, {nominal(0), nominal(2)})));
  CHECK(g.data(*image).free_nominals == std::vector<std::int64_t>{0, 2});
}

TEST_CASE("a nominal of the slot with another type is another body's, never substituted") {
  // Classes are shared between bodies: one class may hold a form of a body
  // whose parameter 0 is f64 and one of a body whose parameter 0 is f32.
  TensorEGraph g;
  auto& eg = g.egraph();
  const ops::TensorType f32{ops::DType::F32, {3}};
  const ops::TermRef p64 = ops::Term::nominal(0, kVec);
  const ops::TermRef p32 = ops::Term::nominal(0, f32);
  const EClassId a = g.add_term(ops::Term::make(ops::OpKind::Exp, {}, {p64}));
  const ops::TermRef widened =
      ops::Term::make(ops::OpKind::Cast, {{ops::AttrKey::Dtype, ops::DType::F64}}, {p32});
  const EClassId b = g.add_term(ops::Term::make(ops::OpKind::Exp, {}, {widened}));
  eg.merge(a, b);
  eg.rebuild();
  const EClassId x = g.add_term(ops::Term::input("x", f32));
  Substitution bind(g, {{g.add_term(p32), x}});
  const auto image = bind(a);  // the f64 form is skipped, not rebuilt as f32
  REQUIRE(image);
  const ops::TermRef x_term = g.data(x).rep;
  CHECK(eg.find(*image) ==
        g.add_term(ops::Term::make(
            ops::OpKind::Exp, {},
            {ops::Term::make(ops::OpKind::Cast, {{ops::AttrKey::Dtype, ops::DType::F64}},
                             {x_term})})));
}
