// ops::Array: the uniform value the rewrite analysis reads from constants.
#include "ops/array.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

using namespace eqsat::ops;

namespace {

Array i64_filled(std::int64_t value) {
  Array a(DType::I64, {3});
  for (auto& x : a.span<std::int64_t>()) x = value;
  return a;
}

}  // namespace

TEST_CASE("uniform_value reports the common element of an array") {
  CHECK(i64_filled(-7).uniform_value() == -7.0);
  CHECK(Array::filled(DType::F32, {2, 2}, 0.5).uniform_value() == 0.5);
  Array mixed(DType::I32, {2});
  mixed.data<std::int32_t>()[1] = 1;
  CHECK_FALSE(mixed.uniform_value());
}

// UBSan found INT64_MAX reported as 2^63, which the analysis then cast back
// to int64 (undefined) while canonicalising the constant.
TEST_CASE("uniform_value reports no value for an int64 a double cannot hold exactly") {
  CHECK_FALSE(i64_filled(std::numeric_limits<std::int64_t>::max()).uniform_value());
  CHECK_FALSE(i64_filled(std::numeric_limits<std::int64_t>::min()).uniform_value());
  CHECK_FALSE(i64_filled((std::int64_t{1} << 53) + 1).uniform_value());
  CHECK(i64_filled((std::int64_t{1} << 53) - 1).uniform_value() == 9007199254740991.0);
}
