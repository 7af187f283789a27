// Elementwise kernels: unary ops, cast, binary ops and where, with NumPy
// broadcasting and promotion. The dtype switch happens once per kernel
// call; inner loops run over contiguous runs as Eigen array maps (or plain
// loops the compiler vectorizes), with transcendentals vectorized.
#include "eigen_maps.hpp"
#include "kernel_groups.hpp"
#include "kernel_support.hpp"
#include "subnormal_math.hpp"
#include "vector_math.hpp"

#include <Eigen/Core>

#include <cmath>
#include <stdexcept>

namespace eqsat::backend::detail {

namespace {

using ops::DType;
using ops::OpKind;

// `a` itself when it has dtype `d`, else a converted copy held in `storage`.
const Array& as_dtype(const Array& a, DType d, Array& storage) {
  if (a.dtype() == d) return a;
  storage = converted(a, d);
  return storage;
}

[[noreturn]] void no_kernel(OpKind kind, DType d) {
  throw std::logic_error(fmt::format("internal: no elementwise kernel for {} on {}",
                                     ops::op_name(kind), ops::dtype_name(d)));
}

constexpr std::int64_t kBlock = 512;

// softplus(x) = max(x, 0) + log1p(exp(-|x|)): never overflows, and exact
// for very negative x (where it is exp(x)).
void softplus_f64(const double* x, double* y, std::int64_t n) {
  alignas(64) double t[kBlock];
  for (std::int64_t s = 0; s < n; s += kBlock) {
    const std::int64_t m = std::min(kBlock, n - s);
    Out<double> tm(t, m);
    tm = -In<double>(x + s, m).abs();
    exact_exp(t, t, m);
    vmath::log1p(t, t, m);
    Out<double>(y + s, m) = In<double>(x + s, m).max(0.0) + tm;
  }
}

// log(1 − eˣ) (PyTensor's log1mexp): log(−expm1 x) near 0, log1p(−eˣ)
// below −ln 2, where each is accurate.
template <class T>
T log1mexp(T x) {
  return x > T(-0.6931471805599453) ? std::log(-std::expm1(x)) : std::log1p(-std::exp(x));
}

// log(eᵃ + eᵇ) = max + log1p(e^−|a−b|); equal operands (±∞ included) give
// a + ln 2.
template <class T>
T logaddexp(T a, T b) {
  if (a == b) return a + T(0.6931471805599453);
  if (std::isnan(a) || std::isnan(b)) return a + b;
  return std::max(a, b) + std::log1p(std::exp(-std::abs(a - b)));
}

template <class T>
void unary_block(OpKind kind, const T* x, T* y, std::int64_t n) {
  In<T> a(x, n);
  Out<T> o(y, n);
  switch (kind) {
    case OpKind::Neg:
      o = -a;
      return;
    case OpKind::Abs:
      o = a.abs();
      return;
    case OpKind::Sign:
      // NaN stays NaN, as in NumPy.
      for (std::int64_t i = 0; i < n; ++i) {
        const T v = x[i];
        y[i] = v > T(0) ? T(1) : v < T(0) ? T(-1) : v;
      }
      return;
    case OpKind::Square:
      o = a.square();
      return;
    default:
      break;
  }
  if constexpr (std::is_floating_point_v<T>) {
    constexpr bool f64 = std::is_same_v<T, double>;
    switch (kind) {
      case OpKind::Exp:
        exact_exp(x, y, n);
        return;
      case OpKind::Log:
        exact_log(x, y, n);
        return;
      case OpKind::Sqrt:
        o = a.sqrt();
        return;
      case OpKind::Reciprocal:
        o = a.inverse();
        return;
      case OpKind::Floor:
        o = a.floor();
        return;
      case OpKind::Ceil:
        o = a.ceil();
        return;
      case OpKind::Sigmoid:
        o = T(1) / (T(1) + (-a).exp());
        return;
      case OpKind::Expm1:
        if constexpr (f64)
          vmath::expm1(x, y, n);
        else
          o = a.expm1();
        return;
      case OpKind::Log1p:
        if constexpr (f64)
          vmath::log1p(x, y, n);
        else
          o = a.log1p();
        return;
      case OpKind::Sin:
        if constexpr (f64)
          vmath::sin(x, y, n);
        else
          o = a.sin();
        return;
      case OpKind::Cos:
        if constexpr (f64)
          vmath::cos(x, y, n);
        else
          o = a.cos();
        return;
      case OpKind::Tanh:
        if constexpr (f64)
          vmath::tanh(x, y, n);
        else
          o = a.tanh();
        return;
      case OpKind::Softplus:
        if constexpr (f64)
          softplus_f64(x, y, n);
        else
          o = a.max(T(0)) + (-a.abs()).exp().log1p();
        return;
      case OpKind::Log1mexp:
        for (std::int64_t i = 0; i < n; ++i) y[i] = log1mexp(x[i]);
        return;
      default:
        break;
    }
  }
  no_kernel(kind, ops::dtype_of<T>());
}

void run_unary(TermRef op, Operands in, Array& out) {
  const OpKind kind = op->kind();
  if (kind == OpKind::Cast) {
    convert_into(*in[0], out);
    return;
  }
  Array storage;
  if (kind == OpKind::LogicalNot) {
    const Array& x = as_dtype(*in[0], DType::Bool, storage);
    const bool* p = x.data<bool>();
    bool* q = out.data<bool>();
    for (std::int64_t i = 0, n = x.size(); i < n; ++i) q[i] = !p[i];
    return;
  }
  const Array& x = as_dtype(*in[0], out.dtype(), storage);
  ops::visit_dtype(out.dtype(), [&]<class T>(std::type_identity<T>) {
    if constexpr (std::is_same_v<T, bool>) {
      no_kernel(kind, DType::Bool);
    } else {
      unary_block<T>(kind, x.data<T>(), out.data<T>(), x.size());
    }
  });
}

// Runs an Eigen expression `f(a, b)` over every broadcast run; an operand
// that is constant along a run becomes a constant array.
template <class T, class R, class F>
void binary_eigen(const Broadcast<2>& plan, const T* a, const T* b, R* out, F f) {
  plan.for_each_run([&](const auto& offsets, std::int64_t at, std::int64_t n, const auto& inner) {
    const T* pa = a + offsets[0];
    const T* pb = b + offsets[1];
    Out<R> o(out + at, n);
    if (inner[0] && inner[1]) {
      o = f(In<T>(pa, n), In<T>(pb, n));
    } else if (inner[0]) {
      o = f(In<T>(pa, n), Vec<T>::Constant(n, *pb));
    } else if (inner[1]) {
      o = f(Vec<T>::Constant(n, *pa), In<T>(pb, n));
    } else {
      // Both constant: one scalar evaluation, then a fill.
      o.setConstant(f(In<T>(pa, 1), In<T>(pb, 1)).coeff(0));
    }
  });
}

template <bool A, bool B, class T, class R, class F>
void scalar_loop(const T* a, const T* b, R* out, std::int64_t n, F f) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = f(a[A ? i : 0], b[B ? i : 0]);
}

// Runs a scalar function `f(x, y)` over every broadcast run, with the
// contiguous/constant pattern fixed at compile time so loops vectorize.
template <class T, class R, class F>
void binary_scalar(const Broadcast<2>& plan, const T* a, const T* b, R* out, F f) {
  plan.for_each_run([&](const auto& offsets, std::int64_t at, std::int64_t n, const auto& inner) {
    const T* pa = a + offsets[0];
    const T* pb = b + offsets[1];
    if (inner[0] && inner[1])
      scalar_loop<true, true>(pa, pb, out + at, n, f);
    else if (inner[0])
      scalar_loop<true, false>(pa, pb, out + at, n, f);
    else if (inner[1])
      scalar_loop<false, true>(pa, pb, out + at, n, f);
    else
      scalar_loop<false, false>(pa, pb, out + at, n, f);
  });
}

template <class T>
T integer_power(TermRef op, T base, T exponent) {
  if (exponent < 0) fail(op, "integers to negative integer powers are not allowed");
  using U = std::make_unsigned_t<T>;
  U result = 1, b = static_cast<U>(base);
  for (auto e = static_cast<U>(exponent); e; e >>= 1) {
    if (e & 1u) result *= b;
    b *= b;
  }
  return static_cast<T>(result);
}

template <class T>
void arithmetic(TermRef op, const Broadcast<2>& plan, const T* a, const T* b, T* out) {
  using Eigen::PropagateNaN;
  using Eigen::internal::scalar_max_op;
  using Eigen::internal::scalar_min_op;
  switch (op->kind()) {
    case OpKind::Add:
      return binary_eigen(plan, a, b, out, [](const auto& x, const auto& y) { return x + y; });
    case OpKind::Sub:
      return binary_eigen(plan, a, b, out, [](const auto& x, const auto& y) { return x - y; });
    case OpKind::Mul:
      return binary_eigen(plan, a, b, out, [](const auto& x, const auto& y) { return x * y; });
    case OpKind::Div:
      return binary_eigen(plan, a, b, out, [](const auto& x, const auto& y) { return x / y; });
    case OpKind::Maximum:
      return binary_eigen(plan, a, b, out, [](const auto& x, const auto& y) {
        return x.binaryExpr(y, scalar_max_op<T, T, PropagateNaN>());
      });
    case OpKind::Minimum:
      return binary_eigen(plan, a, b, out, [](const auto& x, const auto& y) {
        return x.binaryExpr(y, scalar_min_op<T, T, PropagateNaN>());
      });
    case OpKind::Logaddexp:
      if constexpr (std::is_floating_point_v<T>)
        return binary_scalar(plan, a, b, out, [](T x, T y) { return logaddexp(x, y); });
      no_kernel(op->kind(), ops::dtype_of<T>());
    case OpKind::Pow:
      if constexpr (std::is_floating_point_v<T>) {
        return binary_scalar(plan, a, b, out, [](T x, T y) { return std::pow(x, y); });
      } else {
        return binary_scalar(plan, a, b, out, [op](T x, T y) { return integer_power(op, x, y); });
      }
    default:
      no_kernel(op->kind(), ops::dtype_of<T>());
  }
}

template <class T>
void comparison(OpKind kind, const Broadcast<2>& plan, const T* a, const T* b, bool* out) {
  switch (kind) {
    case OpKind::Eq:
      return binary_scalar(plan, a, b, out, [](T x, T y) { return x == y; });
    case OpKind::Ne:
      return binary_scalar(plan, a, b, out, [](T x, T y) { return x != y; });
    case OpKind::Lt:
      return binary_scalar(plan, a, b, out, [](T x, T y) { return x < y; });
    case OpKind::Le:
      return binary_scalar(plan, a, b, out, [](T x, T y) { return x <= y; });
    case OpKind::Gt:
      return binary_scalar(plan, a, b, out, [](T x, T y) { return x > y; });
    case OpKind::Ge:
      return binary_scalar(plan, a, b, out, [](T x, T y) { return x >= y; });
    default:
      no_kernel(kind, ops::dtype_of<T>());
  }
}

bool is_comparison(OpKind kind) {
  switch (kind) {
    case OpKind::Eq:
    case OpKind::Ne:
    case OpKind::Lt:
    case OpKind::Le:
    case OpKind::Gt:
    case OpKind::Ge:
      return true;
    default:
      return false;
  }
}

void run_binary(TermRef op, Operands in, Array& out) {
  const OpKind kind = op->kind();
  DType compute = out.dtype();
  if (is_comparison(kind)) compute = ops::promote(in[0]->dtype(), in[1]->dtype());
  if (kind == OpKind::LogicalAnd || kind == OpKind::LogicalOr) compute = DType::Bool;
  Array sa, sb;
  const Array& a = as_dtype(*in[0], compute, sa);
  const Array& b = as_dtype(*in[1], compute, sb);
  const Broadcast<2> plan(out.shape(), {&a.shape(), &b.shape()});
  ops::visit_dtype(compute, [&]<class T>(std::type_identity<T>) {
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    if (is_comparison(kind)) {
      comparison(kind, plan, pa, pb, out.data<bool>());
    } else if constexpr (std::is_same_v<T, bool>) {
      bool* po = out.data<bool>();
      switch (kind) {
        case OpKind::LogicalAnd:
        case OpKind::Minimum:
          return binary_scalar(plan, pa, pb, po, [](bool x, bool y) { return x && y; });
        case OpKind::LogicalOr:
        case OpKind::Maximum:
          return binary_scalar(plan, pa, pb, po, [](bool x, bool y) { return x || y; });
        default:
          no_kernel(kind, DType::Bool);
      }
    } else {
      arithmetic(op, plan, pa, pb, out.data<T>());
    }
  });
}

void run_where(Operands in, Array& out) {
  Array sc, sa, sb;
  const Array& c = as_dtype(*in[0], DType::Bool, sc);
  const Array& a = as_dtype(*in[1], out.dtype(), sa);
  const Array& b = as_dtype(*in[2], out.dtype(), sb);
  const Broadcast<3> plan(out.shape(), {&c.shape(), &a.shape(), &b.shape()});
  ops::visit_dtype(out.dtype(), [&]<class T>(std::type_identity<T>) {
    const bool* pc = c.data<bool>();
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* po = out.data<T>();
    plan.for_each_run([&](const auto& off, std::int64_t at, std::int64_t n, const auto& inner) {
      const bool* qc = pc + off[0];
      const T* qa = pa + off[1];
      const T* qb = pb + off[2];
      T* qo = po + at;
      if (inner[0] && inner[1] && inner[2]) {
        for (std::int64_t i = 0; i < n; ++i) qo[i] = qc[i] ? qa[i] : qb[i];
      } else {
        for (std::int64_t i = 0; i < n; ++i)
          qo[i] = qc[i * inner[0]] ? qa[i * inner[1]] : qb[i * inner[2]];
      }
    });
  });
}

// out = a (op) b over n elements; a constant operand is read once.
template <class T>
void binary_block(OpKind kind, const T* a, bool a_const, const T* b, bool b_const, T* out,
                  std::int64_t n) {
  using Eigen::PropagateNaN;
  using Eigen::internal::scalar_max_op;
  using Eigen::internal::scalar_min_op;
  auto run = [&](auto f) {
    Out<T> o(out, n);
    if (!a_const && !b_const)
      o = f(In<T>(a, n), In<T>(b, n));
    else if (!a_const)
      o = f(In<T>(a, n), Vec<T>::Constant(n, *b));
    else if (!b_const)
      o = f(Vec<T>::Constant(n, *a), In<T>(b, n));
    else
      o.setConstant(f(In<T>(a, 1), In<T>(b, 1)).coeff(0));
  };
  switch (kind) {
    case OpKind::Add:
      return run([](const auto& x, const auto& y) { return x + y; });
    case OpKind::Sub:
      return run([](const auto& x, const auto& y) { return x - y; });
    case OpKind::Mul:
      return run([](const auto& x, const auto& y) { return x * y; });
    case OpKind::Div:
      return run([](const auto& x, const auto& y) { return x / y; });
    case OpKind::Maximum:
      return run([](const auto& x, const auto& y) {
        return x.binaryExpr(y, scalar_max_op<T, T, PropagateNaN>());
      });
    case OpKind::Minimum:
      return run([](const auto& x, const auto& y) {
        return x.binaryExpr(y, scalar_min_op<T, T, PropagateNaN>());
      });
    default:  // pow
      for (std::int64_t i = 0; i < n; ++i)
        out[i] = std::pow(a[a_const ? 0 : i], b[b_const ? 0 : i]);
  }
}

template <class T>
void run_fused_typed(std::span<const FusedOp> program, Operands leaves, Array& out) {
  alignas(64) T registers[kMaxFusedOps][kBlock];
  const std::int64_t n = out.size();
  const std::size_t last = program.size() - 1;
  for (std::int64_t s = 0; s < n; s += kBlock) {
    const std::int64_t m = std::min(kBlock, n - s);
    auto source = [&](const FusedSource& src, bool& is_const) -> const T* {
      if (!src.leaf) {
        is_const = false;
        return registers[src.index];
      }
      const Array& a = *leaves[src.index];
      is_const = a.size() == 1;
      return is_const ? a.data<T>() : a.data<T>() + s;
    };
    for (std::size_t k = 0; k < program.size(); ++k) {
      const FusedOp& op = program[k];
      T* dst = k == last ? out.data<T>() + s : registers[k];
      bool a_const = false, b_const = false;
      const T* a = source(op.src[0], a_const);
      if (op.arity == 1) {
        if (a_const) {
          std::fill_n(dst, m, *a);
          a = dst;
        }
        unary_block<T>(op.kind, a, dst, m);
      } else {
        const T* b = source(op.src[1], b_const);
        binary_block<T>(op.kind, a, a_const, b, b_const, dst, m);
      }
    }
  }
}

}  // namespace

