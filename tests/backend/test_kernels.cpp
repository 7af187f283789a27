// Every kernel against NumPy: the cases of fixtures/cases.sexp (written by
// make_fixtures.py) run through `evaluate` and are compared with the
// expected .npy (dtype and shape exactly, floats within tolerances, NaN
// and infinities exactly). Sizes at SIMD boundaries, broadcasting,
// promotion, every axis form.
#include "backend/kernel_groups.hpp"
#include "backend/kernels.hpp"
#include "backend/program.hpp"
#include "backend/scalar_body.hpp"
#include "ops/npy.hpp"
#include "ops/sexpr.hpp"

#include "array_compare.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>

#include <cmath>
#include <set>

using namespace eqsat;
using ops::AttrKey;
using ops::OpKind;

namespace {

std::string fixture(const std::string& name) {
  return std::string(EQSAT_TESTS_DIR) + "/fixtures/" + name;
}

ops::AttrValue attr_value(const ops::SExpr& e) {
  switch (e.kind) {
    case ops::SExpr::Kind::Int:
      return e.int_value;
    case ops::SExpr::Kind::Float:  // no attribute takes a float
      throw std::runtime_error("fixture attribute " + e.describe() + " is a float");
    case ops::SExpr::Kind::Bool:
      return e.bool_value;
    case ops::SExpr::Kind::Symbol:
      return *ops::parse_dtype(e.text);
    default: {
      ops::IntList list;
      for (const auto& item : e.items) list.push_back(item.int_value);
      return list;
    }
  }
}

struct Case {
  std::string name;
  ops::TermRef term;
  std::vector<std::pair<ops::TermRef, ops::Array>> bindings;
};

Case load_case(const ops::SExpr& e) {
  Case c;
  c.name = e.items[1].text;
  const ops::SExpr& call = e.items[2];
  ops::Attrs attrs;
  for (std::size_t i = 1; i + 1 < call.items.size(); i += 2)
    attrs.set(*ops::parse_attr_key(call.items[i].text), attr_value(call.items[i + 1]));
  std::vector<ops::TermRef> operands;
  for (const auto& input : e.items[3].items) {
    ops::Array value = ops::read_npy(fixture(input.text + ".npy"));
    ops::TermRef leaf = ops::Term::input(input.text, value.type());
    operands.push_back(leaf);
    if (std::ranges::find(c.bindings, leaf, &std::pair<ops::TermRef, ops::Array>::first) ==
        c.bindings.end())
      c.bindings.emplace_back(leaf, value);
  }
  c.term = ops::Term::make(*ops::parse_op(call.items[0].text), attrs, operands);
  return c;
}

}  // namespace

TEST_CASE("every kernel matches NumPy on the fixtures") {
  const auto cases = ops::read_sexpr_file(fixture("cases.sexp"));
  REQUIRE(cases.size() > 800);
  std::set<OpKind> covered;
  for (const auto& e : cases) {
    const Case c = load_case(e);
    INFO("case " << c.name);
    covered.insert(c.term->kind());
    const ops::Array expected = ops::read_npy(fixture(c.name + ".npy"));
    const auto got = backend::evaluate({c.term}, c.bindings);
    REQUIRE(got.size() == 1);
    CHECK(test::compare_arrays(got[0], expected) == "");
    // Static shape inference agrees with what ran.
    CHECK(ops::compatible(c.term->tensor_type(), got[0].type()));
  }
  // Every op with a kernel is exercised by some case.
  for (int k = 0; k < ops::kNumOps; ++k) {
    const auto kind = static_cast<OpKind>(k);
    INFO("op " << ops::op_name(kind));
    if (backend::has_kernel(kind)) CHECK(covered.contains(kind));
  }
}

TEST_CASE("has_kernel covers exactly the value-computing ops") {
  CHECK(backend::has_kernel(OpKind::Exp));
  CHECK(backend::has_kernel(OpKind::Dot));
  CHECK(backend::has_kernel(OpKind::SetSlice));
  CHECK_FALSE(backend::has_kernel(OpKind::Scan));
  CHECK_FALSE(backend::has_kernel(OpKind::Call));
  CHECK_FALSE(backend::has_kernel(OpKind::Get));
  CHECK_FALSE(backend::has_kernel(OpKind::Grad));
  CHECK_FALSE(backend::has_kernel(OpKind::Const));
}

