#include "rules/tensor/tensor_analysis.hpp"

#include "rules/tensor/const_fold.hpp"
#include "rules/tensor/op_symbols.hpp"
#include "rules/tensor/scalar_eval.hpp"
#include "support/internal_error.hpp"

#include "egraph/egraph.hpp"
#include "ops/run_time_failure.hpp"
#include "ops/slice.hpp"

#include <absl/container/inlined_vector.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace eqsat::rules {

using ops::OpKind;

namespace {

// Whether the run-time checks of `kind` compare lengths only as whole axes,
// so that equal dim symbols stand for equal lengths there: broadcasting
// (elementwise ops, broadcast_like), concat, and a write over whole axes
// (its region is the target's shape). A slice bound compares a length
// with a number, which a symbol cannot stand for.
bool checks_whole_lengths(OpKind kind, const ops::Attrs& attrs) {
  if (ops::is_elementwise(kind) || kind == OpKind::Concat || kind == OpKind::BroadcastLike)
    return true;
  if (kind != OpKind::SetSlice && kind != OpKind::IncSlice) return false;
  ops::SliceBounds b;
  if (attrs.has(ops::AttrKey::Start)) b.start = attrs.get<std::int64_t>(ops::AttrKey::Start);
  if (attrs.has(ops::AttrKey::Stop)) b.stop = attrs.get<std::int64_t>(ops::AttrKey::Stop);
  if (attrs.has(ops::AttrKey::Step)) b.step = attrs.get<std::int64_t>(ops::AttrKey::Step);
  return ops::selects_any_whole_axis(b, 1) || ops::selects_any_whole_axis(b, -1);
}

// Representatives prefer constants, then leaves, then the oldest term.
int rep_rank(ops::TermRef t) {
  if (t->kind() == OpKind::Const) return 0;
  return ops::op_info(t->kind()).group == ops::OpGroup::Leaf ? 1 : 2;
}

// Dimensions a type knows (over a tuple's elements).
int known_dims(const ops::Type& t) {
  int n = 0;
  auto count = [&](const ops::TensorType& x) {
    for (auto d : x.dims) n += d != ops::kUnknownDim;
  };
  if (auto* x = std::get_if<ops::TensorType>(&t))
    count(*x);
  else
    for (const auto& e : std::get<ops::TupleType>(t).elements) count(e);
  return n;
}

// Two types of one value: equal where both know a dimension.
bool compatible_types(const ops::Type& a, const ops::Type& b) {
  if (a.index() != b.index()) return false;
  if (auto* x = std::get_if<ops::TensorType>(&a)) return ops::compatible(*x, std::get<0>(b));
  const auto& xs = std::get<ops::TupleType>(a).elements;
  const auto& ys = std::get<ops::TupleType>(b).elements;
  if (xs.size() != ys.size()) return false;
  for (std::size_t i = 0; i < xs.size(); ++i)
    if (!ops::compatible(xs[i], ys[i])) return false;
  return true;
}

// The representative: the most precise type first (a class's type is
// refined when, say, a step count becomes a known constant), then
// constants, leaves, and the oldest term.
bool better_rep(ops::TermRef a, ops::TermRef b) {
  const int ka = known_dims(a->type()), kb = known_dims(b->type());
  if (ka != kb) return ka > kb;
  const int ra = rep_rank(a), rb = rep_rank(b);
  return ra != rb ? ra < rb : a->id() < b->id();
}

bool all_of_array(const ops::Array& a, bool (*pred)(double)) {
  for (std::int64_t i = 0; i < a.size(); ++i)
    if (!pred(a.element(i))) return false;
  return true;
}

// What the op alone says about the sign of its result, given its operands'
// (the catalogue's sign column), for a result of dtype `dtype`.
bool nonneg_of(OpKind k, std::span<const TensorData* const> xs, ops::DType dtype) {
  switch (ops::sign_rule(k)) {
    case ops::SignRule::NonNeg:
      return true;
    case ops::SignRule::IfFloat:
      return ops::is_float(dtype);
    case ops::SignRule::IfAll:
      return std::ranges::all_of(xs, [](auto* x) { return x->nonneg; });
    case ops::SignRule::IfAny:
      return std::ranges::any_of(xs, [](auto* x) { return x->nonneg; });
    case ops::SignRule::IfBranches:
      return xs[1]->nonneg && xs[2]->nonneg;
    case ops::SignRule::IfFirst:
      return xs[0]->nonneg;
    case ops::SignRule::AnySign:
      return false;
  }
  return false;
}

// The uniform value ("every element equals c") of an op's result read
// from its attributes or its operands' facts `xs`, with result dtype
// `dtype`: one way per row of kUniform.
using Operands = std::span<const TensorData* const>;
using UniformFrom = std::optional<double> (*)(const ops::Attrs&, Operands, ops::DType);

std::optional<double> const_uniform(const ops::Attrs& attrs, Operands, ops::DType) {
  return attrs.get<ops::Array>(ops::AttrKey::Value).uniform_value();
}
std::optional<double> zero(const ops::Attrs&, Operands, ops::DType) {
  return 0.0;
}
std::optional<double> one(const ops::Attrs&, Operands, ops::DType) {
  return 1.0;
}
// full: its fill value, in the result's dtype.
std::optional<double> fill_value(const ops::Attrs&, Operands xs, ops::DType dtype) {
  if (xs[0]->uniform) return convert_scalar(*xs[0]->uniform, dtype);
  return std::nullopt;
}
// max and min of uniform elements: that element.
std::optional<double> extremum(const ops::Attrs&, Operands xs, ops::DType) {
  return xs[0]->uniform;
}
// dim: a length the operand's type knows.
std::optional<double> known_length(const ops::Attrs& attrs, Operands xs, ops::DType) {
  if (!xs[0]->is_tensor()) return std::nullopt;
  const ops::Dims& dims = xs[0]->tensor_type().dims;
  const auto axis = static_cast<std::size_t>(attrs.get<std::int64_t>(ops::AttrKey::Axis));
  if (axis >= dims.size() || dims[axis] == ops::kUnknownDim) return std::nullopt;
  return static_cast<double>(dims[axis]);
}
// concat and stack: the one value every operand holds, in the result's dtype.
std::optional<double> common_value(const ops::Attrs&, Operands xs, ops::DType dtype) {
  std::optional<double> u;
  for (auto* x : xs) {
    if (!x->uniform) return std::nullopt;
    const double v = convert_scalar(*x->uniform, dtype);
    if (u && !(*u == v)) return std::nullopt;
    u = v;
  }
  return u;
}

// The ops whose uniform value is read from attributes or operands in a way
// of their own. The others: operand 0's when the op keeps its elements,
// the kernel on the operands' values for an elementwise op, else not known.
constexpr std::pair<OpKind, UniformFrom> kUniform[] = {
    {OpKind::Const, const_uniform}, {OpKind::Zeros, zero},
    {OpKind::ZerosLike, zero},      {OpKind::Ones, one},
    {OpKind::OnesLike, one},        {OpKind::Full, fill_value},
    {OpKind::Max, extremum},        {OpKind::Min, extremum},
    {OpKind::Dim, known_length},    {OpKind::Concat, common_value},
    {OpKind::Stack, common_value},
};

// "Every element equals c" for the result of an op whose operands' facts
// are `xs`, with result dtype `dtype`.
std::optional<double> uniform_of(OpKind k, const ops::Attrs& attrs, Operands xs, ops::DType dtype) {
  for (const auto& [kind, from] : kUniform)
    if (kind == k) return from(attrs, xs, dtype);
  if (ops::keeps_elements(k)) return xs[0]->uniform;
  if (!ops::is_elementwise(k)) return std::nullopt;
  std::vector<TypedScalar> args;
  for (auto* x : xs) {
    if (!x->uniform || !x->is_tensor()) return std::nullopt;
    args.push_back({x->tensor_type().dtype, *x->uniform});
  }
  return eval_scalar(k, args, dtype);
}

}  // namespace

