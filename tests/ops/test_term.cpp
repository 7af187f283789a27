// Hash-consing and alpha-equivalence of terms, by identity.
#include "ops/term.hpp"
#include "ops/type_error.hpp"

#include <catch2/catch.hpp>

using namespace eqsat::ops;

namespace {
const TensorType kVec{DType::F64, {3}};

// A scan computing a running product: body (fn (acc x) (mul acc x)).
TermRef running_product(TermRef xs, TermRef init) {
  TermRef body = Term::fn(
      {TensorType{DType::F64, {}}, TensorType{DType::F64, {}}},
      {Term::make(OpKind::Mul, {},
                  {Term::nominal(0, {DType::F64, {}}), Term::nominal(1, {DType::F64, {}})})});
  ScanSpec spec;
  spec.sequence_taps = {{0}};
  spec.num_sitsot = 1;
  return Term::make(OpKind::Scan, {{AttrKey::Scan, spec}}, {body, xs, init});
}
}  // namespace

TEST_CASE("building the same term twice gives the same object") {
  TermRef x = Term::input("x", kVec);
  TermRef a = Term::make(OpKind::Exp, {}, {x});
  TermRef b = Term::make(OpKind::Exp, {}, {Term::input("x", kVec)});
  CHECK(a == b);
  CHECK(a != Term::make(OpKind::Log, {}, {x}));
  CHECK(Term::input("x", kVec) != Term::input("x", {DType::F32, {3}}));
}

TEST_CASE("attributes are canonical: equal meanings intern to one term") {
  TermRef m = Term::input("m", {DType::F64, {2, 3}});
  TermRef last = Term::make(OpKind::Sum, {{AttrKey::Axis, IntList{-1}}}, {m});
  TermRef one =
      Term::make(OpKind::Sum, {{AttrKey::Axis, std::int64_t{1}}, {AttrKey::Keepdims, false}}, {m});
  CHECK(last == one);
  CHECK(Term::make(OpKind::Sum, {}, {m}) ==
        Term::make(OpKind::Sum, {{AttrKey::Axis, IntList{1, 0}}}, {m}));
  CHECK(Term::make(OpKind::Transpose, {}, {m}) ==
        Term::make(OpKind::Transpose, {{AttrKey::Perm, IntList{1, 0}}}, {m}));
}

TEST_CASE("constants intern by value") {
  CHECK(Term::scalar(DType::F64, 2.0) == Term::constant(Array::filled(DType::F64, {}, 2.0)));
  CHECK(Term::scalar(DType::F64, 2.0) != Term::scalar(DType::F32, 2.0));
  CHECK(Term::scalar(DType::F64, 2.0) != Term::constant(Array::filled(DType::F64, {1}, 2.0)));
}

TEST_CASE("alpha-equivalent scans over the same inputs are the same term") {
  // Bodies never mention parameter names, so two loops written with
  // different names build identical nominals and hence the same term.
  TermRef xs = Term::input("xs", kVec);
  TermRef init = Term::scalar(DType::F64, 1.0);
  TermRef s1 = running_product(xs, init);
  TermRef s2 = running_product(xs, init);
  CHECK(s1 == s2);
  CHECK(s1->type() == Type{TupleType{{TensorType{DType::F64, {3}}}}});
  CHECK(running_product(Term::input("ys", kVec), init) != s1);
}

TEST_CASE("a body's nominals are bound: free nominals stop at fn") {
  TermRef n0 = Term::nominal(0, {DType::F64, {}});
  TermRef inner = Term::make(OpKind::Exp, {}, {n0});
  CHECK(inner->free_nominals() == std::vector<std::int64_t>{0});
  TermRef body = Term::fn({TensorType{DType::F64, {}}}, {inner});
  CHECK(body->free_nominals().empty());
  CHECK_THROWS_AS(Term::fn({}, {inner}), TypeError);
  CHECK_THROWS_WITH(Term::fn({TensorType{DType::F64, {3}}}, {Term::input("x", kVec)}),
                    "fn: a body may use only its parameters and constants");
}

TEST_CASE("ill-typed applications throw TypeError naming the op") {
  TermRef x = Term::input("x", kVec);
  TermRef y = Term::input("y", {DType::F64, {4}});
  CHECK_THROWS_WITH(Term::make(OpKind::Add, {}, {x, y}),
                    "add: shapes (3) and (4) do not broadcast");
  CHECK_THROWS_WITH(Term::make(OpKind::Exp, {}, {x, y}), "exp takes 1 operand, got 2");
  CHECK_THROWS_WITH(Term::make(OpKind::Exp, {{AttrKey::Axis, std::int64_t{0}}}, {x}),
                    "exp has no attribute :axis");
}
