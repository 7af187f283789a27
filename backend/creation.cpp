// Creation kernels: zeros, ones, full, zeros_like, ones_like, arange.
#include "kernel_groups.hpp"
#include "kernel_support.hpp"
#include "thread_pool.hpp"

#include <algorithm>

namespace eqsat::backend::detail {

namespace {

using ops::AttrKey;
using ops::OpKind;

// out[i] = value(i) for every element, split between threads: a fill
// is as bound by memory as a copy, which runs on both cores.
template <class T, class F>
void fill_split(Array& out, const F& value) {
  T* p = out.data<T>();
  parallel_for(out.size(), kCopyGrain, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) p[i] = value(i);
  });
}

void fill(Array& out, double value) {
  ops::visit_dtype(out.dtype(), [&]<class T>(std::type_identity<T>) {
    fill_split<T>(out, [v = static_cast<T>(value)](std::int64_t) { return v; });
  });
}

// The creation kernels, one entry per creation op: `shape` gives the
// result's shape, `run` fills it.
template <OpKind K>
struct CreationKernel;

// zeros, ones, full: the shape is the :shape attribute.
struct AttrShape {
  static void shape(TermRef op, Operands, Dims& shape) {
    const auto& s = op->attrs().get<ops::IntList>(AttrKey::Shape);
    shape.assign(s.begin(), s.end());
  }
};
// zeros_like, ones_like: the operand's shape.
struct OperandShape {
  static void shape(TermRef, Operands in, Dims& shape) { shape = in[0]->shape(); }
};
template <int Value>
struct FillWith {
  static void run(TermRef, Operands, Array& out) { fill(out, Value); }
};

template <>
struct CreationKernel<OpKind::Zeros> : AttrShape, FillWith<0> {};
template <>
struct CreationKernel<OpKind::Ones> : AttrShape, FillWith<1> {};
template <>
struct CreationKernel<OpKind::ZerosLike> : OperandShape, FillWith<0> {};
template <>
struct CreationKernel<OpKind::OnesLike> : OperandShape, FillWith<1> {};

template <>
struct CreationKernel<OpKind::Full> : AttrShape {
  static void run(TermRef, Operands in, Array& out) {
    // Converted as an array so that e.g. a NaN fill of an integer array
    // follows the same rule as cast.
    const Array v = converted(*in[0], out.dtype());
    ops::visit_dtype(out.dtype(), [&]<class T>(std::type_identity<T>) {
      fill_split<T>(out, [x = v.data<T>()[0]](std::int64_t) { return x; });
    });
  }
};

template <>
struct CreationKernel<OpKind::Arange> {
  static void shape(TermRef op, Operands in, Dims& shape) {
    const auto exact = in[0]->integer_element(0);
    if (!exact) fail(op, fmt::format("length must be an integer, got {}", in[0]->element(0)));
    const std::int64_t n = *exact;
    if (n < 0) fail(op, fmt::format("length must be >= 0, got {}", n));
    shape.assign(1, n);
  }
  static void run(TermRef, Operands, Array& out) {
    ops::visit_dtype(out.dtype(), [&]<class T>(std::type_identity<T>) {
      fill_split<T>(out, [](std::int64_t i) { return static_cast<T>(i); });
    });
  }
};

}  // namespace

void creation_shape(TermRef op, Operands in, Dims& shape) {
  with_family_kernel<CreationKernel, ops::OpGroup::Creation>(
      op->kind(), [&]<class K>(K) { K::shape(op, in, shape); });
}

void run_creation(TermRef op, Operands in, Array& out) {
  with_family_kernel<CreationKernel, ops::OpGroup::Creation>(
      op->kind(), [&]<class K>(K) { K::run(op, in, out); });
}

}  // namespace eqsat::backend::detail