bool fusable(OpKind kind) {
  switch (kind) {
    case OpKind::LogicalNot:
    case OpKind::Cast:
      return false;
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::Pow:
    case OpKind::Maximum:
    case OpKind::Minimum:
      return true;
    default:
      return ops::op_info(kind).group == ops::OpGroup::Unary;
  }
}

void run_fused(std::span<const FusedOp> program, Operands leaves, Array& out) {
  if (out.dtype() == DType::F32)
    run_fused_typed<float>(program, leaves, out);
  else
    run_fused_typed<double>(program, leaves, out);
}

void elementwise_shape(TermRef op, Operands in, Dims& shape) {
  if (in.size() == 1) {
    shape = in[0]->shape();
    return;
  }
  std::array<const Dims*, 3> shapes{};
  for (std::size_t i = 0; i < in.size(); ++i) shapes[i] = &in[i]->shape();
  broadcast_shapes(op, std::span<const Dims* const>(shapes.data(), in.size()), shape);
}

void run_elementwise(TermRef op, Operands in, Array& out) {
  switch (op->info().group) {
    case ops::OpGroup::Unary:
      return run_unary(op, in, out);
    case ops::OpGroup::Binary:
      return run_binary(op, in, out);
    default:
      return run_where(in, out);
  }
}

}  // namespace eqsat::backend::detail
