// `dot` with numpy.matmul semantics: a 1-D left operand is a row vector and
// a 1-D right operand a column vector (their unit dimension is dropped from
// the result); leading dimensions are batch dimensions that broadcast. Each
// matrix product goes through Eigen's GEMM (GEMV when one side is a vector).
#include "kernel_groups.hpp"
#include "kernel_support.hpp"

#include <Eigen/Core>

namespace eqsat::backend::detail {

namespace {

// The operands as stacks of matrices: batch dims, then rows and columns.
struct MatmulShape {
  Dims a_batch, b_batch;
  std::int64_t m = 1, k = 1, n = 1;
};

MatmulShape matmul_shape(TermRef op, const Dims& a, const Dims& b) {
  MatmulShape s;
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

template <class T>
void matmul_typed(const MatmulShape& s, const Dims& batch, const T* a, const T* b, T* c) {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const std::int64_t sa = s.m * s.k, sb = s.k * s.n, sc = s.m * s.n;
  auto one = [&](const T* pa, const T* pb, T* pc) {
    Eigen::Map<Matrix> out(pc, s.m, s.n);
    if (s.k == 0) {
      out.setZero();
      return;
    }
    out.noalias() = Eigen::Map<const Matrix>(pa, s.m, s.k) * Eigen::Map<const Matrix>(pb, s.k, s.n);
  };
  if (batch.empty()) {
    one(a, b, c);
    return;
  }
  const Broadcast<2> plan(batch, {&s.a_batch, &s.b_batch});
  plan.for_each_run([&](const auto& off, std::int64_t at, std::int64_t n, const auto& inner) {
    for (std::int64_t i = 0; i < n; ++i)
      one(a + (off[0] + i * inner[0]) * sa, b + (off[1] + i * inner[1]) * sb, c + (at + i) * sc);
  });
}

}  // namespace

void dot_shape(TermRef op, Operands in, Dims& shape) {
  const Dims& a = in[0]->shape();
  const Dims& b = in[1]->shape();
  const MatmulShape s = matmul_shape(op, a, b);
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

void run_dot(TermRef op, Operands in, Array& out) {
  const Array a = converted(*in[0], out.dtype());
  const Array b = converted(*in[1], out.dtype());
  const MatmulShape s = matmul_shape(op, a.shape(), b.shape());
  const std::array<const Dims*, 2> batches{&s.a_batch, &s.b_batch};
  Dims batch;
  broadcast_shapes(op, batches, batch);
  ops::visit_dtype(out.dtype(), [&]<class T>(std::type_identity<T>) {
    if constexpr (!std::is_same_v<T, bool>)
      matmul_typed<T>(s, batch, a.data<T>(), b.data<T>(), out.data<T>());
  });
}

}  // namespace eqsat::backend::detail