TensorData TensorAnalysis::make(const egraph::EGraph&, const egraph::ENodeRef& n) {
  const auto kind = op_of_symbol(n.op);
  EQSAT_ASSERT(kind) << "tensor analysis: unknown op " << n.op.name();
  const ops::Attrs& attrs = payloads_.attrs(n.payload);
  // Per-operand lists held inline: an e-node has a few operands, and this
  // runs for every e-node added (malloc was a fifth of a large merge).
  absl::InlinedVector<const TensorData*, 4> xs;
  std::vector<ops::TermRef> reps;
  for (egraph::EClassId c : n.children) {
    xs.push_back(&data(c));
    reps.push_back(xs.back()->rep);
  }
  TensorData d;
  d.rep = ops::Term::make(*kind, attrs, std::move(reps));
  if (*kind == OpKind::Nominal) {
    d.free_nominals = {attrs.get<std::int64_t>(ops::AttrKey::Slot)};
  } else if (*kind != OpKind::Fn) {  // a body binds every nominal inside it
    for (auto* x : xs)
      d.free_nominals.insert(d.free_nominals.end(), x->free_nominals.begin(),
                             x->free_nominals.end());
    std::ranges::sort(d.free_nominals);
    d.free_nominals.erase(std::unique(d.free_nominals.begin(), d.free_nominals.end()),
                          d.free_nominals.end());
  }
  {
    absl::InlinedVector<const ops::Type*, 4> types;
    absl::InlinedVector<const ops::Array*, 4> values;
    for (auto* x : xs) {
      types.push_back(&x->type());
      values.push_back(x->value ? &*x->value : nullptr);
    }
    absl::InlinedVector<const std::vector<DimSymbol>*, 4> symbols;
    for (auto* x : xs) symbols.push_back(&x->dims);
    d.may_fail = std::ranges::any_of(xs, [](auto* x) { return x->may_fail; }) ||
                 ops::may_fail(*kind, attrs, types, values);
    // Operands whose unknown lengths are known equal broadcast (and concat).
    if (d.may_fail && checks_whole_lengths(*kind, attrs) &&
        std::ranges::none_of(xs, [](auto* x) { return x->may_fail; })) {
      const std::vector<ops::Type> known = with_symbolic_lengths(symbols, types);
      std::vector<const ops::Type*> known_types;
      for (const ops::Type& k : known) known_types.push_back(&k);
      d.may_fail = ops::may_fail(*kind, attrs, known_types, values);
    }
    if (d.is_tensor())
      d.dims = dim_symbols(*kind, attrs, symbols, types, d.tensor_type(), d.rep->id());
  }
  if (!d.is_tensor()) return d;
  const ops::TensorType& t = d.tensor_type();
  dtypes_made_ |= dtype_bit(t.dtype);
  if (*kind == OpKind::Const) {
    d.value = attrs.get<ops::Array>(ops::AttrKey::Value);
  } else if (!d.may_fail && t.is_static() && t.num_elements() <= kMaxFoldedElements &&
             !xs.empty() && std::ranges::all_of(xs, [](auto* x) { return x->value.has_value(); })) {
    absl::InlinedVector<const ops::Array*, 4> values;
    for (auto* x : xs) values.push_back(&*x->value);
    d.value = fold_constant(*kind, attrs, values, t);
  }
  if (!d.may_fail) d.uniform = uniform_of(*kind, attrs, xs, t.dtype);
  if (!d.uniform && d.value) d.uniform = d.value->uniform_value();
  if (!d.value && d.uniform && t.is_static() && t.num_elements() <= kMaxFoldedElements)
    d.value = ops::Array::filled(t.dtype, t.dims, *d.uniform);
  const bool integral = !ops::is_float(t.dtype);
  d.finite =
      integral || (d.value && all_of_array(*d.value, [](double v) { return std::isfinite(v); })) ||
      (d.uniform && std::isfinite(*d.uniform)) || (ops::keeps_elements(*kind) && xs[0]->finite);
  d.nonneg = t.dtype == ops::DType::Bool ||
             (d.value && all_of_array(*d.value, [](double v) { return !(v < 0); })) ||
             (d.uniform && !(*d.uniform < 0)) || nonneg_of(*kind, xs, t.dtype);
  return d;
}

