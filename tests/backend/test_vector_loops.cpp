// The binary float ops of fused groups (vector_loops.hpp) at every vector
// level this CPU has: each element has the bits of the scalar function
// (apply_binary, the ScalarBody path), f32 and f64, odd lengths (a
// vector's tail), a constant operand on either side, NaN, infinities and
// signed zeros.
#include "backend/program.hpp"
#include "backend/scalar_body.hpp"
#include "backend/vector_level.hpp"

#include "graph_builder.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace eqsat;
using namespace eqsat::test;

namespace {

// Random values with the special ones mixed in.
template <class T>
ops::Array values(std::int64_t n, std::mt19937_64& rng) {
  const T inf = std::numeric_limits<T>::infinity();
  const T special[] = {inf,  -inf,    std::numeric_limits<T>::quiet_NaN(),
                       T(0), T(-0.0), std::numeric_limits<T>::denorm_min(),
                       T(1), T(-1)};
  ops::Array a(ops::dtype_of<T>(), {n});
  for (std::int64_t i = 0; i < n; ++i) {
    const auto pick = rng() % 16;
    a.data<T>()[i] = pick < 8 ? special[pick]
                              : static_cast<T>(std::uniform_real_distribution<double>(-4, 4)(rng));
  }
  return a;
}

// Same bits, any NaN matching any NaN.
template <class T>
bool same_bits(T a, T b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace

TEMPLATE_TEST_CASE("fused binary float ops give the scalar bits at every vector level", "", float,
                   double) {
  const backend::VectorLevel level = GENERATE(
      backend::VectorLevel::Sse2, backend::VectorLevel::Avx2, backend::VectorLevel::Avx512);
  const backend::VectorLevel saved = backend::vector_level();
  if (!backend::set_vector_level(level)) return;  // this CPU lacks the level
  const DType d = ops::dtype_of<TestType>();
  std::mt19937_64 rng(5);
  for (const OpKind kind :
       {OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Div, OpKind::Maximum, OpKind::Minimum}) {
    for (const std::int64_t n : {1, 15, 64, 67, 513, 1031}) {
      // x op y, x op scalar, scalar op y: rows of n (op by op below 64).
      TermRef x = input("x", d, {n}), y = input("y", d, {n}), s = input("s", d);
      backend::Program p = backend::compile(
          graph({x, y, s}, {op(kind, {x, y}), op(kind, {x, s}), op(kind, {s, y})}));
      const ops::Array xv = values<TestType>(n, rng), yv = values<TestType>(n, rng);
      const ops::Array sv = values<TestType>(1, rng).reshaped({});
      const auto out = p.run({xv, yv, sv});
      const TestType sc = sv.data<TestType>()[0];
      for (std::int64_t i = 0; i < n; ++i) {
        const TestType a = xv.data<TestType>()[i], b = yv.data<TestType>()[i];
        INFO(ops::op_name(kind) << " at " << backend::vector_level_name(level) << ", n " << n
                                << ": " << a << ", " << b << ", " << sc);
        CHECK(same_bits(out[0].data<TestType>()[i],
                        backend::detail::apply_binary<TestType>(kind, a, b)));
        CHECK(same_bits(out[1].data<TestType>()[i],
                        backend::detail::apply_binary<TestType>(kind, a, sc)));
        CHECK(same_bits(out[2].data<TestType>()[i],
                        backend::detail::apply_binary<TestType>(kind, sc, b)));
      }
    }
  }
  backend::set_vector_level(saved);
}
