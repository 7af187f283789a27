// Elementwise kernels: unary ops, cast, binary ops and where, with NumPy
// broadcasting and promotion. The dtype switch happens once per kernel
// call; inner loops run over contiguous runs as Eigen array maps (or plain
// loops the compiler vectorizes), with transcendentals vectorized.
#include "block_reduce.hpp"
#include "eigen_maps.hpp"
#include "elementwise_math.hpp"
#include "kernel_groups.hpp"
#include "kernel_support.hpp"
#include "scalar_body.hpp"
#include "support/internal_error.hpp"
#include "thread_pool.hpp"
#include "vector_loops.hpp"
#include "vector_math.hpp"

#include <Eigen/Core>

#include <cmath>
#include <optional>
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
  throw InternalError(
      fmt::format("no elementwise kernel for {} on {}", ops::op_name(kind), ops::dtype_name(d)));
}

// UnaryMath<K>'s block for the unary op `kind` on T.
template <class T>
void unary_block(OpKind kind, const T* x, T* y, std::int64_t n) {
  ops::dispatch_op(kind, [&]<OpKind K>(std::integral_constant<OpKind, K>) {
    if constexpr (ops::group_of(K) == ops::OpGroup::Unary) {
      using M = UnaryMath<K>;
      static_assert(sizeof(M) > 0, "every unary op has its UnaryMath");
      if constexpr (requires { M::template block<T>(x, y, n); } && has_kernel<M, T>())
        return M::template block<T>(x, y, n);
    }
    no_kernel(kind, ops::dtype_of<T>());
  });
}

