#include "rules/lang/rule_check.hpp"

#include "rules/lang/predicate_eval.hpp"
#include "rules/tensor/tensor_egraph.hpp"

#include "backend/program.hpp"
#include "backend/runtime_error.hpp"
#include "ops/attr_schema.hpp"
#include "ops/type_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <random>

namespace eqsat::rules {

using ast::Condition;
using ast::ConditionArg;
using ast::Pattern;
using ast::Rewrite;
using ops::Array;
using ops::AttrKey;
using ops::AttrValue;
using ops::DType;
using ops::TermRef;

namespace {

using Rng = std::mt19937_64;
using Bindings = std::vector<std::pair<TermRef, Array>>;

const std::vector<ops::Dims> kShapes = {{}, {3}, {1}, {2, 3}, {3, 3}, {1, 3}, {2, 1}, {2, 3, 3}};
const std::vector<DType> kDtypes = {DType::F64, DType::F64, DType::F64, DType::F32,
                                    DType::I64, DType::I32, DType::Bool};

// Which operands an instance draws: finite ones, with values whose exp
// overflows (a left side that overflows there is a stabilization), or the
// IEEE corners ±∞, NaN, −0 with no value that overflows, where both sides
// must agree exactly (docs/architecture.md decision 13).
enum class Draw { Finite, Corners };

// A float operand element; `ieee`: a corner (half the elements) or an
// ordinary number.
double random_float(Rng& rng, bool ieee) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  static const double finite[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 800, -800};
  static const double special[] = {
      0.0, -0.0, 1.0, -1.0, inf, -inf, std::numeric_limits<double>::quiet_NaN()};
  if (std::uniform_int_distribution<int>(0, ieee ? 1 : 4)(rng) != 0)
    return std::uniform_real_distribution<double>(-3, 3)(rng);
  if (ieee)
    return special[std::uniform_int_distribution<std::size_t>(0, std::size(special) - 1)(rng)];
  return finite[std::uniform_int_distribution<std::size_t>(0, std::size(finite) - 1)(rng)];
}

// An integer operand element; `extremes`: sometimes one that wraps (an
// overflow value, so drawn in finite instances only).
double random_int(Rng& rng, DType d, bool extremes) {
  if (std::uniform_int_distribution<int>(0, 19)(rng) == 0 && extremes) {
    const bool wide = d == DType::I64;
    const double big = wide ? 9.2e18 : 2147483647.0;
    return std::uniform_int_distribution<int>(0, 1)(rng) ? big : -big;
  }
  return std::uniform_int_distribution<int>(-5, 5)(rng);
}

// A random operand value. Drawing corners, half the arrays hold ordinary
// numbers only, so that a corner meets finite values too.
Array random_array(const ops::TensorType& t, Rng& rng, Draw draw) {
  Array a(t.dtype, t.dims);
  const bool corners = std::uniform_int_distribution<int>(0, 1)(rng) == 0;
  for (std::int64_t i = 0; i < a.size(); ++i) {
    const bool ordinary = draw == Draw::Corners && !corners;
    const double v = t.dtype == DType::Bool   ? std::uniform_int_distribution<int>(0, 1)(rng)
                     : ordinary               ? std::uniform_real_distribution<double>(-3, 3)(rng)
                     : ops::is_float(t.dtype) ? random_float(rng, draw == Draw::Corners)
                                              : random_int(rng, t.dtype, draw == Draw::Finite);
    ops::visit_dtype(t.dtype, [&]<class T>(std::type_identity<T>) {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
        a.data<T>()[i] = v >= 9e18    ? std::numeric_limits<T>::max()
                         : v <= -9e18 ? std::numeric_limits<T>::min()
                                      : static_cast<T>(v);
      else
        a.data<T>()[i] = static_cast<T>(v);
    });
  }
  return a;
}

Array identity_matrix(DType d, std::int64_t n) {
  Array a(d, {n, n});
  for (std::int64_t i = 0; i < n; ++i)
    ops::visit_dtype(d, [&]<class T>(std::type_identity<T>) { a.data<T>()[i * n + i] = T(1); });
  return a;
}

// What a rule's conditions ask of one variable, to steer its operands
// towards instances that meet them.
enum class Wish { None, Identity, Constant, Nonneg, Zero, Index };

Wish wish_for(const std::string& var, const std::vector<Condition>& conditions) {
  for (const Condition& c : conditions) {
    if (c.args.empty() || c.args[0].var != var) continue;
    switch (c.predicate) {
      case Predicate::Identity:
        return Wish::Identity;
      case Predicate::Zero:
        return Wish::Zero;
      case Predicate::Const:
      case Predicate::Uniform:
      case Predicate::Finite:
      case Predicate::Nonzero:
      case Predicate::Positive:
        return Wish::Constant;
      case Predicate::InBounds:
        return Wish::Index;
      case Predicate::Nonneg:
        return Wish::Nonneg;
      case Predicate::SameType:
      case Predicate::SameDtype:
      case Predicate::BroadcastsTo:
      case Predicate::Ndim:
      case Predicate::NdimAtLeast:
      case Predicate::Scalar:
      case Predicate::ShapeKnown:
      case Predicate::Float:
      case Predicate::Integer:
      case Predicate::Dtype:
      case Predicate::Closed:
        break;  // about types (meet_type_conditions) or nothing to steer
    }
  }
  return Wish::None;
}

// `dims` when of rank `rank`, else a shape of that rank drawn from
// kShapes (twos beyond the ranks it holds).
ops::Dims shape_of_rank(std::int64_t rank, const ops::Dims& dims, Rng& rng) {
  if (static_cast<std::int64_t>(dims.size()) == rank) return dims;
  std::vector<ops::Dims> fits;
  for (const ops::Dims& d : kShapes)
    if (static_cast<std::int64_t>(d.size()) == rank) fits.push_back(d);
  if (fits.empty()) return ops::Dims(static_cast<std::size_t>(std::max<std::int64_t>(rank, 0)), 2);
  return fits[std::uniform_int_distribution<std::size_t>(0, fits.size() - 1)(rng)];
}

// `t` changed to meet the rule's conditions on the rank and dtype of
// variable `var`: drawn independently, the operands of a rule such as
// (dot (inc_index ?z ?i ?s) ?b) with a vector ?z, an integer scalar ?i, a
// scalar ?s and a matrix ?b would almost never type-check together.
ops::TensorType meet_type_conditions(const std::string& var,
                                     const std::vector<Condition>& conditions, ops::TensorType t,
                                     Rng& rng) {
  for (const Condition& c : conditions) {
    if (c.args.empty() || c.args[0].var != var) continue;
    switch (c.predicate) {
      case Predicate::Ndim:
        t.dims = shape_of_rank(c.args.at(1).int_value, t.dims, rng);
        break;
      case Predicate::NdimAtLeast:
        if (t.rank() < c.args.at(1).int_value)
          t.dims = shape_of_rank(c.args.at(1).int_value, t.dims, rng);
        break;
      case Predicate::Scalar:
        t.dims = {};
        break;
      case Predicate::Float:
        if (!ops::is_float(t.dtype)) t.dtype = DType::F64;
        break;
      case Predicate::Integer:
        if (!ops::is_integer(t.dtype)) t.dtype = DType::I64;
        break;
      case Predicate::Dtype:
        t.dtype = c.args.at(1).dtype;
        break;
      case Predicate::Const:
      case Predicate::Uniform:
      case Predicate::Finite:
      case Predicate::Nonzero:
      case Predicate::Zero:
      case Predicate::Positive:
      case Predicate::Nonneg:
      case Predicate::Identity:
      case Predicate::SameType:
      case Predicate::SameDtype:
      case Predicate::BroadcastsTo:
      case Predicate::ShapeKnown:
      case Predicate::Closed:
      case Predicate::InBounds:
        break;  // about values (wish_for) or several variables
    }
  }
  return t;
}

// A random operand for variable `name`: an input, the absolute value of
// one, a random constant, an identity matrix, or zeros; half the time what the
// rule's conditions on it wish for.
TermRef random_operand(const std::string& name, ops::TensorType t, Wish wish, Draw draw,
                       bool prefer_inputs, Rng& rng, Bindings& inputs) {
  int kind = std::uniform_int_distribution<int>(0, 19)(rng);
  if (prefer_inputs) kind = 0;  // an input, unless the wish below is followed
  // Zeros always: no other operand meets the condition.
  if (wish == Wish::Zero) return ops::Term::constant(ops::Array::filled(t.dtype, t.dims, 0));
  // An index always a small constant, which the leading axes drawn (2 or
  // more long) mostly hold: random integers almost never fall in range.
  if (wish == Wish::Index)
    return ops::Term::scalar(DType::I64, std::uniform_int_distribution<int>(-2, 2)(rng));
  if (std::uniform_int_distribution<int>(0, 1)(rng) == 0) {
    if (wish == Wish::Identity) {
      t.dims = {t.dims.empty() ? 3 : t.dims.back(), t.dims.empty() ? 3 : t.dims.back()};
      kind = 19;
    } else if (wish == Wish::Constant) {
      kind = 12;
    } else if (wish == Wish::Nonneg) {
      kind = 8;
    }
  }
  const bool square = t.rank() == 2 && t.dims[0] == t.dims[1];
  if (kind >= 18 && square && t.dtype != DType::Bool)
    return ops::Term::constant(identity_matrix(t.dtype, t.dims[0]));
  if (kind >= 12) return ops::Term::constant(random_array(t, rng, draw));
  TermRef x = ops::Term::input(name.substr(1), t);
  // At the corners, a third of the inputs repeat an earlier input's values
  // (as another input), so that corners meet: a = b = −∞ in eᵃ − eᵇ.
  if (draw == Draw::Corners && std::uniform_int_distribution<int>(0, 2)(rng) == 0)
    for (const auto& [earlier, value] : inputs)
      if (value.type() == t) {
        inputs.push_back({x, value.clone()});
        return kind >= 8 && t.dtype != DType::Bool ? ops::Term::make(ops::OpKind::Abs, {}, {x}) : x;
      }
  inputs.push_back({x, random_array(t, rng, draw)});
  if (kind >= 8 && t.dtype != DType::Bool) return ops::Term::make(ops::OpKind::Abs, {}, {x});
  return x;
}

// A random value for attribute `key`, by its type in the schema
// (ops/attr_schema.hpp): one axis or several, a flag, a dtype, a shape (or
// a permutation for :perm, the one list that is not a shape), a small
// integer. Types with no literal form are never variables of a rule.
template <class T>
AttrValue random_value(AttrKey key, Rng& rng) {
  auto pick = [&](std::initializer_list<AttrValue> xs) {
    return *(xs.begin() + std::uniform_int_distribution<std::size_t>(0, xs.size() - 1)(rng));
  };
  using L = ops::IntList;
  if constexpr (std::is_same_v<T, ops::AxisAttr>)
    return pick({std::int64_t{0}, std::int64_t{1}, std::int64_t{-1}, L{0}, L{1}, L{0, 1}});
  else if constexpr (std::is_same_v<T, bool>)
    return pick({true, false});
  else if constexpr (std::is_same_v<T, DType>)
    return pick({DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64});
  else if constexpr (std::is_same_v<T, L>)
    return key == AttrKey::Perm ? pick({L{1, 0}, L{0, 2, 1}, L{2, 1, 0}, L{1, 0, 2}})
                                : pick({L{-1}, L{1, -1}, L{-1, 1}, L{3, -1}, L{2, 3}, L{3, 3}});
  else
    return pick({std::int64_t{0}, std::int64_t{1}, std::int64_t{-1}, std::int64_t{2}});
}

template <std::size_t... I>
AttrValue random_attr(AttrKey key, Rng& rng, std::index_sequence<I...>) {
  using Draw = AttrValue (*)(AttrKey, Rng&);
  static constexpr std::array<Draw, sizeof...(I)> kDraw{&random_value<ops::AttrType<I>>...};
  return kDraw[static_cast<std::size_t>(key)](key, rng);
}

AttrValue random_attr(AttrKey key, Rng& rng) {
  return random_attr(key, rng, std::make_index_sequence<ops::kNumAttrKeys>());
}

// One random instance of a rewrite's variables.
struct Instance {
  std::map<std::string, TermRef> terms;
  std::map<std::string, AttrValue> attrs;
  Bindings inputs;
};

void collect(const Pattern& p, std::map<std::string, AttrKey>& attr_vars,
             std::vector<std::string>& term_vars) {
  if (p.kind == Pattern::Kind::Var && std::ranges::find(term_vars, p.var) == term_vars.end())
    term_vars.push_back(p.var);
  for (const auto& a : p.attrs)
    if (a.is_var()) attr_vars.emplace(a.var, a.key);
  for (const auto& c : p.children) collect(c, attr_vars, term_vars);
}

// The term `p` stands for in `inst`; throws ops::TypeError when ill-typed.
TermRef build(const Pattern& p, const Instance& inst, std::optional<DType> meet) {
  switch (p.kind) {
    case Pattern::Kind::Var:
      return inst.terms.at(p.var);
    case Pattern::Kind::Number:
    case Pattern::Kind::Bool:
      return ops::Term::scalar(literal_dtype(p, meet), p.number);
    case Pattern::Kind::Op:
      break;
  }
  std::vector<TermRef> kids(p.children.size(), nullptr);
  std::optional<DType> sibling;
  for (std::size_t i = 0; i < p.children.size(); ++i) {
    const Pattern& c = p.children[i];
    if (c.kind == Pattern::Kind::Number || c.kind == Pattern::Kind::Bool) continue;
    kids[i] = build(c, inst, std::nullopt);
    if (!sibling && !kids[i]->is_tuple()) sibling = kids[i]->tensor_type().dtype;
  }
  for (std::size_t i = 0; i < p.children.size(); ++i)
    if (!kids[i]) kids[i] = build(p.children[i], inst, sibling ? sibling : meet);
  ops::Attrs attrs;
  for (const auto& a : p.attrs) attrs.set(a.key, a.is_var() ? inst.attrs.at(a.var) : a.value);
  return ops::Term::make(p.op, std::move(attrs), std::move(kids));
}

bool conditions_hold(const std::vector<Condition>& conditions, TermRef lhs, const Instance& inst) {
  if (conditions.empty()) return true;
  TensorEGraph g;
  g.add_term(lhs);
  std::map<std::string, egraph::EClassId> cls;
  for (const auto& [name, t] : inst.terms) cls.emplace(name, g.add_term(t));
  g.egraph().rebuild();
  std::vector<PredicateArg> args;
  for (const Condition& c : conditions) {
    args.clear();
    for (const ConditionArg& a : c.args)
      args.push_back({a.kind == ConditionArg::Kind::Var ? cls.at(a.var) : egraph::EClassId{},
                      a.int_value, a.dtype});
    if (!evaluate(c.predicate, args, g)) return false;
  }
  return true;
}

// `stabilizing`: the operands are finite and one may overflow, so a left
// side that is not finite is an overflow the right side avoids.
bool agree(double a, double b, DType d, bool stabilizing) {
  if (std::isnan(a) && std::isnan(b)) return true;
  if (a == b) return true;
  if (!ops::is_float(d)) return false;
  if (stabilizing && !std::isfinite(a) && std::isfinite(b)) return true;
  // NaN from finite operands is an overflow too (∞ − ∞): the left side
  // has no value there to compare with (log(eᵃ − eᵃ) at a = 800 is −∞).
  if (stabilizing && std::isnan(a)) return true;
  const double tol = d == DType::F32 ? 1e-3 : 1e-6;
  return std::abs(a - b) <= tol + tol * std::max(std::abs(a), std::abs(b));
}

std::string values(const Array& a) {
  std::vector<double> v;
  for (std::int64_t i = 0; i < a.size() && i < 12; ++i) v.push_back(a.element(i));
  return fmt::format("{} [{}{}]", ops::to_string(a.type()), fmt::join(v, " "),
                     a.size() > 12 ? " ..." : "");
}

std::string attr_text(const AttrValue& v) {
  if (auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (auto* d = std::get_if<DType>(&v)) return std::string(ops::dtype_name(*d));
  if (auto* l = std::get_if<ops::IntList>(&v)) return fmt::format("({})", fmt::join(*l, " "));
  return "?";
}

// A random instance of `from → to` whose sides type-check with one type and
// meet the rule's conditions, or nullopt.
struct Sides {
  Instance inst;
  TermRef lhs, rhs;
};
std::optional<Sides> random_sides(const Rewrite& r, const Pattern& from, const Pattern& to,
                                  const RuleCheckOptions& options, Draw draw, Rng& rng) {
  std::map<std::string, AttrKey> attr_vars;
  std::vector<std::string> term_vars;
  collect(from, attr_vars, term_vars);
  Instance inst;
  // Half the time every operand has the first one's shape, so that
  // elementwise rules with several operands type-check often.
  const bool same_shape = std::uniform_int_distribution<int>(0, 1)(rng) == 0;
  const auto& shape0 =
      kShapes[std::uniform_int_distribution<std::size_t>(0, kShapes.size() - 1)(rng)];
  const DType dtype0 =
      kDtypes[std::uniform_int_distribution<std::size_t>(0, kDtypes.size() - 1)(rng)];
  for (const auto& v : term_vars) {
    ops::TensorType t{dtype0, shape0};
    if (!same_shape)
      t.dims = kShapes[std::uniform_int_distribution<std::size_t>(0, kShapes.size() - 1)(rng)];
    if (std::uniform_int_distribution<int>(0, 3)(rng) == 0)
      t.dtype = kDtypes[std::uniform_int_distribution<std::size_t>(0, kDtypes.size() - 1)(rng)];
    t = meet_type_conditions(v, r.conditions, t, rng);
    inst.terms.emplace(v, random_operand(v, t, wish_for(v, r.conditions), draw,
                                         options.prefer_inputs, rng, inst.inputs));
  }
  for (const auto& [v, key] : attr_vars) inst.attrs.emplace(v, random_attr(key, rng));
  TermRef lhs, rhs;
  try {
    lhs = build(from, inst, std::nullopt);
  } catch (const ops::TypeError&) {
    return std::nullopt;
  }
  if (lhs->is_tuple() || !conditions_hold(r.conditions, lhs, inst)) return std::nullopt;
  try {
    rhs = build(to, inst, lhs->tensor_type().dtype);
  } catch (const ops::TypeError&) {
    return std::nullopt;  // typed rewriting refuses it
  }
  if (rhs->type() != lhs->type()) return std::nullopt;
  return Sides{std::move(inst), lhs, rhs};
}

// Checks `from → to`; adds to `verdict`. `options.attempts` finite
// instances, and as many at the IEEE corners, for every rule. Stops at the first counter-example,
// except that a `:domain finite` rule failing at a corner is FiniteOnly and its finite instances go
// on being checked.
void check_direction(const Rewrite& r, const Pattern& from, const Pattern& to,
                     const RuleCheckOptions& options, Rng& rng, RuleVerdict& verdict) {
  for (std::size_t attempt = 0; attempt < 2 * options.attempts; ++attempt) {
    if (options.before_attempt) options.before_attempt();
    const Draw draw = attempt % 2 == 1 ? Draw::Corners : Draw::Finite;
    if (draw == Draw::Corners && verdict.kind == RuleVerdict::Kind::FiniteOnly) continue;
    auto sides = random_sides(r, from, to, options, draw, rng);
    if (!sides) continue;
    const Instance& inst = sides->inst;
    const TermRef lhs = sides->lhs, rhs = sides->rhs;
    std::vector<TermRef> terms = {lhs, rhs};
    for (const auto& [v, t] : inst.terms) terms.push_back(t);
    std::vector<Array> out;
    try {
      out = backend::evaluate(terms, inst.inputs);
    } catch (const backend::RuntimeError&) {
      continue;  // e.g. a shape the static types could not rule out
    }
    ++verdict.instances;
    const Array &a = out[0], &b = out[1];
    // A stabilization: finite operands, one of which may overflow (|v| ≥
    // 100 in exp, a power...). Without such a value a NaN or ∞ on the left
    // is a domain error or a pole, and the right side must give it too.
    bool finite_operands = draw == Draw::Finite, may_overflow = false;
    for (std::size_t k = 2; k < out.size(); ++k)
      for (std::int64_t i = 0; i < out[k].size(); ++i) {
        finite_operands = finite_operands && std::isfinite(out[k].element(i));
        may_overflow = may_overflow || std::abs(out[k].element(i)) >= 100;
      }
    const bool stabilizing = finite_operands && may_overflow;
    std::int64_t bad = a.shape() == b.shape() ? -1 : 0;
    for (std::int64_t i = 0; bad < 0 && i < a.size(); ++i)
      if (!agree(a.element(i), b.element(i), a.dtype(), stabilizing)) bad = i;
    if (bad < 0) continue;
    std::string text;
    std::size_t k = 2;
    for (const auto& [v, t] : inst.terms) text += fmt::format("{} = {}; ", v, values(out[k++]));
    for (const auto& [v, value] : inst.attrs) text += fmt::format("{} = {}; ", v, attr_text(value));
    text += fmt::format("left {} gives {}, right {} gives {}", to_string(from), values(a),
                        to_string(to), values(b));
    if (a.shape() == b.shape())
      text += fmt::format("; element {} differs: {} and {}", bad, a.element(bad), b.element(bad));
    verdict.counterexample = std::move(text);
    if (draw == Draw::Corners && r.finite_domain) {
      verdict.kind = RuleVerdict::Kind::FiniteOnly;
      continue;
    }
    verdict.kind = RuleVerdict::Kind::Unsound;
    return;
  }
}

}  // namespace

RuleVerdict check_rule(const Rewrite& rule, const RuleCheckOptions& options) {
  Rng rng(options.seed);
  RuleVerdict verdict;
  check_direction(rule, rule.lhs, rule.rhs, options, rng, verdict);
  if (rule.bidirectional && verdict.kind != RuleVerdict::Kind::Unsound)
    check_direction(rule, rule.rhs, rule.lhs, options, rng, verdict);
  if (verdict.kind == RuleVerdict::Kind::Untested && verdict.instances > 0)
    verdict.kind = RuleVerdict::Kind::Sound;
  return verdict;
}

std::vector<ops::Graph> left_side_instances(const Rewrite& rule, bool reverse, std::size_t count,
                                            const RuleCheckOptions& options) {
  Rng rng(options.seed);
  std::vector<ops::Graph> out;
  const Pattern& from = reverse ? rule.rhs : rule.lhs;
  const Pattern& to = reverse ? rule.lhs : rule.rhs;
  for (std::size_t attempt = 0; attempt < options.attempts && out.size() < count; ++attempt) {
    auto sides = random_sides(rule, from, to, options, Draw::Finite, rng);
    if (!sides) continue;
    ops::Graph g;
    for (const auto& [input, value] : sides->inst.inputs)
      if (std::ranges::find(g.inputs, input) == g.inputs.end()) g.inputs.push_back(input);
    g.outputs.push_back({"out0", sides->lhs});
    out.push_back(std::move(g));
  }
  return out;
}

std::string_view to_string(RuleVerdict::Kind kind) {
  switch (kind) {
    case RuleVerdict::Kind::Sound:
      return "sound";
    case RuleVerdict::Kind::Unsound:
      return "unsound";
    case RuleVerdict::Kind::FiniteOnly:
      return "finite only";
    case RuleVerdict::Kind::Untested:
      break;
  }
  return "untested";
}

}  // namespace eqsat::rules
