// ops::Array: the uniform value the rewrite analysis reads from constants,
// row views, and the reuse of large freed buffers.
#include "ops/array.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
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

TEST_CASE("row_view shares an aligned row of the buffer and keeps the buffer alive") {
  using eqsat::ops::Array;
  using eqsat::ops::DType;
  Array a(DType::F32, {3, 4, 4});  // rows of 64 bytes
  for (std::int64_t i = 0; i < a.size(); ++i) a.data<float>()[i] = static_cast<float>(i);
  std::optional<Array> row = a.row_view(2);
  REQUIRE(row);
  CHECK(row->shape() == eqsat::ops::Dims{4, 4});
  CHECK(row->dtype() == DType::F32);
  CHECK(row->data<float>() == a.data<float>() + 32);
  CHECK(row->data<float>()[5] == 37.0f);
  CHECK_FALSE(row->unique());  // never written in place while `a` lives
  a.data<float>()[32] = -1.0f;
  CHECK(row->data<float>()[0] == -1.0f);
  a = Array();
  CHECK(row->unique());
  CHECK(row->data<float>()[15] == 47.0f);  // the buffer outlives `a`
  // Rows off the alignment, out of range, and of a scalar: no view.
  CHECK_FALSE(Array(DType::F64, {3, 5}).row_view(1));
  CHECK(Array(DType::F64, {3, 8}).row_view(0));
  CHECK_FALSE(Array(DType::F64, {3, 8}).row_view(3));
  CHECK_FALSE(Array(DType::F64, {3, 8}).row_view(-1));
  CHECK_FALSE(Array(DType::F64, {0, 8}).row_view(0));
  CHECK_FALSE(Array::scalar(DType::F64, 1.0).row_view(0));
}

TEST_CASE("a large uninitialized array reuses a freed mapping of its size, a zeroed one never") {
  const Dims big{1 << 19};  // 4 MiB of f64: mapped from the kernel
  const std::byte* first = nullptr;
  {
    Array a = Array::uninitialized(DType::F64, big);
    std::fill_n(a.data<double>(), a.size(), 1.5);
    first = a.bytes();
  }
  Array b = Array::uninitialized(DType::F64, big);
  CHECK(b.bytes() == first);
  CHECK(b.shape() == big);
  std::fill_n(b.data<double>(), b.size(), 2.5);
  b = Array();  // back to the cache, still mapped
  const Array z(DType::F64, big);
  CHECK(z.bytes() != first);
  CHECK(
      std::all_of(z.data<double>(), z.data<double>() + z.size(), [](double v) { return v == 0; }));
  // Another size never takes it; a small array is an ordinary one.
  const Array other = Array::uninitialized(DType::F64, {1 << 20});
  CHECK(other.bytes() != first);
  const Array small = Array::uninitialized(DType::F32, {3, 5});
  CHECK(small.size() == 15);
}
