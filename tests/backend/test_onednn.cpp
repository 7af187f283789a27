// oneDNN's f32 GEMM as the executor calls it (onednn.cpp): on the calling
// thread alone even when other code on that thread raised OpenMP's thread
// count since the last call, and with that code's count left as it was.
// Its products, every transposition and beta, are checked through `dot` in
// test_dot.cpp and test_dot_accumulate.cpp.
#include "backend/onednn.hpp"

#include <dlfcn.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <vector>

using namespace eqsat;

namespace {

// c = a b in double, row-major.
std::vector<double> reference(std::int64_t m, std::int64_t n, std::int64_t k,
                              const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<double> c(m * n, 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t j = 0; j < n; ++j) c[i * n + j] += double(a[i * k + p]) * b[p * n + j];
  return c;
}

std::vector<float> random_floats(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

std::size_t process_threads() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& t : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

}  // namespace

TEST_CASE("onednn_sgemm runs on the calling thread alone, and leaves the thread's OpenMP count") {
  std::mt19937 rng(6);
  const std::int64_t m = 256, n = 256, k = 256;
  const auto a = random_floats(m * k, rng), b = random_floats(k * n, rng);
  std::vector<float> c(m * n);
  if (!backend::detail::onednn_sgemm(false, false, m, n, k, a.data(), k, b.data(), n, 0.0f,
                                     c.data(), n)) {
    WARN("oneDNN is not installed here: the executor uses OpenBLAS for f32 products");
    return;
  }
  // oneDNN loaded its OpenMP runtime; other code on this thread (an
  // application embedding eqsat) asks it for a team of 4.
  void* gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(gomp != nullptr);
  const auto set_threads = reinterpret_cast<void (*)(int)>(dlsym(gomp, "omp_set_num_threads"));
  const auto max_threads = reinterpret_cast<int (*)()>(dlsym(gomp, "omp_get_max_threads"));
  REQUIRE(set_threads != nullptr);
  REQUIRE(max_threads != nullptr);
  const std::size_t before = process_threads();
  set_threads(4);
  REQUIRE(backend::detail::onednn_sgemm(false, false, m, n, k, a.data(), k, b.data(), n, 0.0f,
                                        c.data(), n));
  // A team would have left its threads waiting in OpenMP's pool.
  CHECK(process_threads() == before);
  CHECK(max_threads() == 4);
  const auto want = reference(m, n, k, a, b);
  for (std::int64_t i = 0; i < m * n; ++i) REQUIRE(std::abs(c[i] - want[i]) <= 1e-5 * k);
  dlclose(gomp);
}