void run_unary(TermRef op, Operands in, Array& out) {
  const OpKind kind = op->kind();
  if (kind == OpKind::Cast) {
    convert_into(*in[0], out);
    return;
  }
  Array storage;
  const Array& x = as_dtype(*in[0], out.dtype(), storage);
  ops::visit_dtype(out.dtype(), [&]<class T>(std::type_identity<T>) {
    unary_block<T>(kind, x.data<T>(), out.data<T>(), x.size());
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

// Calls f(M) with M = BinaryMath<K> for the binary op `kind`, when M has a
// kernel for T; no kernel is an internal error.
template <class T, class F>
void with_binary_math(OpKind kind, F&& f) {
  ops::dispatch_op(kind, [&]<OpKind K>(std::integral_constant<OpKind, K>) {
    if constexpr (ops::group_of(K) == ops::OpGroup::Binary) {
      using M = BinaryMath<K>;
      static_assert(sizeof(M) > 0, "every binary op has its BinaryMath");
      if constexpr (has_kernel<M, T>()) return f(M{});
    }
    no_kernel(kind, ops::dtype_of<T>());
  });
}

template <class M, class T>
using BinaryResult = decltype(M::scalar(T{}, T{}));

template <class M, class T>
concept HasArrayForm = !std::is_same_v<T, bool> && requires(const T* p) {
  M::array(In<T>(p, 1), In<T>(p, 1));
};

// An op computed a block at a time (logaddexp: its exp and log1p are the
// vector functions'), a constant operand read once.
template <class M, class T>
concept HasBlockForm = requires(const T* p, T* o) {
  M::block(p, true, p, true, o, 1);
};

void run_binary(TermRef op, Operands in, Array& out) {
  const OpKind kind = op->kind();
  DType compute = out.dtype();
  if (ops::is_comparison(kind)) compute = ops::promote(in[0]->dtype(), in[1]->dtype());
  if (ops::is_logical(kind)) compute = DType::Bool;
  Array sa, sb;
  const Array& a = as_dtype(*in[0], compute, sa);
  const Array& b = as_dtype(*in[1], compute, sb);
  const Broadcast<2> plan(out.shape(), {&a.shape(), &b.shape()});
  ops::visit_dtype(compute, [&]<class T>(std::type_identity<T>) {
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (kind == OpKind::Pow && out.size() > 0 &&
          std::any_of(pb, pb + b.size(), [](T e) { return e < 0; }))
        fail(op, "integers to negative integer powers are not allowed");
    }
    with_binary_math<T>(kind, [&]<class M>(M) {
      using R = BinaryResult<M, T>;
      if constexpr (HasArrayForm<M, T>) {
        binary_eigen(plan, pa, pb, out.data<R>(),
                     [](const auto& x, const auto& y) { return M::array(x, y); });
      } else if constexpr (HasBlockForm<M, T>) {
        R* po = out.data<R>();
        plan.for_each_run([&](const auto& off, std::int64_t at, std::int64_t n, const auto& inner) {
          M::block(pa + off[0], !inner[0], pb + off[1], !inner[1], po + at, n);
        });
      } else {
        binary_scalar(plan, pa, pb, out.data<R>(), [](T x, T y) { return M::scalar(x, y); });
      }
    });
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

// out = a (op) b over n elements; a constant operand is read once. Float
// ops run the loops of the vector level in use (vector_loops.hpp).
template <class T>
void binary_block(OpKind kind, const T* a, bool a_const, const T* b, bool b_const, T* out,
                  std::int64_t n) {
  with_binary_math<T>(kind, [&]<class M>(M) {
    if constexpr (!std::is_same_v<BinaryResult<M, T>, T>) {
      no_kernel(kind, ops::dtype_of<T>());
    } else if constexpr (HasArrayForm<M, T> && kIsFloat<T>) {
      binary_loop<M>(a, a_const, b, b_const, out, n);
    } else if constexpr (HasArrayForm<M, T>) {
      Out<T> o(out, n);
      auto f = [](const auto& x, const auto& y) { return M::array(x, y); };
      if (!a_const && !b_const)
        o = f(In<T>(a, n), In<T>(b, n));
      else if (!a_const)
        o = f(In<T>(a, n), Vec<T>::Constant(n, *b));
      else if (!b_const)
        o = f(Vec<T>::Constant(n, *a), In<T>(b, n));
      else
        o.setConstant(f(In<T>(a, 1), In<T>(b, 1)).coeff(0));
    } else if constexpr (HasBlockForm<M, T>) {
      M::block(a, a_const, b, b_const, out, n);
    } else {
      for (std::int64_t i = 0; i < n; ++i)
        out[i] = M::scalar(a[a_const ? 0 : i], b[b_const ? 0 : i]);
    }
  });
}

// Where each leaf's elements for one block of the result are.
template <class T>
struct LeafAt {
  const T* p;
  bool is_const;
};

// Comparison or logical op M as 1 or 0 of T, for the vector loops.
template <class M, class T>
struct ZeroOne {
  static T scalar(T a, T b) { return M::scalar(a, b) ? T(1) : T(0); }
};

// Applies a comparison or logical op to values held as 0 and 1 of T (the
// compute dtype of a fused expression): the booleans inside one. In the
// loops of the vector level in use: compiled for the portable build's
// level, one element at a time, 4 x 10^6 f64 compared in 5.6 ms (1.25 now).
template <class T>
void mask_block(OpKind kind, LeafAt<T> a, LeafAt<T> b, T* out, std::int64_t m) {
  with_binary_math<T>(kind, [&]<class M>(M) {
    binary_loop<ZeroOne<M, T>>(a.p, a.is_const, b.p, b.is_const, out, m);
  });
}

// A fused group's registers: kMaxFusedOps blocks, each padded by 128 bytes.
// Unpadded, register k + 1 (or k + 2 in f32) lay exactly 4096 bytes past
// register k, so an op's loads and stores had the same address bits below
// 4 KiB and the core took every store as one a later load might depend on
// ("4K aliasing"; bench/README.md, "Speed round 10").
template <class T>
inline constexpr std::int64_t kRegisterLength = kBlock + 128 / static_cast<std::int64_t>(sizeof(T));
template <class T>
using Registers = T[kMaxFusedOps][kRegisterLength<T>];

// Evaluates `program` on block [start, start + m) of row r of the result
// (rows of `layout.row_len` elements) into dst. A bool leaf of a program
// computing in another dtype is read as 0 and 1 of T.
template <class T>
void fused_block(std::span<const FusedOp> program, Operands leaves, const FusedLayout& layout,
                 std::int64_t r, std::int64_t start, std::int64_t m, T* dst,
                 Registers<T>& registers) {
  alignas(64) T converted[3][kRegisterLength<T>];
  auto source = [&](const FusedSource& src, int slot) -> LeafAt<T> {
    if (!src.leaf) return {registers[program[src.index].reg], false};
    std::int64_t offset = 0;
    bool is_const = false;
    switch (layout.kinds[src.index]) {
      case LeafKind::Full:
        offset = r * layout.row_len + start;
        if (!layout.windows.empty() && layout.windows[src.index].stride > 0) {
          const LeafWindow& w = layout.windows[src.index];
          offset = r * w.stride + w.start + start;
        }
        break;
      case LeafKind::Scalar:
        is_const = true;
        break;
      case LeafKind::RowConst:
        offset = r;
        is_const = true;
        break;
      case LeafKind::RowRepeat:
        offset = start;
        break;
    }
    const Array& leaf = *leaves[src.index];
    if constexpr (!std::is_same_v<T, bool>) {
      if (leaf.dtype() == DType::Bool) {
        const bool* p = leaf.data<bool>() + offset;
        for (std::int64_t i = 0; i < (is_const ? 1 : m); ++i) converted[slot][i] = T(p[i]);
        return {converted[slot], is_const};
      }
    }
    return {leaf.data<T>() + offset, is_const};
  };
  const std::size_t last = program.size() - 1;
  for (std::size_t k = 0; k < program.size(); ++k) {
    const FusedOp& op = program[k];
    if (op.by_partner) continue;
    T* out = k == last ? dst : registers[op.reg];
    LeafAt<T> a = source(op.src[0], 0);
    if constexpr (kIsFloat<T>) {
      if (op.partner >= 0) {
        const std::size_t j = static_cast<std::size_t>(op.partner);
        T* other = j == last ? dst : registers[program[j].reg];
        T* s = op.kind == OpKind::Sin ? out : other;
        T* c = op.kind == OpKind::Sin ? other : out;
        const T* x = a.p;
        if (a.is_const) {
          std::fill_n(converted[1], m, *a.p);
          x = converted[1];
        }
        vmath::sincos(x, s, c, m);
        continue;
      }
    }
    if (op.kind == OpKind::Where) {
      const LeafAt<T> x = source(op.src[1], 1), y = source(op.src[2], 2);
      if (a.is_const) {  // one branch, whole
        const LeafAt<T> taken = *a.p != T(0) ? x : y;
        if (taken.is_const)
          std::fill_n(out, m, *taken.p);
        else
          std::copy_n(taken.p, m, out);
      } else {
        select_loop(a.p, x.p, x.is_const, y.p, y.is_const, out, m);
      }
    } else if (op.arity == 1) {
      if (a.is_const) {
        std::fill_n(out, m, *a.p);
        a.p = out;
      }
      unary_block<T>(op.kind, a.p, out, m);
    } else {
      const LeafAt<T> b = source(op.src[1], 1);
      if (carries_booleans(op.kind))
        mask_block<T>(op.kind, a, b, out, m);
      else
        binary_block<T>(op.kind, a.p, a.is_const, b.p, b.is_const, out, m);
    }
  }
}

constexpr std::int64_t kTranscendentalOps = 24;

}  // namespace

// The work of one element of `program` in simple ops: a transcendental
// (the catalogue's Transc and Transc2 classes) counts as kTranscendentalOps,
// a division, square root or select (`where`) as 4, so a group of a few transcendentals
// (an LSTM cell's three sigmoids and a tanh on 16 x 128) is split between
// threads where the same number of additions would not be. A vector
// `tanh` or `exp` (SLEEF's u10) costs many additions: at 8, neither half
// of an LSTM cell on 16 x 128 reached two parts, and the second thread
// waited through both (bench/README.md, "Speed round 6").
std::int64_t fused_work(std::span<const FusedOp> program) {
  std::int64_t work = 0;
  for (const FusedOp& op : program) {
    switch (ops::cost_class(op.kind)) {
      case ops::CostClass::Transc:
        work += kTranscendentalOps;
        break;
      case ops::CostClass::Transc2:
        work += 2 * kTranscendentalOps + 1;
        break;
      case ops::CostClass::Flop4:
      case ops::CostClass::Select:
        work += 4;
        break;
      case ops::CostClass::Free:
      case ops::CostClass::Move:
      case ops::CostClass::Flop:
      case ops::CostClass::Gemm:
      case ops::CostClass::Loop:
      case ops::CostClass::Invoke:
      case ops::CostClass::Never:
        work += 1;
        break;
    }
  }
  return std::max<std::int64_t>(work, 1);
}

namespace {

// Runs f(r, start, m) for every block of every row, on all threads when
// there are kParallelElements simple ops of work or more (fused_work).
template <class F>
void for_each_block(const FusedLayout& layout, std::int64_t ops, const F& f) {
  const std::int64_t len = layout.row_len;
  const std::int64_t blocks = (len + kBlock - 1) / kBlock;
  const std::int64_t grain =
      std::max<std::int64_t>(1, kParallelElements / ops / std::min(len, kBlock));
  parallel_for(layout.rows * blocks, grain, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) {
      const std::int64_t start = (i % blocks) * kBlock;
      f(i / blocks, start, std::min(kBlock, len - start));
    }
  });
}

// A bool result of a program computing in T is its last value != 0.
template <class T>
void run_fused_typed(std::span<const FusedOp> program, Operands leaves, const FusedLayout& layout,
                     Array& out) {
  const bool same = out.dtype() == ops::dtype_of<T>();
  for_each_block(layout, fused_work(program),
                 [&](std::int64_t r, std::int64_t start, std::int64_t m) {
                   alignas(64) Registers<T> registers;
                   const std::int64_t at = r * layout.row_len + start;
                   if (same)
                     return fused_block<T>(program, leaves, layout, r, start, m, out.data<T>() + at,
                                           registers);
                   T* last = registers[kMaxFusedOps - 1];  // never an intermediate's register
                   fused_block<T>(program, leaves, layout, r, start, m, last, registers);
                   nonzero_loop(last, out.data<bool>() + at, m);
                 });
}

// A leaf's shape as a fused group sees it: its own, with a window's width
// in place of its last axis. A view, so that planning a group allocates
// nothing (an LSTM step plans its cell's groups at every step).
struct SeenShape {
  const Dims& dims;
  std::int64_t last;  // the last axis's length as seen
  std::size_t size() const { return dims.size(); }
  std::int64_t operator[](std::size_t i) const { return i + 1 == dims.size() ? last : dims[i]; }
};

// The product of out[from..].
std::int64_t elements_from(const Dims& out, std::size_t from) {
  std::int64_t n = 1;
  for (std::size_t i = from; i < out.size(); ++i) n *= out[i];
  return n;
}

// How a leaf of `shape` (right-aligned) meets the result's `out`; sets
// `len` to the row length it implies (RowConst, RowRepeat).
std::optional<LeafKind> leaf_kind(const SeenShape& shape, const Dims& out, std::int64_t& len) {
  const int rank = static_cast<int>(out.size());
  const int pad = rank - static_cast<int>(shape.size());
  auto dim = [&](int i) { return i < pad ? std::int64_t{1} : shape[i - pad]; };
  int first = rank, last = -1;
  bool full = true, single = true;
  for (int i = 0; i < rank; ++i) {
    if (dim(i) != out[i]) full = false;
    if (dim(i) != 1) {
      first = std::min(first, i);
      last = i;
    }
  }
  for (std::size_t i = 0; i < shape.size(); ++i) single = single && shape[i] == 1;
  if (single) return LeafKind::Scalar;
  if (full) return LeafKind::Full;
  auto equal = [&](int from, int to) {
    for (int i = from; i < to; ++i)
      if (dim(i) != out[i]) return false;
    return true;
  };
  if (equal(0, last + 1)) {
    len = elements_from(out, static_cast<std::size_t>(last + 1));
    return LeafKind::RowConst;
  }
  if (equal(first, rank)) {
    len = elements_from(out, static_cast<std::size_t>(first));
    return LeafKind::RowRepeat;
  }
  return std::nullopt;
}

}  // namespace

template <class T>
T apply_unary(OpKind kind, T x) {
  T y;
  unary_block<T>(kind, &x, &y, 1);
  return y;
}

template <class T>
T apply_binary(OpKind kind, T a, T b) {
  T y{};
  with_binary_math<T>(kind, [&]<class M>(M) {
    if constexpr (std::is_same_v<BinaryResult<M, T>, T>)
      y = M::scalar(a, b);
    else
      no_kernel(kind, ops::dtype_of<T>());
  });
  return y;
}

template float apply_unary<float>(OpKind, float);
template double apply_unary<double>(OpKind, double);
template float apply_binary<float>(OpKind, float, float);
template double apply_binary<double>(OpKind, double, double);

bool carries_booleans(OpKind kind) {
  return ops::is_comparison(kind) || ops::is_logical(kind);
}

std::optional<DType> fused_compute_dtype(OpKind kind, std::span<const DType> operands,
                                         DType result) {
  const auto operands_are = [&](std::size_t from, DType want) {
    return std::all_of(operands.begin() + static_cast<std::ptrdiff_t>(from), operands.end(),
                       [&](DType d) { return d == want; });
  };
  const DType first = operands.empty() ? result : operands[0];
  const bool numeric =
      first == DType::F32 || first == DType::F64 || first == DType::I32 || first == DType::I64;
  if (fusable(kind, result) && operands_are(0, result)) return result;
  if (carries_booleans(kind) && (numeric || first == DType::Bool) && operands_are(0, first))
    return first;
  if (kind == OpKind::Where && first == DType::Bool && operands_are(1, result) &&
      (result == DType::Bool || fusable(OpKind::Add, result)))
    return result;
  return std::nullopt;
}

bool fused_reduction(OpKind kind, std::span<const std::int64_t> axes, std::size_t rank,
                     DType operand, DType result) {
  if (!block_reducible(kind) || (result != DType::F32 && result != DType::F64) || operand != result)
    return false;
  return !axes.empty() && axes.back() == static_cast<std::int64_t>(rank) - 1 &&
         axes.back() - axes.front() + 1 == static_cast<std::int64_t>(axes.size());
}

bool fusable(OpKind kind, DType dtype) {
  if (!ops::is_elementwise(kind)) return false;
  switch (ops::fusion(kind)) {
    case ops::Fusion::FuseFI:
      if (dtype == DType::I32 || dtype == DType::I64) return true;
      [[fallthrough]];
    case ops::Fusion::FuseF:
      return dtype == DType::F32 || dtype == DType::F64;
    case ops::Fusion::NoFuse:
      return false;
  }
  return false;
}

bool plan_fused(Operands leaves, Dims& shape, FusedLayout& layout, std::int64_t row_len,
                std::span<const LeafWindow> windows) {
  // The shape each leaf is seen with: a window's width replaces its last axis.
  bool windowed = false;
  const auto seen = [&](std::size_t k) {
    const Dims& d = leaves[k]->shape();
    const bool window = !windows.empty() && windows[k].stride != 0;
    return SeenShape{d, d.empty() ? 0 : window ? windows[k].width : d.back()};
  };
  std::size_t rank = 0;
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    const Dims& d = leaves[k]->shape();
    rank = std::max(rank, d.size());
    if (windows.empty() || windows[k].stride == 0) continue;
    if (d.empty() || d.back() != windows[k].stride) return false;
    windowed = true;
  }
  shape.assign(rank, 1);
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    const SeenShape d = seen(k);
    for (std::size_t i = 0; i < d.size(); ++i) {
      std::int64_t& o = shape[rank - d.size() + i];
      if (d[i] == o || d[i] == 1) continue;
      if (o != 1) return false;  // does not broadcast: op by op reports it
      o = d[i];
    }
  }
  const std::int64_t total = num_elements(shape);
  if (total == 0) return false;
  layout.kinds.clear();
  std::int64_t len = row_len;
  if (windowed) {
    if (row_len > 0 && row_len != shape.back()) return false;
    len = shape.back();
  }
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    std::int64_t leaf_len = 0;
    const std::optional<LeafKind> kind = leaf_kind(seen(k), shape, leaf_len);
    if (!kind) return false;
    if (!windows.empty() && windows[k].stride > 0 && *kind != LeafKind::Full) return false;
    if (leaf_len > 0) {
      if (len > 0 && len != leaf_len) return false;
      len = leaf_len;
    }
    layout.kinds.push_back(*kind);
  }
  // Rows much shorter than a block cost more per element than op by op.
  if (row_len == 0 && len > 0 && len < kShortRow) return false;
  layout.row_len = len > 0 ? len : total;
  layout.rows = total / layout.row_len;
  layout.windows.assign(windows.begin(), windows.end());
  return true;
}

