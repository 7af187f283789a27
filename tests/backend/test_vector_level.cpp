// The run-time choice of the kernels' vector unit (vector_level.hpp): the
// EQSAT_VECTOR_LEVEL names, and no level above the CPU's.
#include "backend/vector_level.hpp"
#include "backend/vector_math.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace eqsat::backend;

TEST_CASE("EQSAT_VECTOR_LEVEL names a level or asks for none") {
  CHECK(detail::requested_vector_level(nullptr) == std::nullopt);
  CHECK(detail::requested_vector_level("sse2") == VectorLevel::Sse2);
  CHECK(detail::requested_vector_level("avx2") == VectorLevel::Avx2);
  CHECK(detail::requested_vector_level("avx512") == VectorLevel::Avx512);
  CHECK(detail::requested_vector_level("") == std::nullopt);
  CHECK(detail::requested_vector_level("AVX2") == std::nullopt);
  CHECK(detail::requested_vector_level("avx") == std::nullopt);
  for (const auto level : {VectorLevel::Sse2, VectorLevel::Avx2, VectorLevel::Avx512})
    CHECK(detail::requested_vector_level(vector_level_name(level)) == level);
}

TEST_CASE("the vector level is never above the CPU's and names the implementation") {
  const VectorLevel saved = vector_level();
  CHECK(saved <= cpu_vector_level());
  CHECK(set_vector_level(VectorLevel::Sse2));  // every x86-64 has it
  CHECK(vector_level() == VectorLevel::Sse2);
  const std::string sse2 = vmath::implementation();
  CHECK((sse2 == "SLEEF u10 (SSE2)" || sse2 == "C library"));
  CHECK(set_vector_level(cpu_vector_level()));
  CHECK(vector_level() == cpu_vector_level());
  if (cpu_vector_level() < VectorLevel::Avx512) {
    CHECK_FALSE(set_vector_level(VectorLevel::Avx512));
    CHECK(vector_level() == cpu_vector_level());
  }
  set_vector_level(saved);
}
