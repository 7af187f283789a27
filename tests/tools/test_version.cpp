// `eqsat --version`: the version, and the OpenBLAS kernels the program's
// products run on (the CPU's choice, or the user's OPENBLAS_CORETYPE).
#include "run_eqsat.hpp"

#include <catch2/catch.hpp>

using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

TEST_CASE("eqsat --version names the version and the OpenBLAS kernels in use") {
  Scratch s;
  const auto r = run_eqsat(s, "--version", "OPENBLAS_CORETYPE=Haswell");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::StartsWith("eqsat "));
  // The user's choice is honoured and reported.
  CHECK_THAT(r.out, Catch::Contains("\nOpenBLAS kernels: Haswell"));
  // Without it, the program chooses: never OpenBLAS's generic kernels on a
  // CPU with AVX2.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    const auto chosen = run_eqsat(s, "--version", "env -u OPENBLAS_CORETYPE");
    CHECK_THAT(chosen.out, Catch::Contains("\nOpenBLAS kernels: "));
    CHECK_THAT(chosen.out, !Catch::Contains("Prescott"));
  }
}