void run_fused(std::span<const FusedOp> program, Operands leaves, const FusedLayout& layout,
               DType compute, Array& out) {
  switch (compute) {
    case DType::Bool:
      return run_fused_typed<bool>(program, leaves, layout, out);
    case DType::F32:
      return run_fused_typed<float>(program, leaves, layout, out);
    case DType::I32:
      return run_fused_typed<std::int32_t>(program, leaves, layout, out);
    case DType::I64:
      return run_fused_typed<std::int64_t>(program, leaves, layout, out);
    case DType::F64:
      return run_fused_typed<double>(program, leaves, layout, out);
  }
}

void run_fused_range(std::span<const FusedOp> program, Operands leaves, const FusedLayout& layout,
                     DType compute, Array& out, std::int64_t first, std::int64_t count) {
  auto run = [&]<class T>(std::type_identity<T>) {
    alignas(64) Registers<T> registers;
    T* dst = out.data<T>();
    for (std::int64_t e = first, end = first + count; e < end;) {
      const std::int64_t r = e / layout.row_len, start = e % layout.row_len;
      const std::int64_t m = std::min({kBlock, layout.row_len - start, end - e});
      fused_block<T>(program, leaves, layout, r, start, m, dst + e, registers);
      e += m;
    }
  };
  if (compute == DType::F32)
    run(std::type_identity<float>());
  else
    run(std::type_identity<double>());
}

void run_fused_reduction(ops::OpKind kind, std::span<const FusedOp> program, Operands leaves,
                         const FusedLayout& layout, Array& out) {
  auto run = [&]<class T>(std::type_identity<T>) {
    reduce_blocked<T>(kind, layout.rows, layout.row_len, out.data<T>(),
                      [&](std::int64_t r, std::int64_t start, std::int64_t m, T* scratch) {
                        alignas(64) Registers<T> registers;
                        fused_block<T>(program, leaves, layout, r, start, m, scratch, registers);
                        return static_cast<const T*>(scratch);
                      });
  };
  if (out.dtype() == DType::F32)
    run(std::type_identity<float>());
  else
    run(std::type_identity<double>());
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
  const ops::OpGroup group = op->info().group;
  if (group == ops::OpGroup::Unary) return run_unary(op, in, out);
  if (group == ops::OpGroup::Binary) return run_binary(op, in, out);
  EQSAT_ASSERT(group == ops::OpGroup::Select) << "no elementwise kernel for " << op->info().name;
  run_where(in, out);
}

}  // namespace eqsat::backend::detail