// The executor's fused groups and scalar loop bodies compute an op one
// element (or one block) at a time with kernels of their own: every op the
// catalogue marks fusable must have one, and it must give the bits of the
// op's array kernel.
TEST_CASE("every fusable op has a one-element kernel equal to its array kernel") {
  std::size_t checked = 0;
  for (int k = 0; k < ops::kNumOps; ++k) {
    const auto kind = static_cast<OpKind>(k);
    if (!backend::detail::fusable(kind, ops::DType::F64)) continue;
    const int arity = ops::op_info(kind).min_arity;
    for (const double a : {0.75, -1.5, 2.0}) {
      const double b = 0.5 - a;
      INFO("op " << ops::op_name(kind) << " at " << a << ", " << b);
      std::vector<ops::Array> values{ops::Array::filled(ops::DType::F64, {}, a)};
      if (arity == 2) values.push_back(ops::Array::filled(ops::DType::F64, {}, b));
      std::vector<ops::TermRef> leaves;
      std::vector<const ops::Array*> in;
      for (const ops::Array& v : values) {
        leaves.push_back(ops::Term::constant(v));
        in.push_back(&v);
      }
      const ops::TermRef op = ops::Term::make(kind, {}, leaves);
      ops::Array out(ops::DType::F64, {});
      backend::run_kernel(op, in, out);
      double one = 0;
      REQUIRE_NOTHROW(one = arity == 1 ? backend::detail::apply_unary<double>(kind, a)
                                       : backend::detail::apply_binary<double>(kind, a, b));
      const double want = out.element(0);
      CHECK(((std::isnan(want) && std::isnan(one)) || one == want));
      ++checked;
    }
  }
  CHECK(checked > 40);
}

TEST_CASE("casting NaN and out-of-range floats to integers gives the integer minimum") {
  ops::Array x(ops::DType::F64, {3});
  x.data<double>()[0] = std::nan("");
  x.data<double>()[1] = 1e300;
  x.data<double>()[2] = -7.9;
  ops::TermRef in = ops::Term::input("x", x.type());
  ops::TermRef cast = ops::Term::make(OpKind::Cast, {{AttrKey::Dtype, ops::DType::I32}}, {in});
  const auto got = backend::evaluate({cast}, {{in, x}})[0];
  CHECK(got.data<std::int32_t>()[0] == std::numeric_limits<std::int32_t>::min());
  CHECK(got.data<std::int32_t>()[1] == std::numeric_limits<std::int32_t>::min());
  CHECK(got.data<std::int32_t>()[2] == -7);
}

TEST_CASE("integer arithmetic wraps around as in NumPy") {
  ops::TermRef big = ops::Term::scalar(ops::DType::I32, 2147483647);
  ops::TermRef one = ops::Term::scalar(ops::DType::I32, 1);
  const auto got = backend::evaluate({ops::Term::make(OpKind::Add, {}, {big, one})}, {})[0];
  CHECK(got.data<std::int32_t>()[0] == std::numeric_limits<std::int32_t>::min());
}

TEST_CASE("every reduction folds the binary op the catalogue pairs it with") {
  std::size_t checked = 0;
  for (int k = 0; k < ops::kNumOps; ++k) {
    const auto binary = static_cast<OpKind>(k);
    const auto reduction = ops::folding_reduction(binary);
    if (!reduction) continue;
    INFO(ops::op_name(binary) << " folded by " << ops::op_name(*reduction));
    CHECK(ops::op_info(binary).group == ops::OpGroup::Binary);
    CHECK(ops::op_info(*reduction).group == ops::OpGroup::Reduction);
    CHECK(ops::is_commutative(binary));
    // reduce([a, b, c]) = op(op(a, b), c), within rounding.
    const std::vector<double> v{0.75, -1.5, 2.25};
    ops::Array xs(ops::DType::F64, {3});
    for (std::size_t i = 0; i < v.size(); ++i) xs.data<double>()[i] = v[i];
    const auto scalar = [](double x) { return ops::Term::scalar(ops::DType::F64, x); };
    const ops::TermRef folded = ops::Term::make(
        binary, {}, {ops::Term::make(binary, {}, {scalar(v[0]), scalar(v[1])}), scalar(v[2])});
    const ops::TermRef reduced = ops::Term::make(
        *reduction, {{ops::AttrKey::Axis, ops::IntList{0}}}, {ops::Term::constant(xs)});
    const auto out = backend::evaluate({folded, reduced}, {});
    CHECK(out[1].element(0) == Approx(out[0].element(0)).epsilon(1e-14));
    ++checked;
  }
  CHECK(checked == 5);
}
