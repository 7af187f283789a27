// The binary float ops of fused groups (vector_loops.hpp) at every vector
// level this CPU has: each element has the bits of the scalar function
// (apply_binary, the ScalarBody path), f32 and f64, odd lengths (a
// vector's tail), a constant operand on either side, NaN, infinities and
// signed zeros; and the groups' comparisons, logical ops, `where` (each
// branch an array or a constant) and boolean results against C++'s.
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

// The vector level for a test's scope, the one before restored after;
// `ok` is false when this CPU lacks it.
struct LevelScope {
  backend::VectorLevel level, saved = backend::vector_level();
  bool ok;
  explicit LevelScope(backend::VectorLevel l) : level(l), ok(backend::set_vector_level(l)) {}
  ~LevelScope() { backend::set_vector_level(saved); }
  LevelScope(const LevelScope&) = delete;
  LevelScope& operator=(const LevelScope&) = delete;
};

}  // namespace

TEMPLATE_TEST_CASE("fused binary float ops give the scalar bits at every vector level", "", float,
                   double) {
  const LevelScope scope(GENERATE(backend::VectorLevel::Sse2, backend::VectorLevel::Avx2,
                                  backend::VectorLevel::Avx512));
  if (!scope.ok) return;  // this CPU lacks the level
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
        INFO(ops::op_name(kind) << " at " << backend::vector_level_name(scope.level) << ", n " << n
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
}

TEMPLATE_TEST_CASE(
    "fused comparisons, where and boolean results agree with C++ at every vector level", "", float,
    double) {
  const LevelScope scope(GENERATE(backend::VectorLevel::Sse2, backend::VectorLevel::Avx2,
                                  backend::VectorLevel::Avx512));
  if (!scope.ok) return;  // this CPU lacks the level
  const DType d = ops::dtype_of<TestType>();
  std::mt19937_64 rng(7);
  for (const std::int64_t n : {1, 15, 67, 1031}) {
    TermRef x = input("x", d, {n}), y = input("y", d, {n}), s = input("s", d);
    const std::vector<TermRef> outs = {
        op(OpKind::Gt, {x, y}),
        op(OpKind::LogicalAnd, {op(OpKind::Le, {x, s}), op(OpKind::Ne, {y, s})}),
        op(OpKind::Where, {op(OpKind::Lt, {x, y}), x, op(OpKind::Neg, {y})}),
        op(OpKind::Where, {op(OpKind::Eq, {x, y}), s, y}),
        op(OpKind::Where, {op(OpKind::Ge, {x, s}), op(OpKind::Neg, {x}), s})};
    backend::Program p = backend::compile(graph({x, y, s}, outs));
    const ops::Array xv = values<TestType>(n, rng), yv = values<TestType>(n, rng);
    const ops::Array sv = values<TestType>(1, rng).reshaped({});
    const auto out = p.run({xv, yv, sv});
    REQUIRE(out[0].dtype() == DType::Bool);
    const TestType c = sv.data<TestType>()[0];
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const TestType a = xv.data<TestType>()[i], b = yv.data<TestType>()[i];
      wrong += out[0].data<bool>()[i] != (a > b);
      wrong += out[1].data<bool>()[i] != (a <= c && b != c);
      wrong += !same_bits(out[2].data<TestType>()[i], a < b ? a : -b);
      wrong += !same_bits(out[3].data<TestType>()[i], a == b ? c : b);
      wrong += !same_bits(out[4].data<TestType>()[i], a >= c ? -a : c);
    }
    // A scalar condition: one branch whole.
    TermRef flag = input("flag", DType::Bool);
    backend::Program q = backend::compile(
        graph({x, y, s, flag}, {op(OpKind::Where, {flag, op(OpKind::Neg, {x}), y}),
                                op(OpKind::Where, {flag, s, op(OpKind::Neg, {y})})}));
    for (const bool f : {true, false}) {
      const auto picked = q.run({xv, yv, sv, ops::Array::scalar(DType::Bool, f)});
      for (std::int64_t i = 0; i < n; ++i) {
        const TestType a = xv.data<TestType>()[i], b = yv.data<TestType>()[i];
        wrong += !same_bits(picked[0].data<TestType>()[i], f ? -a : b);
        wrong += !same_bits(picked[1].data<TestType>()[i], f ? c : -b);
      }
    }
    INFO(backend::vector_level_name(scope.level) << ", n " << n);
    CHECK(wrong == 0);
  }
}
