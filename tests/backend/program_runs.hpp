// Test helper: random inputs for a program, and runs of it on the pool's
// threads or with every kernel on the calling thread (inside a part of a
// parallel_for, where kernels and loops by rows run inline).
#pragma once

#include "backend/program.hpp"
#include "backend/thread_pool.hpp"
#include "ops/array.hpp"

#include <random>
#include <vector>

namespace eqsat::test {

// An array of `shape` with elements drawn uniformly from [-2, 2).
inline ops::Array random_array(ops::DType d, const ops::Dims& shape, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-2, 2);
  ops::Array a(d, shape);
  for (std::int64_t i = 0; i < a.size(); ++i) {
    if (d == ops::DType::F32)
      a.data<float>()[i] = static_cast<float>(u(rng));
    else
      a.data<double>()[i] = u(rng);
  }
  return a;
}

// Runs `p` on the pool, or (`one_thread`) inside a part of a parallel_for.
inline std::vector<ops::Array> run_on(backend::Program& p, const std::vector<ops::Array>& args,
                                      bool one_thread) {
  if (!one_thread) return p.run(args);
  std::vector<ops::Array> out;
  backend::parallel_for(2, 1, [&](std::int64_t i0, std::int64_t) {
    if (i0 == 0) out = p.run(args);
  });
  return out;
}

}  // namespace eqsat::test
