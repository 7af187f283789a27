// ONNX's linear algebra and network layers: MatMul, Gemm, Einsum (the
// contractions a transpose, a reshape and a batched `dot` express),
// LayerNormalization, NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss.
#include "build.hpp"
#include "gather.hpp"
#include "op_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace eqsat::onnx {

namespace {

using ops::AttrKey;
using ops::DType;
using ops::OpKind;
using ops::TermRef;
using Out = std::vector<TermRef>;

Out matmul(NodeContext& c) {
  c.only_attrs({});
  if (c.rank(0) == 0 || c.rank(1) == 0) c.refuse("a scalar operand");
  return {c.make(OpKind::Dot, {c.input(0), c.input(1)})};
}

Out gemm(NodeContext& c) {
  c.only_attrs({"alpha", "beta", "transA", "transB", "broadcast"});  // broadcast: opset 6, NumPy's
  TermRef a = c.input(0), b = c.input(1);
  if (a->tensor_type().rank() != 2 || b->tensor_type().rank() != 2)
    c.refuse("operands of rank other than 2");
  if (c.attr_int("transA", 0)) a = c.make(OpKind::Transpose, {a});
  if (c.attr_int("transB", 0)) b = c.make(OpKind::Transpose, {b});
  TermRef y = c.make(OpKind::Dot, {a, b});
  const double alpha = c.attr_float("alpha", 1.0), beta = c.attr_float("beta", 1.0);
  if (alpha != 1.0) y = c.make(OpKind::Mul, {NodeContext::scalar_like(y, alpha), y});
  if (c.has_input(2)) {
    TermRef cc = c.input(2);
    if (beta != 1.0) cc = c.make(OpKind::Mul, {NodeContext::scalar_like(cc, beta), cc});
    y = c.make(OpKind::Add, {y, cc});
  }
  return {y};
}

// Einsum of one or two operands, explicit output or not, without an
// ellipsis or a letter repeated within one operand.
Out einsum(NodeContext& c) {
  c.only_attrs({"equation"});
  std::string eq;
  for (char ch : c.attr_string("equation", ""))
    if (ch != ' ') eq.push_back(ch);
  if (eq.find("...") != std::string::npos) c.refuse("an ellipsis in the equation");
  const auto arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (std::size_t at = 0;;) {
    const auto comma = lhs.find(',', at);
    terms.push_back(lhs.substr(at, comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (terms.size() != c.num_inputs()) c.refuse("an equation with another number of operands");
  if (terms.size() > 2) c.refuse("more than two operands");
  std::map<char, int> count;
  std::map<char, std::int64_t> size;
  for (std::size_t t = 0; t < terms.size(); ++t) {
    const auto& dims = c.static_dims(t);
    if (terms[t].size() != dims.size()) c.refuse("an operand of another rank than its subscripts");
    std::string seen;
    for (std::size_t i = 0; i < terms[t].size(); ++i) {
      const char l = terms[t][i];
      if (seen.find(l) != std::string::npos)
        c.refuse("a letter repeated within one operand (a diagonal)");
      seen.push_back(l);
      ++count[l];
      if (size.count(l) && size[l] != dims[i]) c.refuse("a letter with two lengths");
      size[l] = dims[i];
    }
  }
  std::string out;
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
  } else {
    for (auto [l, n] : count)
      if (n == 1) out.push_back(l);
  }
  for (char l : out)
    if (!count.count(l)) c.refuse("an output letter no operand has");
  auto in_out = [&](char l) { return out.find(l) != std::string::npos; };
  // sum away the letters only one operand has and the output does not
  std::vector<TermRef> xs;
  for (std::size_t t = 0; t < terms.size(); ++t) {
    TermRef x = c.input(t);
    std::string kept;
    std::vector<std::int64_t> axes;
    for (std::size_t i = 0; i < terms[t].size(); ++i) {
      const char l = terms[t][i];
      if (!in_out(l) && count[l] == 1)
        axes.push_back(static_cast<std::int64_t>(i));
      else
        kept.push_back(l);
    }
    if (!axes.empty()) x = reduce(c, OpKind::Sum, x, axes, false);
    terms[t] = kept;
    xs.push_back(x);
  }
  auto permute = [&](TermRef x, const std::string& from, const std::string& to) {
    ops::IntList perm;
    for (char l : to) perm.push_back(static_cast<std::int64_t>(from.find(l)));
    bool identity = true;
    for (std::size_t i = 0; i < perm.size(); ++i)
      identity = identity && perm[i] == static_cast<std::int64_t>(i);
    return identity ? x : c.make(OpKind::Transpose, {{AttrKey::Perm, perm}}, {x});
  };
  if (xs.size() == 1) return {permute(xs[0], terms[0], out)};
  std::string batch, contracted, a_free, b_free;
  for (char l : terms[0]) {
    const bool in_b = terms[1].find(l) != std::string::npos;
    (in_b ? (in_out(l) ? batch : contracted) : a_free).push_back(l);
  }
  for (char l : terms[1])
    if (terms[0].find(l) == std::string::npos) b_free.push_back(l);
  auto prod = [&](const std::string& ls) {
    std::int64_t p = 1;
    for (char l : ls) p *= size[l];
    return p;
  };
  ops::Dims bdims;
  for (char l : batch) bdims.push_back(size[l]);
  auto with_batch = [&](std::initializer_list<std::int64_t> tail) {
    ops::Dims d = bdims;
    d.insert(d.end(), tail);
    return d;
  };
  TermRef a = reshape(c, permute(xs[0], terms[0], batch + a_free + contracted),
                      with_batch({prod(a_free), prod(contracted)}));
  TermRef b = reshape(c, permute(xs[1], terms[1], batch + contracted + b_free),
                      with_batch({prod(contracted), prod(b_free)}));
  TermRef y = c.make(OpKind::Dot, {a, b});
  ops::Dims ydims = bdims;
  for (char l : a_free + b_free) ydims.push_back(size[l]);
  return {permute(reshape(c, y, ydims), batch + a_free + b_free, out)};
}

Out layer_norm(NodeContext& c) {
  c.only_attrs({"axis", "epsilon", "stash_type"});
  TermRef x = c.input(0);
  const int rank = x->tensor_type().rank();
  const int axis = onnx_axis(c, c.attr_int("axis", -1), rank);
  if (!ops::is_float(x->tensor_type().dtype)) c.refuse("an integer operand");
  const DType stash = dtype_attr(c, c.attr_int("stash_type", 1));
  std::vector<std::int64_t> axes;
  for (int i = axis; i < rank; ++i) axes.push_back(i);
  TermRef xs = cast_to(c, x, stash);
  TermRef mean = reduce(c, OpKind::Mean, xs, axes, true);
  TermRef d = c.make(OpKind::Sub, {xs, mean});
  TermRef var = reduce(c, OpKind::Mean, c.make(OpKind::Square, {d}), axes, true);
  TermRef inv =
      c.make(OpKind::Reciprocal,
             {c.make(OpKind::Sqrt,
                     {c.make(OpKind::Add,
                             {var, NodeContext::scalar(stash, c.attr_float("epsilon", 1e-5))})})});
  TermRef y = cast_to(c, c.make(OpKind::Mul, {d, inv}), x->tensor_type().dtype);
  y = c.make(OpKind::Mul, {y, c.input(1)});
  if (c.has_input(2)) y = c.make(OpKind::Add, {y, c.input(2)});
  return {y, mean, inv};
}

// ONNX's negative log-likelihood of `logp` (N, C, d...) at `target` (N,
// d...): the loss and its reduction, with `weight` per class and
// `ignore_index` as the op defines them.
TermRef nll(NodeContext& c, TermRef logp, TermRef target, TermRef weight) {
  const std::string reduction = c.attr_string("reduction", "mean");
  if (reduction != "mean" && reduction != "sum" && reduction != "none")
    c.refuse(fmt::format("reduction '{}'", reduction));
  if (logp->tensor_type().rank() < 2) c.refuse("an input of rank below 2");
  const DType ft = logp->tensor_type().dtype;
  TermRef t = cast_to(c, target, DType::I64);
  TermRef keep = nullptr;
  if (c.has_attr("ignore_index")) {
    TermRef ign =
        NodeContext::scalar(DType::I64, static_cast<double>(c.attr_int("ignore_index", 0)));
    keep = c.make(OpKind::Ne, {t, ign});
    t = c.make(OpKind::Where, {keep, t, NodeContext::scalar(DType::I64, 0)});
  }
  TermRef picked = take_along_axis(
      c, logp, c.make(OpKind::ExpandDims, {{AttrKey::Axis, std::int64_t{1}}}, {t}), 1);
  picked = c.make(OpKind::Squeeze, {{AttrKey::Axis, std::int64_t{1}}}, {picked});
  TermRef w = nullptr;  // per element
  if (weight) {
    const int r = t->tensor_type().rank();
    w = take_along_axis(c,
                        c.make(OpKind::BroadcastTo,
                               {{AttrKey::Shape,
                                 [&] {
                                   ops::IntList s = t->tensor_type().dims;
                                   s.push_back(weight->tensor_type().dims.at(0));
                                   return s;
                                 }()}},
                               {weight}),
                        c.make(OpKind::ExpandDims, {{AttrKey::Axis, std::int64_t{r}}}, {t}), r);
    w = c.make(OpKind::Squeeze, {{AttrKey::Axis, std::int64_t{r}}}, {w});
  }
  if (keep) {
    TermRef k = cast_to(c, keep, ft);
    w = w ? c.make(OpKind::Mul, {w, k}) : k;
  }
  TermRef loss = c.make(OpKind::Neg, {picked});
  if (w) loss = c.make(OpKind::Mul, {loss, w});
  if (reduction == "none") return loss;
  TermRef total = c.make(OpKind::Sum, {loss});
  if (reduction == "sum") return total;
  if (!w) return c.make(OpKind::Mean, {loss});
  return c.make(OpKind::Div, {total, c.make(OpKind::Sum, {w})});
}

Out nll_loss(NodeContext& c) {
  c.only_attrs({"reduction", "ignore_index"});
  return {nll(c, c.input(0), c.input(1), c.input_or_null(2))};
}

Out softmax_cross_entropy(NodeContext& c) {
  c.only_attrs({"reduction", "ignore_index"});
  TermRef logp = c.make(OpKind::LogSoftmax, {{AttrKey::Axis, std::int64_t{1}}}, {c.input(0)});
  return {nll(c, logp, c.input(1), c.input_or_null(2)), logp};
}

// Inference mode: (x - mean) / sqrt(var + epsilon) · scale + B per channel
// (axis 1).
Out batch_norm(NodeContext& c) {
  c.only_attrs({"epsilon", "momentum", "spatial", "training_mode", "is_test"});
  if (c.attr_int("training_mode", 0) != 0) c.refuse("training mode");
  if (c.attr_int("spatial", 1) == 0) c.refuse("spatial = 0");
  if (c.node().output_size() > 1) c.refuse("the running mean and variance outputs (training)");
  TermRef x = c.input(0);
  const int rank = x->tensor_type().rank();
  if (rank < 2) c.refuse("an input of rank below 2");
  auto per_channel = [&](std::size_t i) {
    TermRef p = c.input(i);
    for (int d = 2; d < rank; ++d)
      p = c.make(OpKind::ExpandDims, {{AttrKey::Axis, std::int64_t{-1}}}, {p});
    return p;
  };
  TermRef eps = NodeContext::scalar_like(x, c.attr_float("epsilon", 1e-5));
  TermRef d =
      c.make(OpKind::Div, {c.make(OpKind::Sub, {x, per_channel(3)}),
                           c.make(OpKind::Sqrt, {c.make(OpKind::Add, {per_channel(4), eps})})});
  return {c.make(OpKind::Add, {c.make(OpKind::Mul, {d, per_channel(1)}), per_channel(2)})};
}

const OnnxOp kOps[] = {
    {"BatchNormalization", batch_norm},
    {"Einsum", einsum},
    {"Gemm", gemm},
    {"LayerNormalization", layer_norm},
    {"MatMul", matmul},
    {"NegativeLogLikelihoodLoss", nll_loss},
    {"SoftmaxCrossEntropyLoss", softmax_cross_entropy},
};

}  // namespace

std::span<const OnnxOp> nn_ops() {
  return kOps;
}

}  // namespace eqsat::onnx
