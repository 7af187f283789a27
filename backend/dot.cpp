// `dot` with numpy.matmul semantics: a 1-D left operand is a row vector and
// a 1-D right operand a column vector (their unit dimension is dropped from
// the result); leading dimensions are batch dimensions that broadcast.
// Large f32/f64 products go to OpenBLAS (GEMM, GEMV when one side is a
// vector, DOT when both are) when the build found it, else to Eigen's GEMM
// split by rows between threads; small ones and integer ones to Eigen.
// An operand may be given transposed (its last two dimensions swapped, as
// stored): BLAS and Eigen then read it through their transpose flag, no
// copy is made.
#include "kernel_groups.hpp"
#include "kernel_support.hpp"

#include "thread_pool.hpp"

#include <Eigen/Core>

#ifdef EQSAT_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include <vector>

namespace eqsat::backend::detail {

namespace {

// The operands as stacks of matrices: batch dims, then rows and columns
// (of the operands as the product sees them); ta, tb: the operand is
// stored transposed (a as k x m, b as n x k).
struct MatmulShape {
  Dims a_batch, b_batch;
  std::int64_t m = 1, k = 1, n = 1;
  bool ta = false, tb = false;
};

// The shape a stored operand has once its last two dimensions are swapped
// (when `transposed`; a 1-D operand is its own transpose).
Dims as_seen(const Dims& stored, bool transposed) {
  Dims d = stored;
  if (transposed && d.size() >= 2) std::swap(d[d.size() - 2], d[d.size() - 1]);
  return d;
}

MatmulShape matmul_shape(TermRef op, const Dims& stored_a, const Dims& stored_b,
                         DotTranspose trans) {
  const Dims a = as_seen(stored_a, trans[0]), b = as_seen(stored_b, trans[1]);
  MatmulShape s;
  s.ta = trans[0] && a.size() >= 2;
  s.tb = trans[1] && b.size() >= 2;
  if (a.empty() || b.empty()) fail(op, "operands must have rank >= 1");
  const std::int64_t ka = a.back();
  const std::int64_t kb = b.size() == 1 ? b[0] : b[b.size() - 2];
  if (ka != kb)
    fail(op, fmt::format("inner dimensions differ: {} and {} for shapes {} and {}", ka, kb,
                         ops::dims_to_string(a), ops::dims_to_string(b)));
  s.k = ka;
  if (a.size() >= 2) {
    s.m = a[a.size() - 2];
    s.a_batch.assign(a.begin(), a.end() - 2);
  }
  if (b.size() >= 2) {
    s.n = b.back();
    s.b_batch.assign(b.begin(), b.end() - 2);
  }
  return s;
}

// Products below this many multiply-adds run on one thread with Eigen
// (batched ones: the batch is shared between threads); larger ones on
// OpenBLAS, which uses every thread itself, or on Eigen split by rows.
constexpr std::int64_t kSmallProduct = std::int64_t{1} << 18;

template <class T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// c = a b for rows [r0, r1) of a and c, with Eigen.
template <class T>
void eigen_product(const MatmulShape& s, const T* a, const T* b, T* c, std::int64_t r0,
                   std::int64_t r1) {
  using Map = Eigen::Map<const RowMatrix<T>>;
  Eigen::Map<RowMatrix<T>> out(c + r0 * s.n, r1 - r0, s.n);
  auto times_b = [&](const auto& rows) {
    if (s.tb)
      out.noalias() = rows * Map(b, s.n, s.k).transpose();
    else
      out.noalias() = rows * Map(b, s.k, s.n);
  };
  if (s.ta)
    times_b(Map(a, s.k, s.m).middleCols(r0, r1 - r0).transpose());
  else
    times_b(Map(a + r0 * s.k, r1 - r0, s.k));
}

// One large product on all threads.
template <class T>
void large_product(const MatmulShape& s, const T* a, const T* b, T* c) {
#ifdef EQSAT_HAVE_OPENBLAS
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    constexpr bool f64 = std::is_same_v<T, double>;
    const auto m = static_cast<blasint>(s.m), n = static_cast<blasint>(s.n),
               k = static_cast<blasint>(s.k);
    const CBLAS_TRANSPOSE ta = s.ta ? CblasTrans : CblasNoTrans,
                          tb = s.tb ? CblasTrans : CblasNoTrans;
    // A row (m = 1) or column (n = 1) operand is the same k elements
    // whether stored transposed or not: only the matrix side's flag matters.
    if (s.m == 1 && s.n == 1) {
      c[0] = f64 ? cblas_ddot(k, reinterpret_cast<const double*>(a), 1,
                              reinterpret_cast<const double*>(b), 1)
                 : cblas_sdot(k, reinterpret_cast<const float*>(a), 1,
                              reinterpret_cast<const float*>(b), 1);
    } else if constexpr (f64) {
      if (s.m == 1 && s.tb)
        cblas_dgemv(CblasRowMajor, CblasNoTrans, n, k, 1.0, b, k, a, 1, 0.0, c, 1);
      else if (s.m == 1)
        cblas_dgemv(CblasRowMajor, CblasTrans, k, n, 1.0, b, n, a, 1, 0.0, c, 1);
      else if (s.n == 1 && s.ta)
        cblas_dgemv(CblasRowMajor, CblasTrans, k, m, 1.0, a, m, b, 1, 0.0, c, 1);
      else if (s.n == 1)
        cblas_dgemv(CblasRowMajor, CblasNoTrans, m, k, 1.0, a, k, b, 1, 0.0, c, 1);
      else
        cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, a, s.ta ? m : k, b, s.tb ? k : n, 0.0, c,
                    n);
    } else {
      if (s.m == 1 && s.tb)
        cblas_sgemv(CblasRowMajor, CblasNoTrans, n, k, 1.0f, b, k, a, 1, 0.0f, c, 1);
      else if (s.m == 1)
        cblas_sgemv(CblasRowMajor, CblasTrans, k, n, 1.0f, b, n, a, 1, 0.0f, c, 1);
      else if (s.n == 1 && s.ta)
        cblas_sgemv(CblasRowMajor, CblasTrans, k, m, 1.0f, a, m, b, 1, 0.0f, c, 1);
      else if (s.n == 1)
        cblas_sgemv(CblasRowMajor, CblasNoTrans, m, k, 1.0f, a, k, b, 1, 0.0f, c, 1);
      else
        cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, a, s.ta ? m : k, b, s.tb ? k : n, 0.0f, c,
                    n);
    }
    return;
  }
