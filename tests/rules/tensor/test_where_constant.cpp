// where-constant (rules/tensor/where_constant.cpp): a `where` over a
// constant condition is its branch, unless the branch not taken may fail
// and the one taken cannot (the written graph computes both: the check
// stays, issue 25).
#include "tests/support/check_optimizes.hpp"

#include "backend/runtime_error.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using namespace eqsat::testing;

TEST_CASE("where-constant: a constant condition selects its branch") {
  check_optimizes("(input x (f64 3)) (input y (f64 3)) (output (where true x y))",
                  "(input x (f64 3)) (input y (f64 3)) (output x)");
  check_optimizes("(input x (f64 3)) (input y (f64 3)) (output (where false x (exp y)))",
                  "(input x (f64 3)) (input y (f64 3)) (output (exp y))");
}

TEST_CASE("where-constant: a failing branch not taken still fails") {
  // Seed 31361 of the long corner run: (where false (index h k) 3.0) became 3.
  const char* text = "(input x (f64 3 2)) (input k i64) (output (where false (index x k) 3.0))";
  const ops::Array x = ops::Array::filled(ops::DType::F64, {3, 2}, 0.5);
  CHECK_THROWS_AS(run_optimized(text, {x, ops::Array::scalar(ops::DType::I64, 4)}),
                  backend::RuntimeError);
  const ops::Array v = run_optimized(text, {x, ops::Array::scalar(ops::DType::I64, -1)});
  REQUIRE(v.size() == 2);
  CHECK(v.element(0) == 3.0);
  // A branch that cannot fail goes.
  check_optimizes("(input x (f64 3 2)) (output (where false (index x 1) 3.0))",
                  "(input x (f64 3 2)) (output (broadcast_to 3.0 :shape (2)))");
}
