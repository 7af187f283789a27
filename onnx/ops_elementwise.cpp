// ONNX's elementwise ops: math, comparisons, logic, activations, casts.
// Each activation is spelled in our ops as ONNX's definition writes it;
// integer Div (truncating) is refused for int64, where going through
// float64 would round.
#include "build.hpp"
#include "op_table.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <optional>

namespace eqsat::onnx {

namespace {

using ops::AttrKey;
using ops::DType;
using ops::OpKind;
using ops::TermRef;
using Out = std::vector<TermRef>;

template <OpKind K>
Out unary(NodeContext& c) {
  c.only_attrs({});
  return {c.make(K, {c.input(0)})};
}

// A binary op whose result keeps the operands' dtype (ONNX requires them
// equal); comparisons give bool.
template <OpKind K>
Out binary(NodeContext& c) {
  c.only_attrs({});
  return {c.make(K, {c.input(0), c.input(1)})};
}

template <OpKind K>
Out variadic(NodeContext& c) {
  c.only_attrs({});
  return {fold_inputs(c, K)};
}

Out mean(NodeContext& c) {
  c.only_attrs({});
  TermRef sum = fold_inputs(c, OpKind::Add);
  return {c.make(OpKind::Div,
                 {sum, NodeContext::scalar_like(sum, static_cast<double>(c.num_inputs()))})};
}

// int64 Div of operands known when the model is read (a shape computed by
// the model), computed exactly: truncating, as ONNX's integer division.
std::optional<TermRef> int_quotient(NodeContext& c) {
  const ops::Array *a = c.constant(0), *b = c.constant(1);
  if (!a || !b) return std::nullopt;
  ops::Dims dims;
  try {
    dims = ops::broadcast_dims(a->shape(), b->shape());
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (a->size() != 1 && b->size() != 1 && a->shape() != b->shape()) return std::nullopt;
  ops::Array q(DType::I64, dims);
  for (std::int64_t i = 0; i < q.size(); ++i) {
    const auto x = a->data<std::int64_t>()[a->size() == 1 ? 0 : i];
    const auto y = b->data<std::int64_t>()[b->size() == 1 ? 0 : i];
    if (y == 0 || (y == -1 && x == std::numeric_limits<std::int64_t>::min()))
      c.refuse("an integer division by zero or overflowing");
    q.data<std::int64_t>()[i] = x / y;
  }
  return ops::Term::constant(q);
}

Out div(NodeContext& c) {
  c.only_attrs({});
  TermRef a = c.input(0), b = c.input(1);
  const DType d = a->tensor_type().dtype;
  if (d == DType::I64) {
    if (auto q = int_quotient(c)) return {*q};
    c.refuse(
        "integer division of int64 (eqsat divides integers in float64, which rounds past 2^53)");
  }
  TermRef q = c.make(OpKind::Div, {a, b});
  // float64 quotients of int32 operands truncate to the exact integer quotient.
  return {cast_to(c, q, d)};
}

Out pow(NodeContext& c) {
  c.only_attrs({});
  TermRef x = c.input(0), y = c.input(1);
  if (!ops::is_float(x->tensor_type().dtype)) c.refuse("Pow of an integer base");
  if (!ops::is_float(y->tensor_type().dtype)) y = cast_to(c, y, x->tensor_type().dtype);
  return {cast_to(c, c.make(OpKind::Pow, {x, y}), x->tensor_type().dtype)};
}

Out neq_bool(NodeContext& c) {  // Xor
  c.only_attrs({});
  return {c.make(OpKind::Ne, {c.input(0), c.input(1)})};
}

Out identity(NodeContext& c) {
  return {c.input(0)};
}

Out cast(NodeContext& c) {
  c.only_attrs({"to", "saturate"});
  return {cast_to(c, c.input(0), dtype_attr(c, c.attr_int("to", 1)))};
}

Out cast_like(NodeContext& c) {
  c.only_attrs({});
  return {cast_to(c, c.input(0), c.type(1).dtype)};
}

Out relu(NodeContext& c) {
  c.only_attrs({});
  TermRef x = c.input(0);
  return {c.make(OpKind::Maximum, {x, NodeContext::scalar_like(x, 0)})};
}

// x for x >= 0 (and NaN), f(x) below: (where (lt x 0) f x).
TermRef below_zero(NodeContext& c, TermRef x, TermRef f) {
  return c.make(OpKind::Where, {c.make(OpKind::Lt, {x, NodeContext::scalar_like(x, 0)}), f, x});
}

Out leaky_relu(NodeContext& c) {
  c.only_attrs({"alpha"});
  TermRef x = c.input(0);
  TermRef a = NodeContext::scalar_like(x, c.attr_float("alpha", 0.01));
  return {below_zero(c, x, c.make(OpKind::Mul, {x, a}))};
}

Out prelu(NodeContext& c) {
  c.only_attrs({});
  if (c.opset() < 7) c.refuse("opset 6's PRelu (its slope broadcasts along the channel axis)");
  TermRef x = c.input(0);
  return {below_zero(c, x, c.make(OpKind::Mul, {x, c.input(1)}))};
}

Out elu(NodeContext& c) {
  c.only_attrs({"alpha"});
  TermRef x = c.input(0);
  TermRef a = NodeContext::scalar_like(x, c.attr_float("alpha", 1.0));
  return {below_zero(c, x, c.make(OpKind::Mul, {a, c.make(OpKind::Expm1, {x})}))};
}

Out selu(NodeContext& c) {
  c.only_attrs({"alpha", "gamma"});
  TermRef x = c.input(0);
  TermRef a = NodeContext::scalar_like(x, c.attr_float("alpha", 1.67326319217681884765625));
  TermRef g = NodeContext::scalar_like(x, c.attr_float("gamma", 1.05070102214813232421875));
  TermRef neg = c.make(OpKind::Mul, {a, c.make(OpKind::Expm1, {x})});
  TermRef pos =
      c.make(OpKind::Where, {c.make(OpKind::Gt, {x, NodeContext::scalar_like(x, 0)}), x, neg});
  return {c.make(OpKind::Mul, {g, pos})};
}

Out celu(NodeContext& c) {
  c.only_attrs({"alpha"});
  TermRef x = c.input(0);
  TermRef a = NodeContext::scalar_like(x, c.attr_float("alpha", 1.0));
  TermRef zero = NodeContext::scalar_like(x, 0);
  TermRef e = c.make(OpKind::Mul, {a, c.make(OpKind::Expm1, {c.make(OpKind::Div, {x, a})})});
  return {c.make(OpKind::Add,
                 {c.make(OpKind::Maximum, {x, zero}), c.make(OpKind::Minimum, {zero, e})})};
}

// max(0, min(1, alpha·x + beta))
TermRef hard_sigmoid_of(NodeContext& c, TermRef x, double alpha, double beta) {
  TermRef y = c.make(OpKind::Add, {c.make(OpKind::Mul, {x, NodeContext::scalar_like(x, alpha)}),
                                   NodeContext::scalar_like(x, beta)});
  y = c.make(OpKind::Minimum, {y, NodeContext::scalar_like(x, 1)});
  return c.make(OpKind::Maximum, {y, NodeContext::scalar_like(x, 0)});
}

Out hard_sigmoid(NodeContext& c) {
  c.only_attrs({"alpha", "beta"});
  return {hard_sigmoid_of(c, c.input(0), c.attr_float("alpha", 0.2), c.attr_float("beta", 0.5))};
}

Out hard_swish(NodeContext& c) {
  c.only_attrs({});
  TermRef x = c.input(0);
  return {c.make(OpKind::Mul, {x, hard_sigmoid_of(c, x, 1.0 / 6, 0.5)})};
}

Out softsign(NodeContext& c) {
  c.only_attrs({});
  TermRef x = c.input(0);
  TermRef d = c.make(OpKind::Add, {c.make(OpKind::Abs, {x}), NodeContext::scalar_like(x, 1)});
  return {c.make(OpKind::Div, {x, d})};
}

Out thresholded_relu(NodeContext& c) {
  c.only_attrs({"alpha"});
  TermRef x = c.input(0);
  TermRef gt = c.make(OpKind::Gt, {x, NodeContext::scalar_like(x, c.attr_float("alpha", 1.0))});
  return {c.make(OpKind::Where, {gt, x, NodeContext::scalar_like(x, 0)})};
}

Out clip(NodeContext& c) {
  TermRef x = c.input(0);
  TermRef lo = nullptr, hi = nullptr;
  if (c.opset() < 11) {
    c.only_attrs({"min", "max"});
    if (c.has_attr("min")) lo = NodeContext::scalar_like(x, c.attr_float("min", 0));
    if (c.has_attr("max")) hi = NodeContext::scalar_like(x, c.attr_float("max", 0));
  } else {
    c.only_attrs({});
    lo = c.input_or_null(1);
    hi = c.input_or_null(2);
  }
  if (lo) x = c.make(OpKind::Maximum, {x, lo});
  if (hi) x = c.make(OpKind::Minimum, {x, hi});
  return {x};
}

Out is_nan(NodeContext& c) {
  c.only_attrs({});
  TermRef x = c.input(0);
  return {c.make(OpKind::Ne, {x, x})};
}

Out is_inf(NodeContext& c) {
  c.only_attrs({"detect_negative", "detect_positive"});
  TermRef x = c.input(0);
  const bool neg = c.attr_int("detect_negative", 1) != 0,
             pos = c.attr_int("detect_positive", 1) != 0;
  const double inf = std::numeric_limits<double>::infinity();
  TermRef is_pos = c.make(OpKind::Eq, {x, NodeContext::scalar_like(x, inf)});
  TermRef is_neg = c.make(OpKind::Eq, {x, NodeContext::scalar_like(x, -inf)});
  if (pos && neg) return {c.make(OpKind::LogicalOr, {is_pos, is_neg})};
  if (pos) return {is_pos};
  if (neg) return {is_neg};
  return {cast_to(c, c.make(OpKind::ZerosLike, {x}), DType::Bool)};  // detects nothing
}

Out where(NodeContext& c) {
  c.only_attrs({});
  return {c.make(OpKind::Where, {c.input(0), c.input(1), c.input(2)})};
}

Out dropout(NodeContext& c) {
  c.only_attrs({"ratio", "seed", "is_test"});
  if (const ops::Array* training = c.constant(2);
      c.has_input(2) && (!training || training->element(0) != 0))
    c.refuse("training mode (random)");
  if (c.opset() < 7 && c.attr_int("is_test", 0) == 0) c.refuse("training mode (random)");
  TermRef x = c.input(0);
  return {x,
          c.make(OpKind::OnesLike, {c.make(OpKind::Cast, {{AttrKey::Dtype, DType::Bool}}, {x})})};
}

const OnnxOp kOps[] = {
    {"Abs", unary<OpKind::Abs>},
    {"Add", binary<OpKind::Add>},
    {"And", binary<OpKind::LogicalAnd>},
    {"Cast", cast},
    {"CastLike", cast_like},
    {"Ceil", unary<OpKind::Ceil>},
    {"Celu", celu},
    {"Clip", clip},
    {"Cos", unary<OpKind::Cos>},
    {"Div", div},
    {"Dropout", dropout},
    {"Elu", elu},
    {"Equal", binary<OpKind::Eq>},
    {"Exp", unary<OpKind::Exp>},
    {"Floor", unary<OpKind::Floor>},
    {"Greater", binary<OpKind::Gt>},
    {"GreaterOrEqual", binary<OpKind::Ge>},
    {"HardSigmoid", hard_sigmoid},
    {"HardSwish", hard_swish},
    {"Identity", identity},
    {"IsInf", is_inf},
    {"IsNaN", is_nan},
    {"LeakyRelu", leaky_relu},
    {"Less", binary<OpKind::Lt>},
    {"LessOrEqual", binary<OpKind::Le>},
    {"Log", unary<OpKind::Log>},
    {"Max", variadic<OpKind::Maximum>},
    {"Mean", mean},
    {"Min", variadic<OpKind::Minimum>},
    {"Mul", binary<OpKind::Mul>},
    {"Neg", unary<OpKind::Neg>},
    {"Not", unary<OpKind::LogicalNot>},
    {"Or", binary<OpKind::LogicalOr>},
    {"PRelu", prelu},
    {"Pow", pow},
    {"Reciprocal", unary<OpKind::Reciprocal>},
    {"Relu", relu},
    {"Selu", selu},
    {"Sigmoid", unary<OpKind::Sigmoid>},
    {"Sign", unary<OpKind::Sign>},
    {"Sin", unary<OpKind::Sin>},
    {"Softplus", unary<OpKind::Softplus>},
    {"Softsign", softsign},
    {"Sqrt", unary<OpKind::Sqrt>},
    {"Sub", binary<OpKind::Sub>},
    {"Sum", variadic<OpKind::Add>},
    {"Tanh", unary<OpKind::Tanh>},
    {"Erf", unary<OpKind::Erf>},
    {"ThresholdedRelu", thresholded_relu},
    {"Where", where},
    {"Xor", neq_bool},
};

}  // namespace

std::span<const OnnxOp> elementwise_ops() {
  return kOps;
}

}  // namespace eqsat::onnx
