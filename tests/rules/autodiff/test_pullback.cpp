// The pullback table: every op of the catalogue says how it differentiates,
// and each pullback gives every operand a cotangent of exactly its type
// (broadcasting undone, dtypes cast back); a Smooth op gives its float
// operands a cotangent, a Zero op gives none (over the samples of
// tests/ops/op_samples.hpp).
#include "rules/autodiff/pullback.hpp"

#include "ops/graph_parser.hpp"
#include "tests/ops/op_samples.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using namespace eqsat::ops;

namespace {

TermRef parse_expr(const std::string& inputs, const std::string& expr) {
  return parse_graph(inputs + "(output " + expr + ")", "t.eg", ".").outputs[0].term;
}

bool contains(TermRef t, OpKind k) {
  if (t->kind() == k) return true;
  for (TermRef o : t->operands())
    if (contains(o, k)) return true;
  return false;
}

}  // namespace

TEST_CASE("every op has a differentiability - only control ops and grad are unsupported") {
  std::set<OpKind> unsupported;
  for (int i = 0; i < kNumOps; ++i) {
    const auto k = static_cast<OpKind>(i);
    const Differentiability d = differentiability(k);
    if (d == Differentiability::Unsupported) unsupported.insert(k);
    // Elementwise ops whose result is never a float have no pullback to give.
    if (op_info(k).rule == op_info(OpKind::Eq).rule) CHECK(d == Differentiability::Zero);
  }
  CHECK(unsupported ==
        std::set<OpKind>{OpKind::Fn, OpKind::Scan, OpKind::Call, OpKind::Get, OpKind::Grad});
  CHECK(differentiability(OpKind::LogSoftmax) == Differentiability::Smooth);
  CHECK(differentiability(OpKind::Floor) == Differentiability::Zero);
}

TEST_CASE("each cotangent has exactly its operand's type") {
  const std::string in =
      "(input a (f64 2 3)) (input b (f64 3)) (input c (f32 2 1)) (input m (f64 3 4))"
      " (input k (f64 5 2 3)) (input i i64) (input u (f64 ? 3)) (input n (i32 2 3))\n";
  const char* exprs[] = {"(neg a)",
                         "(abs c)",
                         "(square a)",
                         "(exp a)",
                         "(expm1 a)",
                         "(log a)",
                         "(log1p a)",
                         "(sqrt a)",
                         "(reciprocal a)",
                         "(sin a)",
                         "(cos a)",
                         "(tanh a)",
                         "(sigmoid a)",
                         "(softplus a)",
                         "(log1mexp (neg (abs a)))",
                         "(logaddexp a b)",
                         "(cast c :dtype f64)",
                         "(cast a :dtype f32)",
                         "(add a b)",
                         "(sub c b)",
                         "(mul a c)",
                         "(div b c)",
                         "(pow a b)",
                         "(maximum a c)",
                         "(minimum b a)",
                         "(add n a)",
                         "(where (gt a 0.0) b c)",
                         "(sum a :axis 1)",
                         "(sum a :axis (0 1) :keepdims true)",
                         "(prod a :axis 0)",
                         "(max a)",
                         "(min c :axis 1)",
                         "(mean u :axis 0)",
                         "(logsumexp a :axis 1)",
                         "(softmax a :axis 0)",
                         "(log_softmax u :axis 1)",
                         "(dot a m)",
                         "(dot b m)",
                         "(dot a b)",
                         "(dot b b)",
                         "(dot k m)",
                         "(dot (transpose m) (transpose a))",
                         "(reshape a :shape (3 2))",
                         "(transpose k :perm (1 2 0))",
                         "(expand_dims a :axis 1)",
                         "(squeeze c :axis 1)",
                         "(broadcast_to c :shape (4 2 3))",
                         "(flip a :axis 0)",
                         "(concat a (cast a :dtype f32) :axis 1)",
                         "(stack a (cast a :dtype f32) :axis 2)",
                         "(index k i)",
                         "(slice a :axis 1 :start 1 :step 2)",
                         "(set_index k i a)",
                         "(inc_index k i b)",
                         "(set_slice a c :axis 1 :stop 1)",
                         "(inc_slice a b :axis 0 :start 1)",
                         "(full (sum a) :shape (2 2) :dtype f64)"};
  for (const char* e : exprs) {
    INFO(e);
    const TermRef y = parse_expr(in, e);
    const TermRef g = Term::input("g", y->tensor_type());
    const std::vector<TermRef> gs = pullback(y, g);
    REQUIRE(gs.size() == y->arity());
    bool any = false;
    for (std::size_t i = 0; i < gs.size(); ++i) {
      const TensorType& want = y->operand(i)->tensor_type();
      if (!gs[i]) {
        CHECK_FALSE((is_float(want.dtype) && y->operand(i)->kind() != OpKind::Const &&
                     y->kind() != OpKind::Where));
        continue;
      }
      any = true;
      INFO("operand " << i << ": " << to_string(gs[i]->type()) << " vs " << to_string(want));
      CHECK(gs[i]->tensor_type() == want);
    }
    CHECK(any);
  }
}

