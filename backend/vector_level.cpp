#include "vector_level.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>

namespace eqsat::backend {

namespace {

constexpr std::string_view kNames[] = {"sse2", "avx2", "avx512"};

VectorLevel detect() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  // __builtin_cpu_supports also checks that the OS saves the registers.
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("fma"))
    return VectorLevel::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return VectorLevel::Avx2;
#endif
  return VectorLevel::Sse2;
}

// The level in use, set on first use from the CPU and EQSAT_VECTOR_LEVEL.
std::atomic<VectorLevel>& current() {
  static std::atomic<VectorLevel> level = [] {
    const VectorLevel cpu = cpu_vector_level();
    const auto asked = detail::requested_vector_level(std::getenv("EQSAT_VECTOR_LEVEL"));
    return asked && *asked <= cpu ? *asked : cpu;
  }();
  return level;
}

}  // namespace

VectorLevel cpu_vector_level() {
  static const VectorLevel level = detect();
  return level;
}

VectorLevel vector_level() {
  return current().load(std::memory_order_relaxed);
}

bool set_vector_level(VectorLevel level) {
  if (level > cpu_vector_level()) return false;
  current().store(level, std::memory_order_relaxed);
  return true;
}

const char* vector_level_name(VectorLevel level) {
  return kNames[static_cast<int>(level)].data();
}

namespace detail {

std::optional<VectorLevel> requested_vector_level(const char* env) {
  if (env == nullptr) return std::nullopt;
  const auto* at = std::find(std::begin(kNames), std::end(kNames), std::string_view(env));
  if (at == std::end(kNames)) return std::nullopt;
  return static_cast<VectorLevel>(at - std::begin(kNames));
}

}  // namespace detail

}  // namespace eqsat::backend
