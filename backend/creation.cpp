// Creation kernels: zeros, ones, full, zeros_like, ones_like, arange.
#include "kernel_groups.hpp"
#include "kernel_support.hpp"

#include <algorithm>

namespace eqsat::backend::detail {

namespace {

using ops::AttrKey;
using ops::OpKind;

void fill(Array& out, double value) {
  ops::visit_dtype(out.dtype(), [&]<class T>(std::type_identity<T>) {
    std::fill_n(out.data<T>(), out.size(), static_cast<T>(value));
  });
}

}  // namespace

void creation_shape(TermRef op, Operands in, Dims& shape) {
  switch (op->kind()) {
    case OpKind::Zeros:
    case OpKind::Ones:
    case OpKind::Full: {
      const auto& s = op->attrs().get<ops::IntList>(AttrKey::Shape);
      shape.assign(s.begin(), s.end());
      return;
    }
    case OpKind::Arange: {
      const auto exact = in[0]->integer_element(0);
      if (!exact) fail(op, fmt::format("length must be an integer, got {}", in[0]->element(0)));
      const std::int64_t n = *exact;
      if (n < 0) fail(op, fmt::format("length must be >= 0, got {}", n));
      shape.assign(1, n);
      return;
    }
    default:  // zeros_like, ones_like
      shape = in[0]->shape();
      return;
  }
}

void run_creation(TermRef op, Operands in, Array& out) {
  switch (op->kind()) {
    case OpKind::Zeros:
    case OpKind::ZerosLike:
      return fill(out, 0);
    case OpKind::Ones:
    case OpKind::OnesLike:
      return fill(out, 1);
    case OpKind::Full: {
      // Converted as an array so that e.g. a NaN fill of an integer array
      // follows the same rule as cast.
      const Array v = converted(*in[0], out.dtype());
      ops::visit_dtype(out.dtype(), [&]<class T>(std::type_identity<T>) {
        std::fill_n(out.data<T>(), out.size(), v.data<T>()[0]);
      });
      return;
    }
    default:  // arange
      ops::visit_dtype(out.dtype(), [&]<class T>(std::type_identity<T>) {
        T* p = out.data<T>();
        for (std::int64_t i = 0; i < out.size(); ++i) p[i] = static_cast<T>(i);
      });
      return;
  }
}

}  // namespace eqsat::backend::detail
