// The vector unit the executor's own kernels run on, chosen at run time:
// one portable binary (built for any x86-64) uses AVX2 + FMA or AVX-512
// where the CPU and the OS have them. The kernels compiled for each level
// (vector_math.cpp: SLEEF's entry points for that instruction set and our
// loops around them) are picked per call from `vector_level()`.
// EQSAT_VECTOR_LEVEL=sse2|avx2|avx512 caps the level (benchmarks, and
// reproducing a smaller machine's results); a level the CPU lacks, or any
// other value, leaves the CPU's own.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

// The instructions each level's functions are compiled for (what
// cpu_vector_level() checks before choosing the level): put before a
// function, EQSAT_TARGET_##level compiles it for `level`.
#define EQSAT_TARGET_sse2
#define EQSAT_TARGET_avx2 __attribute__((target("avx2,fma")))
#define EQSAT_TARGET_avx512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")))

namespace eqsat::backend {

// Ordered: each level includes the ones before it. Sse2 is x86-64's
// baseline; Avx2 is AVX2 with FMA; Avx512 is AVX-512 F, DQ, BW and VL.
enum class VectorLevel : std::uint8_t { Sse2, Avx2, Avx512 };

// The widest level this CPU and OS support (on a non-x86 machine, Sse2:
// the portable loops).
VectorLevel cpu_vector_level();
// The level the kernels use now.
VectorLevel vector_level();
// Uses `level` from now on: false (and no change) when the CPU lacks it.
// For tests and benchmarks; not to be called while kernels run.
bool set_vector_level(VectorLevel level);
// "sse2", "avx2", "avx512".
const char* vector_level_name(VectorLevel level);

namespace detail {
// The level EQSAT_VECTOR_LEVEL (`env`, null when unset) asks for, when it
// names one.
std::optional<VectorLevel> requested_vector_level(const char* env);
}  // namespace detail

}  // namespace eqsat::backend
