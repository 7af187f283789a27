#include "build.hpp"

#include "tensor_proto.hpp"

#include <fmt/format.h>

namespace eqsat::onnx {

using ops::AttrKey;
using ops::OpKind;

ops::TermRef cast_to(const NodeContext& ctx, ops::TermRef t, ops::DType dtype) {
  if (t->tensor_type().dtype == dtype) return t;
  return ctx.make(OpKind::Cast, {{AttrKey::Dtype, dtype}}, {t});
}

ops::TermRef fold_inputs(const NodeContext& ctx, ops::OpKind kind) {
  ops::TermRef acc = ctx.input(0);
  for (std::size_t i = 1; i < ctx.num_inputs(); ++i) acc = ctx.make(kind, {acc, ctx.input(i)});
  return acc;
}

ops::DType dtype_attr(const NodeContext& ctx, std::int64_t elem) {
  const auto d = dtype_of_elem(static_cast<int>(elem));
  if (!d)
    ctx.refuse(fmt::format("the dtype {} (eqsat has bool, int32, int64, float, double)",
                           elem_type_name(static_cast<int>(elem))));
  return *d;
}

ops::TermRef move_axis(const NodeContext& ctx, ops::TermRef t, int from, int to) {
  if (from == to) return t;
  const int rank = t->tensor_type().rank();
  ops::IntList perm;
  for (int i = 0; i < rank; ++i)
    if (i != from) perm.push_back(i);
  perm.insert(perm.begin() + to, from);
  return ctx.make(OpKind::Transpose, {{AttrKey::Perm, perm}}, {t});
}

ops::TermRef reshape(const NodeContext& ctx, ops::TermRef t, const ops::Dims& shape) {
  if (t->tensor_type().dims == shape) return t;
  return ctx.make(OpKind::Reshape, {{AttrKey::Shape, ops::IntList(shape)}}, {t});
}

ops::TermRef slice(const NodeContext& ctx, ops::TermRef t, int axis, std::int64_t start,
                   std::optional<std::int64_t> stop, std::int64_t step) {
  ops::Attrs attrs{
      {AttrKey::Axis, std::int64_t{axis}}, {AttrKey::Start, start}, {AttrKey::Step, step}};
  if (stop) attrs.set(AttrKey::Stop, *stop);
  return ctx.make(OpKind::Slice, std::move(attrs), {t});
}

ops::TermRef int_constant(ops::DType dtype, const ops::Dims& dims,
                          const std::vector<std::int64_t>& values) {
  ops::Array a(dtype, dims);
  ops::visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::size_t i = 0; i < values.size(); ++i) a.data<T>()[i] = static_cast<T>(values[i]);
  });
  return ops::Term::constant(a);
}

ops::TermRef reduce(const NodeContext& ctx, ops::OpKind kind, ops::TermRef t,
                    const std::vector<std::int64_t>& axes, bool keepdims) {
  ops::Attrs attrs;
  if (!axes.empty()) attrs.set(AttrKey::Axis, ops::IntList(axes));
  if (keepdims) attrs.set(AttrKey::Keepdims, true);
  return ctx.make(kind, std::move(attrs), {t});
}

}  // namespace eqsat::onnx