egraph::DidMerge TensorAnalysis::merge(TensorData& a, TensorData b) {
  if (!a.rep) {  // the data of a class merged away
    const bool changed = b.rep != nullptr;
    a = std::move(b);
    return {changed, false};
  }
  if (!b.rep) return {false, true};
  EQSAT_ASSERT(compatible_types(a.type(), b.type()))
      << "tensor analysis: merging classes of types " << ops::to_string(a.type()) << " and "
      << ops::to_string(b.type());
  egraph::DidMerge d;
  // A new representative is a change of facts only when it refines the type.
  const bool refines_a = known_dims(b.type()) > known_dims(a.type());
  const bool refines_b = known_dims(a.type()) > known_dims(b.type());
  // The class's slots are those of one of its forms: the fewer, then the
  // first in order (a total order, so merging is a join). Not the
  // intersection: with one form reading slot 3 and another slot 4, no form
  // avoids both, and a body rebuilt on that claim reads a parameter it lost.
  // A representative reading only those slots comes first (the old one may
  // read a slot the class no longer claims), then fewer free nominals.
  // Taking a new one for that reason is a change, so parents rebuild theirs.
  const auto& sa = a.free_nominals;
  const auto& sb = b.free_nominals;
  const bool b_reads_less = sb.size() != sa.size() ? sb.size() < sa.size() : sb < sa;
  std::vector<std::int64_t> common = b_reads_less ? b.free_nominals : a.free_nominals;
  const auto& fa = a.rep->free_nominals();
  const auto& fb = b.rep->free_nominals();
  const bool va = std::ranges::includes(common, fa), vb = std::ranges::includes(common, fb);
  // A closed representative (no graph input) comes first of all: it can
  // stand for the class inside a body too.
  const bool ia = a.rep->uses_input(), ib = b.rep->uses_input();
  const bool b_first = ia != ib                 ? ia
                       : va != vb               ? vb
                       : fb.size() != fa.size() ? fb.size() < fa.size()
                                                : better_rep(b.rep, a.rep);
  const bool for_nominals = ia != ib || va != vb || fb.size() != fa.size();
  if (b_first) a.rep = b.rep;
  // A closed representative chosen against the slots: the class claims its
  // side's slots instead, so that no body is rebuilt over a slot the
  // representative reads.
  if (!(b_first ? vb : va)) common = b_first ? b.free_nominals : a.free_nominals;
  d.a_changed |= refines_a || (b_first && for_nominals);
  d.b_changed |= refines_b || (!b_first && for_nominals);
  auto take = [&](auto& x, auto& y) {
    if (!x && y) {
      x = std::move(y);
      d.a_changed = true;
    } else if (x && !y) {
      d.b_changed = true;
    }
  };
  take(a.value, b.value);
  take(a.uniform, b.uniform);
  d.a_changed |= common.size() != a.free_nominals.size();
  d.b_changed |= common.size() != b.free_nominals.size();
  a.free_nominals = std::move(common);
  for (auto [x, y] : {std::pair{&a.finite, b.finite}, std::pair{&a.nonneg, b.nonneg}}) {
    d.a_changed |= !*x && y;
    d.b_changed |= *x && !y;
    *x = *x || y;
  }
  d.a_changed |= a.may_fail && !b.may_fail;
  d.b_changed |= !a.may_fail && b.may_fail;
  a.may_fail = a.may_fail && b.may_fail;
  return d;
}

