// backend/dot.cpp: every way a product is cut between threads and
// libraries (one block; rows split; columns split; a batch shared product by
// product; a few large products each split; one part a thread; blocks over
// 1 MB in chunks of rows; DOT, GEMV, GEMM, oneDNN) against a plain loop in
// long double, on random values, f32, f64 and integers, operands stored
// transposed or not; and with inf, NaN and subnormal operands.
#include "backend/program.hpp"

#include "array_values.hpp"
#include "graph_builder.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

using namespace eqsat;
using namespace eqsat::test;

namespace {

struct Shape {
  std::int64_t batch_a, batch_b;  // 0: no batch dimension; 1 broadcasts
  std::int64_t m, k, n;
  bool vec_a, vec_b;  // a 1-D operand (m or n is then 1)
  bool ta, tb;        // stored with its last two dimensions swapped
};

TermRef swap_last_two(TermRef t) {
  const auto r = static_cast<std::int64_t>(t->tensor_type().rank());
  ops::IntList perm;
  for (std::int64_t i = 0; i < r; ++i) perm.push_back(i);
  std::swap(perm[r - 2], perm[r - 1]);
  return op(OpKind::Transpose, {t}, {{AttrKey::Perm, perm}});
}

// The operand's stored shape; a vector has length k.
ops::Dims stored(std::int64_t batch, std::int64_t rows, std::int64_t cols, std::int64_t k, bool vec,
                 bool t) {
  ops::Dims d;
  if (batch) d.push_back(batch);
  if (vec) {
    d.push_back(k);
  } else {
    d.push_back(t ? cols : rows);
    d.push_back(t ? rows : cols);
  }
  return d;
}

// Where element (r, c) of matrix `b` of an operand, as the product sees
// it, is stored.
std::int64_t stored_index(const Shape& s, bool is_a, std::int64_t b, std::int64_t r,
                          std::int64_t c) {
  const std::int64_t batch = is_a ? s.batch_a : s.batch_b;
  const bool vec = is_a ? s.vec_a : s.vec_b, t = is_a ? s.ta : s.tb;
  const std::int64_t rows = is_a ? s.m : s.k, cols = is_a ? s.k : s.n;
  const std::int64_t bi = batch > 1 ? b : 0;
  if (vec) return bi * (is_a ? cols : rows) + (is_a ? c : r);
  const std::int64_t stored_cols = t ? rows : cols;
  return bi * rows * cols + (t ? c * stored_cols + r : r * stored_cols + c);
}

long double at(const ops::Array& x, const Shape& s, bool is_a, std::int64_t b, std::int64_t r,
               std::int64_t c) {
  return x.element(stored_index(s, is_a, b, r, c));
}

// Float operands with edge values (`special`): +inf in row 3 of a, NaN in
// row 7, -inf in row 4 of b, and row 9 of a subnormal, which column 13 of
// b (all ones) sums exactly: a flush to zero there is wrong.
void plant_specials(const Shape& s, DType d, ops::Array& av, ops::Array& bv) {
  const double tiny = d == DType::F32 ? std::numeric_limits<float>::denorm_min()
                                      : std::numeric_limits<double>::denorm_min();
  set_element(av, stored_index(s, true, 0, 3, 5), INFINITY);
  set_element(av, stored_index(s, true, 0, 7, 2), NAN);
  set_element(bv, stored_index(s, false, 0, 4, 11), -INFINITY);
  for (std::int64_t j = 0; j < s.k; ++j) {
    set_element(av, stored_index(s, true, 0, 9, j), tiny * double(3 * j + 1));
    set_element(bv, stored_index(s, false, 0, j, 13), 1.0);
  }
}

void check_product(const Shape& s, DType d, std::mt19937_64& rng, bool special = false) {
  const ops::Dims da = stored(s.batch_a, s.m, s.k, s.k, s.vec_a, s.ta);
  const ops::Dims db = stored(s.batch_b, s.k, s.n, s.k, s.vec_b, s.tb);
  INFO(ops::dtype_name(d) << " " << ops::dims_to_string(da) << (s.ta ? "ᵀ" : "") << " · "
                          << ops::dims_to_string(db) << (s.tb ? "ᵀ" : ""));
  TermRef a = input("a", d, da), b = input("b", d, db);
  TermRef y = op(OpKind::Dot, {s.ta ? swap_last_two(a) : a, s.tb ? swap_last_two(b) : b});
  ops::Array av(d, da), bv(d, db);
  std::uniform_int_distribution<int> small(-3, 3);
  std::uniform_real_distribution<double> u(-1, 1);
  const bool integer = !ops::is_float(d);
  for (std::int64_t i = 0; i < av.size(); ++i) set_element(av, i, integer ? small(rng) : u(rng));
  for (std::int64_t i = 0; i < bv.size(); ++i) set_element(bv, i, integer ? small(rng) : u(rng));
  if (special) plant_specials(s, d, av, bv);
  const ops::Array got = backend::compile(graph({a, b}, {y})).run({av, bv})[0];
  const std::int64_t batches = std::max<std::int64_t>({s.batch_a, s.batch_b, 1});
  REQUIRE(got.size() == batches * s.m * s.n);
  const double eps = d == DType::F32 ? 1e-6 : d == DType::F64 ? 1e-14 : 0;
  // Sums of subnormal products round to the subnormal spacing.
  const double spacing = d == DType::F32   ? std::numeric_limits<float>::denorm_min()
                         : d == DType::F64 ? std::numeric_limits<double>::denorm_min()
                                           : 0;
  std::int64_t wrong = 0;
  for (std::int64_t bi = 0; bi < batches; ++bi)
    for (std::int64_t r = 0; r < s.m; ++r)
      for (std::int64_t c = 0; c < s.n; ++c) {
        long double want = 0, scale = 0;
        for (std::int64_t j = 0; j < s.k; ++j) {
          const long double p = at(av, s, true, bi, r, j) * at(bv, s, false, bi, j, c);
          want += p;
          scale += std::abs(p);
        }
        const double g = got.element((bi * s.m + r) * s.n + c), w = static_cast<double>(want);
        if (std::isnan(w) || std::isinf(w)) {
          if (std::isnan(w) ? !std::isnan(g) : g != w) ++wrong;
        } else if (std::abs(g - w) >
                   eps * 4 * static_cast<double>(scale) + spacing * static_cast<double>(s.k)) {
          ++wrong;
        }
      }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("dot equals a plain loop however the product is cut between threads and libraries") {
  std::mt19937_64 rng(2024);
  const std::vector<Shape> shapes = {
      {0, 0, 3, 5, 4, false, false, false, false},        // one small block
      {0, 0, 1, 1, 1, false, false, false, false},        // 1 x 1 x 1
      {0, 0, 1, 300, 1, true, true, false, false},        // DOT
      {0, 0, 1, 700, 1, true, true, false, false},        // DOT, large
      {0, 0, 1, 600, 900, true, false, false, false},     // row vector: GEMV, columns split
      {0, 0, 1, 600, 900, true, false, false, true},      // the same, b stored transposed
      {0, 0, 900, 600, 1, false, true, false, false},     // column vector: GEMV, rows split
      {0, 0, 900, 600, 1, false, true, true, false},      // the same, a stored transposed
      {0, 0, 300, 200, 250, false, false, false, false},  // GEMM, rows split (f32: oneDNN,
                                                          // f64: own_dgemm with AVX-512)
      {0, 0, 300, 200, 250, false, false, true, true},    // the same, both transposed
      {0, 0, 16, 128, 512, false, false, false, false},   // few rows: columns split
      {0, 0, 16, 128, 512, false, false, true, false},
      {0, 0, 16, 128, 512, false, false, false, true},
      {0, 0, 37, 13, 29, false, false, false, false},   // odd sizes, one block
      {0, 0, 257, 65, 33, false, false, false, false},  // odd sizes, split
      {3, 3, 100, 64, 90, false, false, false, false},  // a few large products, each split
      {8, 1, 128, 64, 128, false, false, false, true},  // attention-like, b broadcast
      {64, 64, 12, 7, 9, false, false, false, false},   // many small products shared
      {1, 20, 9, 5, 7, false, false, true, false},      // a broadcast
      {5, 0, 40, 30, 1, false, true, false, false},     // batch against a vector
      // blocks over 256 KB of result: a chunk of rows at a time
      {0, 0, 2400, 16, 700, false, false, false, false},
      {0, 0, 2400, 16, 700, false, false, true, false},
      // a thread's half of up to 1 MB (f64) is one call; just past it, chunks
      {0, 0, 512, 48, 512, false, false, false, true},
      {0, 0, 512, 48, 520, false, false, true, false},
      // over 1 MB of result with a b over 1 MB (f64): one call a thread
      {0, 0, 420, 400, 400, false, false, false, true},
  };
  for (DType d : {DType::F32, DType::F64, DType::I64, DType::I32})
    for (const Shape& s : shapes) check_product(s, d, rng);
}

TEST_CASE(
    "dot: inf, NaN and subnormal operands give a plain loop's values, in one call or chunks") {
  std::mt19937_64 rng(7);
  const std::vector<Shape> shapes = {
      {0, 0, 40, 24, 30, false, false, false, false},    // one block
      {0, 0, 512, 48, 512, false, false, false, true},   // a part a thread, one call each
      {0, 0, 512, 48, 520, false, false, true, false},   // chunks (f64)
      {0, 0, 2400, 16, 700, false, false, false, false}  // chunks
  };
  for (DType d : {DType::F32, DType::F64})
    for (const Shape& s : shapes) check_product(s, d, rng, true);
}
