// The condition predicates, evaluated on e-classes of a tensor e-graph.
#include "rules/lang/predicate_eval.hpp"

#include "tests/support/load_outputs.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using namespace eqsat::rules;

namespace {

// Loads the graph's outputs; the predicate is asked about output `i` (and `j`).
struct Fixture {
  TensorEGraph g;
  std::vector<egraph::EClassId> out;

  explicit Fixture(const std::string& text) : out(testing::load_outputs(g, text)) {}
  bool holds(Predicate p, std::size_t i, std::size_t j = 0, std::int64_t n = 0,
             ops::DType d = ops::DType::F64) {
    const PredicateArg args[] = {{out[i], n, d}, {out[j], n, d}};
    return evaluate(p, args, g);
  }
};

}  // namespace

TEST_CASE("constant facts: const, uniform, nonzero, positive, finite, identity") {
  Fixture f(R"((input x (f64 3))
    (output (const (f64 2 2) (1 0 0 1)))
    (output (const (f64 3) (1 2 3)))
    (output (zeros_like x))
    (output (add 1.0 (const (f64 2) (2 2))))
    (output x))");
  CHECK(f.holds(Predicate::Identity, 0));
  CHECK_FALSE(f.holds(Predicate::Identity, 1));
  CHECK(f.holds(Predicate::Const, 1));
  CHECK(f.holds(Predicate::Positive, 1));
  CHECK(f.holds(Predicate::Nonzero, 1));
  CHECK_FALSE(f.holds(Predicate::Uniform, 1));
  CHECK(f.holds(Predicate::Uniform, 2));  // zeros_like x: uniform, shape not static
  CHECK_FALSE(f.holds(Predicate::Nonzero, 2));
  CHECK(f.holds(Predicate::Zero, 2));
  CHECK_FALSE(f.holds(Predicate::Zero, 0));  // an identity has zeros, not only zeros
  CHECK_FALSE(f.holds(Predicate::Zero, 4));
  CHECK(f.holds(Predicate::Uniform, 3));
  CHECK(f.holds(Predicate::Const, 3));  // folded: 1 + 2 = 3 everywhere
  CHECK(f.holds(Predicate::Finite, 3));
  CHECK_FALSE(f.holds(Predicate::Finite, 4));  // a float input may be ±∞ or NaN
  CHECK_FALSE(f.holds(Predicate::Const, 4));
}

TEST_CASE("sign facts follow the ops") {
  Fixture f(R"((input x (f64 ?)) (input n (i32 ?))
    (output (exp x)) (output (add (square x) (abs x))) (output (neg (exp x)))
    (output n) (output (sqrt x)))");
  CHECK(f.holds(Predicate::Nonneg, 0));
  CHECK(f.holds(Predicate::Nonneg, 1));
  CHECK_FALSE(f.holds(Predicate::Nonneg, 2));
  CHECK(f.holds(Predicate::Finite, 3));  // integers are finite
  CHECK_FALSE(f.holds(Predicate::Nonneg, 3));
  CHECK(f.holds(Predicate::Nonneg, 4));  // sqrt is NaN or >= 0
}

TEST_CASE("shape and dtype predicates") {
  Fixture f(R"((input a (f64 ? 3)) (input b (f64 ? 3)) (input c (f32 2 3)) (input s f64)
    (output a) (output b) (output c) (output s) (output (const (f64 1 3) (1 2 3))))");
  CHECK(f.holds(Predicate::Ndim, 0, 0, 2));
  CHECK_FALSE(f.holds(Predicate::Ndim, 0, 0, 1));
  CHECK(f.holds(Predicate::NdimAtLeast, 0, 0, 1));
  CHECK(f.holds(Predicate::NdimAtLeast, 0, 0, 2));
  CHECK_FALSE(f.holds(Predicate::NdimAtLeast, 0, 0, 3));
  CHECK_FALSE(f.holds(Predicate::NdimAtLeast, 3, 0, 1));
  CHECK(f.holds(Predicate::SameType, 0, 0));        // the same class
  CHECK_FALSE(f.holds(Predicate::SameType, 0, 1));  // (f64 ? 3) twice: not provably equal
  CHECK(f.holds(Predicate::SameDtype, 0, 1));
  CHECK_FALSE(f.holds(Predicate::SameDtype, 0, 2));
  CHECK(f.holds(Predicate::BroadcastsTo, 3, 0));  // a scalar never widens
  CHECK(f.holds(Predicate::BroadcastsTo, 4, 0));  // (1 3) into (? 3)
  CHECK_FALSE(f.holds(Predicate::BroadcastsTo, 0, 4));
  CHECK(f.holds(Predicate::Scalar, 3));
  CHECK(f.holds(Predicate::ShapeKnown, 2));
  CHECK_FALSE(f.holds(Predicate::ShapeKnown, 0));
  CHECK(f.holds(Predicate::Float, 2));
  CHECK(f.holds(Predicate::Dtype, 2, 0, 0, ops::DType::F32));
  CHECK_FALSE(f.holds(Predicate::Integer, 2));
  CHECK(f.holds(Predicate::Closed, 0));
}

TEST_CASE("shape predicates see unknown lengths known equal") {
  Fixture f(R"((input a (f64 ? 3)) (input b (f64 ? 3)) (input v (f64 ?))
    (output (exp a)) (output (zeros_like a)) (output (max a :axis (1) :keepdims true))
    (output b) (output (transpose (zeros_like (transpose a)))))");
  CHECK(f.holds(Predicate::SameType, 0, 1));        // exp a and zeros_like a
  CHECK(f.holds(Predicate::SameType, 0, 4));        // through two transposes
  CHECK_FALSE(f.holds(Predicate::SameType, 0, 3));  // b has rows of its own
  CHECK(f.holds(Predicate::BroadcastsTo, 2, 0));    // (rows of a, 1) into a's shape
  CHECK_FALSE(f.holds(Predicate::BroadcastsTo, 2, 3));
  CHECK_FALSE(f.holds(Predicate::BroadcastsTo, 0, 2));
}

TEST_CASE("the dtypes the conditions of a rule need") {
  auto condition = [](Predicate p, ops::DType named = ops::DType::F64) {
    return ast::Condition{p, {{}, {ast::ConditionArg::Kind::DType, "", 0, named}}, {}};
  };
  const ast::Condition conditions[] = {
      condition(Predicate::Integer), condition(Predicate::SameDtype), condition(Predicate::Float),
      condition(Predicate::Finite), condition(Predicate::Dtype, ops::DType::Bool)};
  // One mask per condition that restricts a dtype, in order.
  CHECK(dtype_needs(conditions) ==
        std::vector<std::uint32_t>{dtype_bit(ops::DType::I32) | dtype_bit(ops::DType::I64),
                                   dtype_bit(ops::DType::F32) | dtype_bit(ops::DType::F64),
                                   dtype_bit(ops::DType::Bool)});
  CHECK(dtype_needs(std::span(conditions + 1, 1)).empty());
}
