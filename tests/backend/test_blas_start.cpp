// The executable's own OpenBLAS starts with the kernels of the CPU's vector
// units (blas_start.cpp), not its generic ones on a CPU model it does not
// know; a shared one running those draws a warning naming the fix.
#include "backend/blas_start.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

using namespace eqsat;

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

TEST_CASE("the executable's own OpenBLAS runs the kernels chosen for the CPU") {
  if (!backend::detail::own_blas()) {
    WARN("OpenBLAS is a shared library here: it chooses its kernels itself");
    return;
  }
  const std::string kernels = lower(backend::blas_kernels());
  // Chosen before OpenBLAS started (or by the user), and honoured.
  const char* chosen = std::getenv("OPENBLAS_CORETYPE");
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    REQUIRE(chosen != nullptr);
    CHECK(kernels == lower(chosen));
    CHECK(kernels != "prescott");
  }
}

TEST_CASE("OpenBLAS's generic kernels on a CPU with better ones draw a warning naming the fix") {
  using backend::generic_blas_warning;
  const std::string w = generic_blas_warning("Prescott", "SkylakeX");
  CHECK(w.find("generic kernels (Prescott)") != std::string::npos);
  CHECK(w.find("OPENBLAS_CORETYPE=SkylakeX") != std::string::npos);
  CHECK(generic_blas_warning("prescott", "Haswell").find("OPENBLAS_CORETYPE=Haswell") !=
        std::string::npos);
  // The right kernels, or a CPU with nothing better: no warning.
  CHECK(generic_blas_warning("SkylakeX", "SkylakeX").empty());
  CHECK(generic_blas_warning("Haswell", "SkylakeX").empty());
  CHECK(generic_blas_warning("Prescott", nullptr).empty());
  CHECK(generic_blas_warning("", "Haswell").empty());
}
