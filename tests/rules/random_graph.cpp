// The random graph generator's core (random_graph.hpp): inputs, the op
// families, idioms of the shipped rules, and the input values.
#include "tests/rules/random_graph.hpp"

#include "ops/type_error.hpp"

#include <algorithm>
#include <cmath>

namespace eqsat::testing {

using ops::AttrKey;
using ops::Attrs;
using ops::Dims;
using ops::DType;
using ops::IntList;
using ops::OpKind;
using ops::TensorType;
using ops::Term;
using ops::TermRef;

ops::Graph RandomCase::with_gradients() const {
  ops::Graph g = graph;
  g.outputs.insert(g.outputs.end(), gradients.begin(), gradients.end());
  return g;
}

RandomCase ProgramGenerator::make() {
  const int num_inputs = pick(1, 3);
  for (int k = 0; k < num_inputs; ++k) pool_.push_back(new_input(random_dims(), random_float()));
  if (pick(0, 2) == 0) {
    static const std::vector<DType> kOther = {DType::I64, DType::I32, DType::Bool};
    pool_.push_back(new_input(random_dims(), choose(kOther)));
  }
  if (pick(0, 2) == 0) make_def();
  grow(pool_, pick(6, 24), 0);
  const int num_outputs = pick(1, 3);
  for (int k = 0; k < num_outputs; ++k) {
    const int last = static_cast<int>(pool_.size()) - 1;
    TermRef t = pool_[k == 0 ? last : pick(std::max(0, last - 6), last)];
    std::string name = "out";
    name.append(std::to_string(k));
    case_.graph.outputs.push_back({name, t});
  }
  if (options_.corners) {  // unknown dimensions fed with 1 or 0 elements
    for (std::size_t i = 0; i < case_.input_dims.size(); ++i) {
      const ops::Dims& declared = case_.graph.inputs[i]->tensor_type().dims;
      if (declared.empty() || declared[0] != ops::kUnknownDim || case_.plain_input[i]) continue;
      const int k = pick(0, 5);
      if (k <= 1) count("input-size-1");
      if (k == 2) count("input-empty");
      if (k <= 2) case_.input_dims[i][0] = k <= 1 ? 1 : 0;
    }
  }
  if (options_.gradients) add_gradients();
  case_.f64_only = options_.gradients;
  return std::move(case_);
}
Dims ProgramGenerator::random_dims() {
  static const std::vector<Dims> kShapes = {{},     {3},    {4},       {2, 3},
                                            {3, 4}, {1, 4}, {2, 3, 4}, {3, 1}};
  return choose(kShapes);
}
TermRef ProgramGenerator::new_input(const Dims& dims, DType dtype, bool plain) {
  for (auto d : dims)  // a partner shaped after an unknown dimension: skip this op
    if (d == ops::kUnknownDim) throw ops::TypeError("no concrete shape for a new input");
  Dims declared = dims;
  if (!declared.empty() && pick(0, options_.corners ? 2 : 4) == 0) declared[0] = ops::kUnknownDim;
  std::string name = "x";
  name.append(std::to_string(case_.graph.inputs.size()));
  TermRef in = Term::input(name, TensorType{dtype, declared});
  case_.graph.inputs.push_back(in);
  case_.input_dims.push_back(dims);
  case_.plain_input.push_back(plain);
  return in;
}
double ProgramGenerator::literal_value() {
  static const std::vector<double> kValues = {0, 1, -1, 2, 0.5, 3, -2.5};
  return choose(kValues);
}
TermRef ProgramGenerator::constant_like(TermRef a) {
  const TensorType& t = a->tensor_type();
  const DType d = t.dtype == DType::Bool ? DType::Bool : t.dtype;
  const double v = d == DType::Bool ? pick(0, 1) : literal_value();
  const int kind = pick(0, 2);
  if (kind == 0 || t.num_elements() < 0 || t.num_elements() > 24) return Term::scalar(d, v);
  ops::Array arr(d, t.dims);
  for (std::int64_t i = 0; i < arr.size(); ++i) {
    const double x = kind == 1 ? v : (d == DType::Bool ? pick(0, 1) : literal_value());
    ops::visit_dtype(d,
                     [&]<class T>(std::type_identity<T>) { arr.data<T>()[i] = static_cast<T>(x); });
  }
  return Term::constant(arr);
}
TermRef ProgramGenerator::partner(const std::vector<TermRef>& pool, TermRef a,
                                  bool inputs_allowed) {
  const int k = pick(0, 4);
  if (k <= 1) {
    std::vector<TermRef> fits;
    for (TermRef t : pool) {
      try {
        ops::broadcast_dims(a->tensor_type().dims, t->tensor_type().dims);
        fits.push_back(t);
      } catch (const ops::TypeError&) {
      }
    }
    if (!fits.empty()) return choose(fits);
  }
  if (k == 2 && inputs_allowed) {
    Dims d = a->tensor_type().dims;
    for (auto& x : d)
      if (x == ops::kUnknownDim) return constant_like(a);
    if (!d.empty() && coin())
      d.erase(d.begin());  // broadcast a lower rank
    else if (!d.empty() && coin())
      d.back() = 1;
    return new_input(d, a->tensor_type().dtype == DType::F32 ? DType::F32 : random_float());
  }
  return constant_like(a);
}
void ProgramGenerator::grow(std::vector<TermRef>& pool, int steps, int depth) {
  for (int tries = 0; steps > 0 && tries < steps * 8 + 40; ++tries) {
    TermRef t = nullptr;
    try {
      t = apply(pool, depth);
    } catch (const ops::TypeError&) {
      continue;
    }
    if (!t) continue;
    if (options_.corners && options_.broadcast_like) t = broadcast_like_corner(pool, t);
    pool.push_back(t);
    --steps;
  }
}
TermRef ProgramGenerator::broadcast_like_corner(const std::vector<TermRef>& pool, TermRef t) {
  if (pool.empty() || like_rng_() % 10 != 0) return t;
  TermRef y = pool[like_rng_() % pool.size()];
  try {
    TermRef b = Term::make(OpKind::BroadcastLike, {}, {t, y});
    if (!(b->tensor_type() == t->tensor_type())) return t;
    count("broadcast-like");
    return b;
  } catch (const ops::TypeError&) {
    return t;
  }
}
TermRef ProgramGenerator::make(OpKind kind, Attrs attrs, Operands operands, const char* family) {
  TermRef t = Term::make(kind, std::move(attrs), std::move(operands));
  count(family);
  return t;
}
TermRef ProgramGenerator::apply(std::vector<TermRef>& pool, int depth) {
  const bool top = depth == 0;
  TermRef a = operand(pool);
  const std::int64_t r = rank(a);
  const DType dt = a->tensor_type().dtype;
  switch (pick(0, 23) < options_.scan_bias ? 17 : pick(0, 23)) {
    case 21:
    case 22:
    case 23:
      return idiom(pool, a);
    case 0:
    case 1: {  // elementwise unary
      static const std::vector<OpKind> kUnary = {
          OpKind::Neg,   OpKind::Abs,  OpKind::Sign,      OpKind::Square,  OpKind::Exp,
          OpKind::Expm1, OpKind::Log,  OpKind::Log1p,     OpKind::Sqrt,    OpKind::Reciprocal,
          OpKind::Sin,   OpKind::Cos,  OpKind::Tanh,      OpKind::Sigmoid, OpKind::Softplus,
          OpKind::Floor, OpKind::Ceil, OpKind::LogicalNot};
      if (pick(0, 5) == 0) {
        static const std::vector<DType> kTo = {DType::F64, DType::F32, DType::I64, DType::Bool};
        static const std::vector<DType> kToNoF32 = {DType::F64, DType::I64, DType::Bool};
        return make(OpKind::Cast, {{AttrKey::Dtype, choose(options_.gradients ? kToNoF32 : kTo)}},
                    {a}, "cast");
      }
      return make(choose(kUnary), {}, {a}, "unary");
    }
    case 2:
    case 3:
    case 4: {  // elementwise binary, with broadcasting and literals
      static const std::vector<OpKind> kBinary = {
          OpKind::Add, OpKind::Add,        OpKind::Sub,      OpKind::Sub,     OpKind::Mul,
          OpKind::Mul, OpKind::Div,        OpKind::Pow,      OpKind::Maximum, OpKind::Minimum,
          OpKind::Eq,  OpKind::Ne,         OpKind::Lt,       OpKind::Le,      OpKind::Gt,
          OpKind::Ge,  OpKind::LogicalAnd, OpKind::LogicalOr};
      const OpKind k = choose(kBinary);
      if (k == OpKind::Pow && ops::is_integer(dt)) return nullptr;  // negative powers are errors
      TermRef b = partner(pool, a, top);
      return make(k, {}, coin() ? Operands{a, b} : Operands{b, a}, "binary");
    }
    case 5: {  // where
      TermRef c = a->tensor_type().dtype == DType::Bool
                      ? a
                      : make(OpKind::Gt, {}, {a, Term::scalar(dt, literal_value())}, "binary");
      TermRef x = partner(pool, a, top), y = partner(pool, a, top);
      if (pick(0, 3) == 0) y = x;
      if (pick(0, 5) == 0) c = Term::scalar(DType::Bool, pick(0, 1));
      return make(OpKind::Where, {}, {c, x, y}, "where");
    }
    case 6:
    case 7: {  // reductions
      static const std::vector<OpKind> kReduce = {OpKind::Sum,      OpKind::Sum, OpKind::Prod,
                                                  OpKind::Max,      OpKind::Min, OpKind::Mean,
                                                  OpKind::Logsumexp};
      Attrs attrs;
      if (r > 0 && coin()) {
        IntList axes;
        for (std::int64_t ax = 0; ax < r; ++ax)
          if (coin()) axes.push_back(coin() ? ax : ax - r);
        if (!axes.empty()) attrs.set(AttrKey::Axis, axes);
      }
      if (coin()) attrs.set(AttrKey::Keepdims, true);
      return make(choose(kReduce), attrs, {a}, "reduction");
    }
    case 8: {  // softmax and log_softmax
      if (r == 0) return nullptr;
      Attrs attrs;
      if (coin()) attrs.set(AttrKey::Axis, std::int64_t{pick(0, static_cast<int>(r) - 1)});
      return make(coin() ? OpKind::Softmax : OpKind::LogSoftmax, attrs, {a}, "softmax");
    }
    case 9:
    case 10:
      return dot(pool, a, top);
    case 11:
    case 12:
      return shape_op(pool, a, top);
    case 13:
      return concat_or_stack(pool, a, top);
    case 14:
      return indexing(pool, a);
    case 15:
      return creation(a);
    case 16:
      if (!top || case_.graph.defs.empty()) return nullptr;
      return call(pool);
    case 17:
    case 18:
      // Loops at the top, in defs, and (when asked) one level in loop bodies.
      if (depth >= 2 || (depth == 1 && coin()) || (loop_depth_ > 0 && !options_.nested_loops))
        return nullptr;
      return scan(pool, depth);
    default: {  // an identity pattern the canonical rules look for
      TermRef b = constant_like(a);
      static const std::vector<OpKind> kOps = {OpKind::Add, OpKind::Mul, OpKind::Sub, OpKind::Div,
                                               OpKind::Pow};
      const OpKind k = choose(kOps);
      if (k == OpKind::Pow && ops::is_integer(dt)) return nullptr;
      return make(k, {}, coin() ? Operands{a, b} : Operands{b, a}, "literal");
    }
  }
}
TermRef ProgramGenerator::idiom(std::vector<TermRef>& pool, TermRef a) {
  if (options_.corners && pick(0, 2) == 0) return corner_idiom(pool, a);
  const TensorType& t = a->tensor_type();
  auto op = [&](OpKind k, Operands xs, Attrs attrs = {}) {
    return Term::make(k, std::move(attrs), std::move(xs));
  };
  auto lit = [&](double v) { return Term::scalar(t.dtype, v); };
  if (t.dtype == DType::Bool) {
    TermRef n = op(OpKind::LogicalNot, {a});
    return make(
        coin() ? OpKind::LogicalNot : OpKind::Where, {},
        coin() ? Operands{n} : Operands{n, partner(pool, a, false), partner(pool, a, false)},
        "idiom");
  }
  if (!ops::is_float(t.dtype)) return nullptr;
  const int r = t.rank();
  Attrs axis;
  if (r > 0) axis.set(AttrKey::Axis, std::int64_t{pick(0, r - 1)});
  Attrs keep = axis;
  keep.set(AttrKey::Keepdims, true);
  TermRef e = op(OpKind::Exp, {a});
  TermRef sg = op(OpKind::Sigmoid, {a});
  TermRef b = partner(pool, a, false);
  count("idiom");
  switch (pick(0, 33)) {
    case 0:
      return r ? op(OpKind::Log, {op(OpKind::Softmax, {a}, axis)}) : nullptr;
    case 1:
      return r ? op(OpKind::Exp, {op(OpKind::LogSoftmax, {a}, axis)}) : nullptr;
    case 2:
      return r ? op(OpKind::Div, {e, op(OpKind::Sum, {e}, keep)}) : nullptr;
    case 3:
      return r ? op(OpKind::Sub, {a, op(OpKind::Logsumexp, {a}, keep)}) : nullptr;
    case 4:
      return op(OpKind::Log, {op(OpKind::Sum, {e}, coin() ? axis : Attrs{})});
    case 5:
      return op(OpKind::Log, {op(OpKind::Add, {lit(1), a})});
    case 6:
      return op(OpKind::Log, {op(OpKind::Add, {a, lit(1)})});
    case 7:
      return op(OpKind::Log, {op(OpKind::Sub, {lit(1), a})});
    case 8:
      return op(OpKind::Sub, {e, lit(1)});
    case 9:
      return op(OpKind::Add, {e, lit(-1)});
    case 10:
      return op(OpKind::Log, {op(OpKind::Add, {lit(1), e})});
    case 11:
      return op(OpKind::Log1p, {e});
    case 12:
      return op(OpKind::Log, {sg});
    case 13:
      return op(OpKind::Log, {op(OpKind::Sub, {lit(1), sg})});
    case 14:
      return op(OpKind::Log1p, {op(OpKind::Neg, {sg})});
    case 15:
      return op(OpKind::Sub, {lit(1), sg});
    case 16:
      return op(OpKind::Div,
                {lit(1), op(OpKind::Add, {lit(1), op(OpKind::Exp, {op(OpKind::Neg, {a})})})});
    case 17:
      return op(OpKind::Reciprocal,
                {op(OpKind::Add, {lit(1), op(OpKind::Exp, {op(OpKind::Neg, {a})})})});
    case 18:
      return op(OpKind::Div, {e, op(OpKind::Add, {lit(1), e})});
    case 19:
      return op(OpKind::Div, {lit(1), op(OpKind::Add, {lit(1), e})});
    case 20:
      return op(OpKind::Abs, {op(coin() ? OpKind::Abs : OpKind::Neg, {a})});
    case 21:
      return op(coin() ? OpKind::Square : OpKind::Abs, {op(OpKind::Neg, {a})});
    case 22:
      return op(OpKind::Sqrt, {op(OpKind::Square, {a})});
    case 23:
      return op(OpKind::Exp, {op(OpKind::Log, {coin() ? a : op(OpKind::Abs, {a})})});
    case 24:
      return op(OpKind::Log, {e});
    case 25:
      return op(OpKind::Log1p, {op(OpKind::Expm1, {a})});
    case 26:
      return op(OpKind::Expm1, {op(OpKind::Log1p, {coin() ? a : op(OpKind::Exp, {a})})});
    case 27:
      return op(coin() ? OpKind::Sub : OpKind::Div, {a, a});
    case 28: {
      static const std::vector<OpKind> kOps = {OpKind::Mul, OpKind::Div, OpKind::Add, OpKind::Sub};
      const OpKind k = choose(kOps);
      if (b->tensor_type().dtype != t.dtype) return nullptr;
      return op(k, {coin() ? op(OpKind::Neg, {a}) : a, op(OpKind::Neg, {b})});
    }
    case 29: {
      if (r == 0) return nullptr;
      const std::int64_t ax = pick(0, r);
      static const std::vector<OpKind> kReduce = {OpKind::Sum, OpKind::Max, OpKind::Min,
                                                  OpKind::Prod, OpKind::Mean};
      return op(choose(kReduce), {op(OpKind::ExpandDims, {a}, {{AttrKey::Axis, ax}})},
                {{AttrKey::Axis, ax}});
    }
    case 30: {
      if (r == 0 || !t.is_static()) return nullptr;
      IntList shape(t.dims.begin(), t.dims.end());
      shape.insert(shape.begin(), 2);
      return op(coin() ? OpKind::Max : OpKind::Min,
                {op(OpKind::BroadcastTo, {a}, {{AttrKey::Shape, shape}})});
    }
    case 31: {
      if (r == 0) return nullptr;
      if (r == 3 && coin())
        return op(OpKind::Transpose,
                  {op(OpKind::Transpose, {a}, {{AttrKey::Perm, IntList{0, 2, 1}}})},
                  {{AttrKey::Perm, IntList{0, 2, 1}}});
      if (coin()) return op(OpKind::Flip, {op(OpKind::Flip, {a}, axis)}, axis);
      return op(OpKind::Reshape, {op(OpKind::Reshape, {a}, {{AttrKey::Shape, IntList{-1}}})},
                {{AttrKey::Shape, IntList(t.dims.begin(), t.dims.end())}});
    }
    case 32: {  // products with an identity matrix, transposed or negated
      if (r != 2 || t.dims[1] == ops::kUnknownDim) return nullptr;
      const std::int64_t n = t.dims[1];
      ops::Array eye(t.dtype, {n, n});
      for (std::int64_t i = 0; i < n; ++i)
        ops::visit_dtype(t.dtype,
                         [&]<class T>(std::type_identity<T>) { eye.data<T>()[i * n + i] = T(1); });
      TermRef d = op(OpKind::Dot, {a, Term::constant(eye)});
      return coin() ? d : op(OpKind::Transpose, {op(OpKind::Dot, {op(OpKind::Neg, {a}), d})});
    }
    default: {
      if (!t.is_static() || r != 2) return nullptr;
      TermRef m = op(OpKind::Transpose, {a});
      return op(OpKind::Transpose, {op(OpKind::Dot, {a, op(OpKind::Neg, {m})})});
    }
  }
}
TermRef ProgramGenerator::corner_idiom(std::vector<TermRef>& pool, TermRef a) {
  const TensorType& t = a->tensor_type();
  if (!ops::is_float(t.dtype)) return nullptr;
  auto op = [&](OpKind k, Operands xs) { return Term::make(k, {}, std::move(xs)); };
  auto pow = [&](double e) { return op(OpKind::Pow, {a, Term::scalar(t.dtype, e)}); };
  switch (pick(0, 3)) {
    case 0:  // x^½ · x^½ is x only where x >= 0 (issue 25 point 7)
      count("pow-pair");
      return op(OpKind::Mul, {pow(0.5), pow(0.5)});
    case 1:
      count("pow-pair");
      return op(OpKind::Div, {pow(1.5), pow(0.5)});
    case 2: {  // log(exp a − exp b), −∞ at a = b = −∞ (issue 25 point 4)
      TermRef b = partner(pool, a, false);
      if (b->tensor_type().dtype != t.dtype) return nullptr;
      count("log-sub-exp");
      return op(OpKind::Log, {op(OpKind::Sub, {op(OpKind::Exp, {a}), op(OpKind::Exp, {b})})});
    }
    default:  // where over a constant condition, operands of unknown length (point 6)
      count("where-constant");
      return op(OpKind::Where, {Term::scalar(DType::Bool, pick(0, 1)), a, partner(pool, a, false)});
  }
}

TermRef ProgramGenerator::dot(std::vector<TermRef>& pool, TermRef a, bool top) {
  const Dims& d = a->tensor_type().dims;
  if (d.empty() || d.back() == ops::kUnknownDim) return nullptr;
  const DType dt = a->tensor_type().dtype;
  if (dt == DType::Bool) return nullptr;
  const std::int64_t k = d.back();
  auto fitting = [&](const Dims& want) -> TermRef {
    for (TermRef t : pool)
      if (t->tensor_type().dims == want && t->tensor_type().dtype == dt && coin()) return t;
    if (!top) return nullptr;
    return new_input(want, dt);
  };
  const int form = pick(0, 3);
  if (form == 0) {
    TermRef b = fitting({k});
    return b ? make(OpKind::Dot, {}, {a, b}, "dot") : nullptr;
  }
  if (form == 1 && d.size() == 3) {  // batched
    TermRef b = fitting({d[0], k, static_cast<std::int64_t>(pick(1, 4))});
    return b ? make(OpKind::Dot, {}, {a, b}, "dot-batched") : nullptr;
  }
  if (d.size() != 2 || !top) {
    TermRef b = fitting({k, static_cast<std::int64_t>(pick(1, 5))});
    return b ? make(OpKind::Dot, {}, {a, b}, "dot") : nullptr;
  }
  // A chain of 2-4 matrix products with sizes that make one order cheaper.
  TermRef acc = a;
  std::int64_t inner = k;
  for (int n = pick(2, 4); n > 0; --n) {
    static const std::vector<std::int64_t> kSizes = {1, 2, 5, 16, 30};
    const std::int64_t next = choose(kSizes);
    acc = make(OpKind::Dot, {}, {acc, new_input({inner, next}, dt)}, "dot-chain");
    inner = next;
  }
  return acc;
}
TermRef ProgramGenerator::shape_op(std::vector<TermRef>& pool, TermRef a, bool top) {
  const Dims& d = a->tensor_type().dims;
  const int r = static_cast<int>(d.size());
  switch (pick(0, 5)) {
    case 0: {  // reshape: flatten, -1, or a split of the first axis
      Attrs attrs;
      const std::int64_t n = a->tensor_type().num_elements();
      if (n < 0) return nullptr;
      if (n % 2 == 0 && coin())
        attrs.set(AttrKey::Shape, IntList{2, -1});
      else
        attrs.set(AttrKey::Shape, coin() ? IntList{n} : IntList{-1, 1});
      return make(OpKind::Reshape, attrs, {a}, "reshape");
    }
    case 1: {  // transpose: default, or a random permutation
      Attrs attrs;
      if (r >= 2 && coin()) {
        IntList perm;
        for (int i = 0; i < r; ++i) perm.push_back(i);
        std::shuffle(perm.begin(), perm.end(), rng_);
        attrs.set(AttrKey::Perm, perm);
      }
      return make(OpKind::Transpose, attrs, {a}, "transpose");
    }
    case 2:
      return make(OpKind::ExpandDims, {{AttrKey::Axis, std::int64_t{pick(-r - 1, r)}}}, {a},
                  "expand_dims");
    case 3: {
      for (int i = 0; i < r; ++i)
        if (d[i] == 1)
          return make(OpKind::Squeeze, {{AttrKey::Axis, std::int64_t{i}}}, {a}, "squeeze");
      TermRef e = make(OpKind::ExpandDims, {{AttrKey::Axis, std::int64_t{0}}}, {a}, "expand_dims");
      return make(OpKind::Squeeze, {{AttrKey::Axis, std::int64_t{0}}}, {e}, "squeeze");
    }
    case 4: {  // broadcast_to a leading axis, or unit axes widened
      for (auto x : d)
        if (x == ops::kUnknownDim) return nullptr;
      IntList shape(d.begin(), d.end());
      for (auto& x : shape)
        if (x == 1 && coin()) x = 3;
      if (coin()) shape.insert(shape.begin(), 2);
      return make(OpKind::BroadcastTo, {{AttrKey::Shape, shape}}, {a}, "broadcast_to");
    }
    default: {
      if (r == 0) return nullptr;
      Attrs attrs;
      if (coin()) attrs.set(AttrKey::Axis, std::int64_t{pick(-r, r - 1)});
      (void)pool;
      (void)top;
      return make(OpKind::Flip, attrs, {a}, "flip");
    }
  }
}
TermRef ProgramGenerator::concat_or_stack(std::vector<TermRef>& pool, TermRef a, bool top) {
  const Dims& d = a->tensor_type().dims;
  std::vector<TermRef> same;
  for (TermRef t : pool)
    if (t->tensor_type() == a->tensor_type()) same.push_back(t);
  Operands ops{a, choose(same)};
  if (coin()) ops.push_back(choose(same));
  if (coin() || d.empty()) {
    const int r = static_cast<int>(d.size());
    return make(OpKind::Stack, {{AttrKey::Axis, std::int64_t{pick(0, r)}}}, ops, "stack");
  }
  if (top && d[0] != ops::kUnknownDim && coin()) {  // a fresh input of another length
    Dims other = d;
    other[0] = pick(1, 3);
    ops[1] = new_input(other, a->tensor_type().dtype);
    return make(OpKind::Concat, {{AttrKey::Axis, std::int64_t{0}}}, ops, "concat");
  }
  return make(OpKind::Concat,
              {{AttrKey::Axis, std::int64_t{pick(0, static_cast<int>(d.size()) - 1)}}}, ops,
              "concat");
}
TermRef ProgramGenerator::indexing(std::vector<TermRef>& pool, TermRef a) {
  const Dims& d = a->tensor_type().dims;
  if (d.empty() || d[0] == ops::kUnknownDim) return nullptr;
  const int n = static_cast<int>(d[0]);
  TermRef i = Term::scalar(DType::I64, pick(-n, n - 1));
  switch (pick(0, 4)) {
    case 0:
      return make(OpKind::Index, {}, {a, i}, "index");
    case 1:
    case 2: {
      Attrs attrs;
      const int r = static_cast<int>(d.size());
      const int axis = pick(0, r - 1);
      if (d[axis] == ops::kUnknownDim) return nullptr;
      const int len = static_cast<int>(d[axis]);
      attrs.set(AttrKey::Axis, std::int64_t{axis});
      if (coin()) attrs.set(AttrKey::Start, std::int64_t{pick(-len, len)});
      if (coin()) attrs.set(AttrKey::Stop, std::int64_t{pick(-len, len)});
      if (coin()) attrs.set(AttrKey::Step, std::int64_t{coin() ? -1 : pick(1, 2)});
      TermRef s = make(OpKind::Slice, attrs, {a}, "slice");
      if (pick(0, 2) != 0) return s;
      // Write a value of the slice's shape back (set or increment).
      TermRef v = make(OpKind::Neg, {}, {s}, "unary");
      if (a->tensor_type().dtype == DType::Bool) v = s;
      return make(coin() ? OpKind::SetSlice : OpKind::IncSlice, attrs, {a, v}, "set_slice");
    }
    default: {
      TermRef row = make(OpKind::Index, {}, {a, i}, "index");
      TermRef v = partner(pool, row, false);
      if (v->tensor_type().rank() > row->tensor_type().rank()) v = row;
      return make(coin() ? OpKind::SetIndex : OpKind::IncIndex, {},
                  {a, Term::scalar(DType::I64, pick(-n, n - 1)), v}, "set_index");
    }
  }
}
TermRef ProgramGenerator::creation(TermRef a) {
  const TensorType& t = a->tensor_type();
  switch (pick(0, 4)) {
    case 0:
      return make(coin() ? OpKind::ZerosLike : OpKind::OnesLike, {}, {a}, "creation");
    case 1:
    case 2: {
      IntList shape = coin() ? IntList{3} : IntList{2, 3};
      Attrs attrs{{AttrKey::Shape, shape}};
      if (coin()) attrs.set(AttrKey::Dtype, t.dtype == DType::Bool ? DType::F64 : t.dtype);
      const int k = pick(0, 2);
      if (k == 2)
        return make(OpKind::Full, attrs, {Term::scalar(DType::F64, literal_value())}, "creation");
      return make(k == 0 ? OpKind::Zeros : OpKind::Ones, attrs, {}, "creation");
    }
    default: {
      TermRef n = Term::scalar(DType::I64, pick(1, 4));
      TermRef r = make(OpKind::Arange, {{AttrKey::Dtype, DType::F64}}, {n}, "creation");
      return make(OpKind::Add, {}, {r, a}, "binary");
    }
  }
}
std::vector<ops::Array> random_inputs(const RandomCase& c, std::uint64_t seed, bool corners,
                                      bool special_values) {
  std::mt19937_64 rng(seed * 7919 + 1);
  static const double kSpecial[] = {0, 1, -1, 2, 40, -40, 800, -800, INFINITY, -INFINITY, NAN};
  const int specials = static_cast<int>(std::size(kSpecial)) - (corners ? 0 : 3);
  std::vector<ops::Array> out;
  for (std::size_t k = 0; k < c.graph.inputs.size(); ++k) {
    const DType d = c.graph.inputs[k]->tensor_type().dtype;
    ops::Array a(d, c.input_dims[k]);
    const bool positive = k % 2 == 1;
    std::uniform_real_distribution<double> u(positive ? 0.1 : -2, 2);
    std::uniform_int_distribution<int> special(0, 47);
    for (std::int64_t i = 0; i < a.size(); ++i)
      ops::visit_dtype(d, [&]<class T>(std::type_identity<T>) {
        const int s = special(rng);
        double v = u(rng);
        const bool plain = !special_values || (k < c.plain_input.size() && c.plain_input[k]);
        if (s < specials && std::is_floating_point_v<T> && !plain)
          v = positive ? std::abs(kSpecial[s]) : kSpecial[s];
        a.data<T>()[i] = static_cast<T>(std::is_same_v<T, bool> ? v > 0
                                        : std::is_integral_v<T> ? std::round(v * 2)
                                                                : v);
      });
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace eqsat::testing
