// Sizes of static types: element and byte counts computed with overflow
// checks, and every term's type held to them (no term can describe a value
// whose size does not fit in 64 bits).
#include "ops/term.hpp"
#include "ops/type.hpp"
#include "ops/type_error.hpp"

#include <catch2/catch.hpp>

#include <limits>

using namespace eqsat::ops;

TEST_CASE("element and byte counts skip unknown dims and report overflow") {
  CHECK(checked_num_elements({}) == 1);
  CHECK(checked_num_elements({3, kUnknownDim, 4}) == 12);
  CHECK(checked_num_elements({0, std::numeric_limits<std::int64_t>::max()}) == 0);
  CHECK(checked_num_elements({4294967296, 4294967296}) == std::nullopt);
  CHECK(checked_num_bytes({DType::F64, {1000, 1000}}) == 8000000);
  // 2^60 elements fit; as f64 their bytes (2^63) do not.
  CHECK(checked_num_bytes({DType::Bool, {std::int64_t{1} << 60}}) == std::int64_t{1} << 60);
  CHECK(checked_num_bytes({DType::F64, {std::int64_t{1} << 60}}) == std::nullopt);
  CHECK_THROWS_AS(require_addressable({DType::F64, {std::int64_t{1} << 61}}, "input"), TypeError);
  CHECK_THROWS_WITH(require_addressable({DType::I32, {4294967296, 4294967296, 16}}, "zeros"),
                    "zeros: (i32 4294967296 4294967296 16) is too large: its size in bytes does "
                    "not fit in 64 bits");
  CHECK_NOTHROW(require_addressable({DType::F64, {kUnknownDim, std::int64_t{1} << 59}}, "x"));
}

TEST_CASE("no term gets a type whose size overflows") {
  const std::int64_t big = (std::int64_t{1} << 62) + 1;
  CHECK_THROWS_WITH(Term::input("x", {DType::F64, {std::int64_t{1} << 61}}),
                    Catch::Contains("input: (f64 2305843009213693952) is too large"));
  const TermRef x = Term::input("x", {DType::F64, {kUnknownDim}});
  // The reshape of the first reported SIGSEGV: its shape's product overflows.
  CHECK_THROWS_WITH(Term::make(OpKind::Reshape, {{AttrKey::Shape, IntList{big, 4}}}, {x}),
                    Catch::Contains("too many elements for 64 bits"));
  CHECK_THROWS_AS(
      Term::make(OpKind::Zeros, {{AttrKey::Shape, IntList{4294967296, 4294967296, 16}}}, {}),
      TypeError);
  CHECK_THROWS_AS(Term::make(OpKind::Arange, {}, {Term::scalar(DType::I64, 0x1p62)}), TypeError);
  const TermRef half = Term::input("h", {DType::Bool, {std::int64_t{1} << 62}});
  CHECK_THROWS_WITH(Term::make(OpKind::Concat, {}, {half, half}),
                    Catch::Contains("concat: the result's length overflows 64 bits"));
}