#endif
  parallel_for(s.m, std::max<std::int64_t>(1, kSmallProduct / (s.n * s.k)),
               [&](std::int64_t r0, std::int64_t r1) { eigen_product(s, a, b, c, r0, r1); });
}

template <class T>
void matmul_typed(const MatmulShape& s, const Dims& batch, const T* a, const T* b, T* c) {
  const std::int64_t sa = s.m * s.k, sb = s.k * s.n, sc = s.m * s.n;
  if (sc == 0) return;
  if (s.k == 0) {
    std::fill_n(c, num_elements(batch) * sc, T(0));
    return;
  }
  const bool large = s.m * s.n * s.k >= kSmallProduct;
  auto one = [&](const T* pa, const T* pb, T* pc) {
    if (large)
      large_product(s, pa, pb, pc);
    else
      eigen_product(s, pa, pb, pc, 0, s.m);
  };
  if (batch.empty()) {
    one(a, b, c);
    return;
  }
  // The offsets of each product's operands, then the products: large ones
  // one after another, small ones shared between threads.
  std::vector<std::array<std::int64_t, 2>> offsets;
  const Broadcast<2> plan(batch, {&s.a_batch, &s.b_batch});
  plan.for_each_run([&](const auto& off, std::int64_t, std::int64_t n, const auto& inner) {
    for (std::int64_t i = 0; i < n; ++i)
      offsets.push_back({(off[0] + i * inner[0]) * sa, (off[1] + i * inner[1]) * sb});
  });
  const auto count = static_cast<std::int64_t>(offsets.size());
  if (large) {
    for (std::int64_t i = 0; i < count; ++i) one(a + offsets[i][0], b + offsets[i][1], c + i * sc);
    return;
  }
  parallel_for(count, std::max<std::int64_t>(1, kSmallProduct / (s.m * s.n * s.k)),
               [&](std::int64_t i0, std::int64_t i1) {
                 for (std::int64_t i = i0; i < i1; ++i)
                   eigen_product(s, a + offsets[i][0], b + offsets[i][1], c + i * sc, 0, s.m);
               });
}

}  // namespace

void dot_shape(TermRef op, Operands in, Dims& shape, DotTranspose trans) {
  const Dims a = as_seen(in[0]->shape(), trans[0]);
  const Dims b = as_seen(in[1]->shape(), trans[1]);
  const MatmulShape s = matmul_shape(op, in[0]->shape(), in[1]->shape(), trans);
  const std::array<const Dims*, 2> batches{&s.a_batch, &s.b_batch};
  try {
    broadcast_shapes(op, batches, shape);
  } catch (const RuntimeError&) {
    fail(op, fmt::format("batch dimensions of shapes {} and {} do not broadcast",
                         ops::dims_to_string(a), ops::dims_to_string(b)));
  }
  if (a.size() >= 2) shape.push_back(s.m);
  if (b.size() >= 2) shape.push_back(s.n);
}

void run_dot(TermRef op, Operands in, Array& out, DotTranspose trans) {
  const Array a = converted(*in[0], out.dtype());
  const Array b = converted(*in[1], out.dtype());
  const MatmulShape s = matmul_shape(op, a.shape(), b.shape(), trans);
  const std::array<const Dims*, 2> batches{&s.a_batch, &s.b_batch};
  Dims batch;
  broadcast_shapes(op, batches, batch);
  ops::visit_dtype(out.dtype(), [&]<class T>(std::type_identity<T>) {
    if constexpr (!std::is_same_v<T, bool>)
      matmul_typed<T>(s, batch, a.data<T>(), b.data<T>(), out.data<T>());
  });
}

}  // namespace eqsat::backend::detail