egraph::Symbol constant_fold_reason() {
  static const egraph::Symbol s("constant-fold");
  return s;
}

void TensorAnalysis::modify(egraph::EGraph& g, egraph::EClassId c) {
  const TensorData& d = data(c);
  if (d.is_tensor() && d.uniform && d.tensor_type().rank() > 0 && d.tensor_type().is_static()) {
    // One canonical form for every uniform array of static shape (ones_like,
    // zeros, full, uniform constants...): a scalar broadcast to the shape.
    // A dense constant is hidden, so it is never extracted nor printed.
    const ops::TensorType t = d.tensor_type();
    const ops::TermRef scalar = ops::Term::scalar(t.dtype, *d.uniform);
    const egraph::EClassId s =
        g.add(op_symbol(OpKind::Const), payloads_.intern(scalar->attrs()), {});
    const ops::TermRef b = ops::Term::make(
        OpKind::BroadcastTo, ops::Attrs{{ops::AttrKey::Shape, ops::IntList(t.dims)}}, {scalar});
    g.merge(c, g.add(op_symbol(OpKind::BroadcastTo), payloads_.intern(b->attrs()), {s}),
            constant_fold_reason());
    const egraph::Symbol constant = op_symbol(OpKind::Const);
    g.prune(c, [&](const egraph::ENodeRef& n) { return n.op != constant; });
    return;
  }
  if (!d.value || d.rep->kind() == OpKind::Const) return;
  const egraph::Payload p = payloads_.intern(ops::Attrs{{ops::AttrKey::Value, *d.value}});
  const egraph::EClassId k = g.add(op_symbol(OpKind::Const), p, {});
  g.merge(c, k, constant_fold_reason());
}

bool same_length(const TensorData& a, std::size_t i, const TensorData& b, std::size_t j) {
  const ops::Dims& da = a.tensor_type().dims;
  const ops::Dims& db = b.tensor_type().dims;
  if (da[i] != ops::kUnknownDim || db[j] != ops::kUnknownDim) return da[i] == db[j];
  return i < a.dims.size() && j < b.dims.size() && a.dims[i].known() && a.dims[i] == b.dims[j];
}

bool broadcasts_to(const TensorData& a, const TensorData& b) {
  const ops::Dims& da = a.tensor_type().dims;
  const ops::Dims& db = b.tensor_type().dims;
  if (da.size() > db.size()) return false;
  const std::size_t off = db.size() - da.size();
  for (std::size_t i = 0; i < da.size(); ++i)
    if (da[i] != 1 && !same_length(a, i, b, off + i)) return false;
  return true;
}

}  // namespace eqsat::rules
