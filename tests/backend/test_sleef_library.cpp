// SLEEF's library is opened on the first transcendental, not by the
// dynamic loader at the start (backend/sleef_library.hpp): a process that
// computes none never maps it. CTest runs each case in a process of its
// own, which has computed nothing before.
#include "backend/vector_math.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

namespace {

// Whether a mapping of the process is of a file named libsleef*.
bool sleef_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find("/libsleef") != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("SLEEF is opened by the first routine that needs it") {
  REQUIRE_FALSE(sleef_mapped());
  // erf runs on SLEEF at every vector level, f64 and f32 alike.
  std::vector<double> x = {-2.0, -0.5, 0.0, 0.25, 1.0, 3.0, 7.0}, y(x.size());
  eqsat::backend::vmath::erf(x.data(), y.data(), static_cast<std::int64_t>(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(y[i] == Approx(std::erf(x[i])).epsilon(1e-15));
  CHECK(sleef_mapped());
  std::vector<float> xf = {-1.5f, 0.5f, 2.0f}, yf(xf.size());
  eqsat::backend::vmath::erf(xf.data(), yf.data(), static_cast<std::int64_t>(xf.size()));
  for (std::size_t i = 0; i < xf.size(); ++i) CHECK(yf[i] == Approx(std::erf(xf[i])).epsilon(1e-6));
}