TEST_CASE("zero ops and non-float results give no cotangent") {
  const std::string in = "(input a (f64 2 3)) (input n (i64 2 3))\n";
  for (const char* e : {"(floor a)", "(sign a)", "(gt a 1.0)", "(cast a :dtype i32)",
                        "(zeros_like a)", "(neg n)", "(dim a :axis 1)"}) {
    INFO(e);
    const TermRef y = parse_expr(in, e);
    const TermRef g = Term::input("g", TensorType{DType::F64, y->tensor_type().dims});
    for (TermRef c : pullback(y, g)) CHECK(c == nullptr);
  }
}

TEST_CASE("log_softmax and logsumexp pullbacks never exponentiate an unbounded value") {
  const std::string in = "(input a (f64 2 3))\n";
  const TermRef ls = parse_expr(in, "(log_softmax a :axis 1)");
  const auto gls = pullback(ls, Term::input("g", ls->tensor_type()));
  CHECK_FALSE(contains(gls[0], OpKind::Exp));
  CHECK(contains(gls[0], OpKind::Softmax));
  const TermRef lse = parse_expr(in, "(logsumexp a :axis 1)");
  const auto glse = pullback(lse, Term::input("g", lse->tensor_type()));
  // exp only of a - lse(a) <= 0.
  REQUIRE(contains(glse[0], OpKind::Exp));
  CHECK(contains(glse[0], OpKind::Sub));
}

TEST_CASE("unsupported ops throw a named error") {
  const TermRef s = parse_graph(
                        "(input x (f64 4))\n(output (get 0 (scan :sequences (x) :sit-sot (0.0) "
                        "(fn (xt acc) (add acc xt)))))",
                        "t.eg", ".")
                        .outputs[0]
                        .term->operand(0);
  REQUIRE(s->kind() == OpKind::Scan);
  CHECK_THROWS_WITH(pullback(s, s), "grad: differentiating through scan is not supported yet");
}

TEST_CASE("every Smooth op has a pullback and every Zero op passes no cotangent") {
  std::size_t checked = 0;
  for (int k = 0; k < kNumOps; ++k) {
    const auto kind = static_cast<OpKind>(k);
    const OpGroup group = op_info(kind).group;
    // Bodies, loops, calls and grad: rules/autodiff/gradient.hpp (test_pullback.cpp).
    if (group == OpGroup::Leaf || group == OpGroup::Control || group == OpGroup::Gradient) continue;
    const std::string expr = test::op_sample(kind);
    INFO("op " << op_name(kind) << ": " << expr);
    REQUIRE(!expr.empty());
    const TermRef y = parse_graph(std::string(test::kInputs) + "(output " + expr + ")", "t.eg", ".")
                          .outputs[0]
                          .term;
    REQUIRE(y->kind() == kind);
    const TermRef g = Term::input("g", y->tensor_type());
    const std::vector<TermRef> gs = pullback(y, g);
    REQUIRE(gs.size() == y->arity());
    bool any = false;
    for (std::size_t i = 0; i < gs.size(); ++i) {
      if (!gs[i]) continue;
      any = true;
      CHECK(gs[i]->tensor_type() == y->operand(i)->tensor_type());
    }
    if (differentiability(kind) == Differentiability::Smooth && is_float(y->tensor_type().dtype))
      CHECK(any);
    if (differentiability(kind) == Differentiability::Zero) CHECK_FALSE(any);
    ++checked;
  }
  CHECK(checked > 60);
}

TEST_CASE("broadcasting is undone at run time only where lengths may differ") {
  const std::string in = "(input v (f64 ?)) (input w (f64 ?)) (input x (f64 ? ?))\n";
  auto grads = [&](const std::string& expr) {
    const TermRef y = parse_expr(in, expr);
    return pullback(y, y);  // the cotangent: any term of y's type
  };
  // One length: the operands' lengths are the result's, nothing to decide.
  for (const char* e : {"(mul v (exp v))", "(sub x (max x :axis (1) :keepdims true))",
                        "(add (transpose x) (transpose (exp x)))"}) {
    INFO(e);
    for (TermRef g : grads(e)) CHECK_FALSE(contains(g, OpKind::ResizeRows));
  }
  // Two inputs of unknown length: either may be 1 and broadcast.
  for (TermRef g : grads("(mul v w)")) CHECK(contains(g, OpKind::ResizeRows));
  // The keepdims max has length 1 on its reduced axis: summed there, statically.
  const auto g = grads("(sub x (max x :axis (1) :keepdims true))");
  CHECK(contains(g[1], OpKind::Sum));
}
