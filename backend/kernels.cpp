#include "kernels.hpp"

#include "kernel_groups.hpp"
#include "kernel_support.hpp"
#include "support/internal_error.hpp"

#include <array>
#include <stdexcept>

namespace eqsat::backend {

namespace {

using ops::OpGroup;
using ops::OpKind;

// Which kinds have a kernel, derived from the catalogue's groups.
constexpr bool kernel_for(OpKind kind, OpGroup group) {
  return group != OpGroup::Leaf && group != OpGroup::Control && group != OpGroup::Gradient &&
         kind != OpKind::Grad;
}

constexpr std::array<bool, ops::kNumOps> kHasKernel = {
#define EQSAT_HAS_KERNEL(id, name, group, ...) kernel_for(OpKind::id, OpGroup::group),
    EQSAT_OPS(EQSAT_HAS_KERNEL)
#undef EQSAT_HAS_KERNEL
};

[[noreturn]] void no_kernel(ops::TermRef op) {
  EQSAT_ASSERT(false) << op->info().name << " has no kernel";
}

}  // namespace

bool has_kernel(OpKind kind) {
  return kHasKernel[static_cast<int>(kind)];
}

void result_shape(ops::TermRef op, Operands in, ops::Dims& shape) {
  switch (op->info().group) {
    case OpGroup::Unary:
    case OpGroup::Binary:
    case OpGroup::Select:
      return detail::elementwise_shape(op, in, shape);
    case OpGroup::Reduction:
      return detail::reduction_shape(op, in, shape);
    case OpGroup::Softmax:
      shape = in[0]->shape();
      return;
    case OpGroup::LinAlg:
      return detail::dot_shape(op, in, shape);
    case OpGroup::Shape:
      return detail::shape_op_shape(op, in, shape);
    case OpGroup::Indexing:
      return detail::indexing_shape(op, in, shape);
    case OpGroup::Creation:
      return detail::creation_shape(op, in, shape);
    case OpGroup::Leaf:
    case OpGroup::Control:
    case OpGroup::Gradient:
      no_kernel(op);
  }
}

void run_kernel(ops::TermRef op, Operands in, ops::Array& out) {
  switch (op->info().group) {
    case OpGroup::Unary:
    case OpGroup::Binary:
    case OpGroup::Select:
      return detail::run_elementwise(op, in, out);
    case OpGroup::Reduction:
      return detail::run_reduction(op, in, out);
    case OpGroup::Softmax:
      return detail::run_softmax(op, in, out);
    case OpGroup::LinAlg:
      return detail::run_dot(op, in, out);
    case OpGroup::Shape:
      return detail::run_shape_op(op, in, out);
    case OpGroup::Indexing:
      return detail::run_indexing(op, in, out);
    case OpGroup::Creation:
      return detail::run_creation(op, in, out);
    case OpGroup::Leaf:
    case OpGroup::Control:
    case OpGroup::Gradient:
      no_kernel(op);
  }
}

bool may_write_in_place(ops::TermRef op, std::size_t i, const ops::Array& operand,
                        const ops::DType out_dtype, const ops::Dims& out_shape) {
  // Equal dtypes: elementwise kernels read element k before writing it (a
  // cast between equal dtypes is a view and never gets here).
  if (operand.dtype() != out_dtype || operand.shape() != out_shape) return false;
  if (ops::updates_first(op->kind())) return i == 0;
  return ops::is_elementwise(op->kind());
}

bool is_view(ops::TermRef op) {
  if (ops::keeps_order(op->kind())) return true;
  return op->kind() == OpKind::Cast &&
         op->tensor_type().dtype == op->operand(0)->tensor_type().dtype;
}

}  // namespace eqsat::backend
