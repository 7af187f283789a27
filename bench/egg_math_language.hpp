// egg's math language (tests/math.rs) on eqsat::egraph: the operators, a
// syntax that reads numbers as `num` leaves (payload: the double's bits)
// and other leaves as `sym` (payload: the interned name), the
// constant-folding analysis with egg's pruning, the conditions and the
// rules, written to be the same as egg's so e-node counts compare.
#pragma once

#include "egg_rule_maker.hpp"

#include "egraph/analysis_of.hpp"
#include "egraph/rewrite.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::bench::math {

using namespace eqsat::egraph;

inline const Symbol kD("d"), kI("i"), kAdd("+"), kSub("-"), kMul("*"), kDiv("/"), kPow("pow"),
    kLn("ln"), kSqrt("sqrt"), kSin("sin"), kCos("cos"), kNum("num"), kSym("sym");

// A number's payload: its bits, with -0.0 read as 0.0 (egg's NotNan
// compares them equal).
inline Payload number_payload(double v) {
  return std::bit_cast<Payload>(v == 0.0 ? 0.0 : v);
}
inline double payload_number(Payload p) {
  return std::bit_cast<double>(p);
}

inline const Syntax& syntax() {
  static const Syntax s{
      [](std::string_view atom, bool is_leaf) -> std::optional<Head> {
        if (!is_leaf) return std::nullopt;
        double v = 0;
        auto [end, ec] = std::from_chars(atom.data(), atom.data() + atom.size(), v);
        if (ec == std::errc() && end == atom.data() + atom.size()) {
          return Head{kNum, number_payload(v)};
        }
        return Head{kSym, Symbol(atom).id()};
      },
      [](Symbol op, Payload p) -> std::optional<std::string> {
        if (op == kNum) {
          char buf[32];
          auto [end, ec] = std::to_chars(buf, buf + sizeof buf, payload_number(p));
          return std::string(buf, end);
        }
        if (op == kSym) return std::string(Symbol::from_id(static_cast<std::uint32_t>(p)).name());
        return std::nullopt;
      }};
  return s;
}

// An optional double in 8 bytes (the analysis keeps one per class id):
// "no value" is a signalling-NaN bit pattern that arithmetic never yields
// (it returns quiet NaNs); a value with that very pattern is stored quieted.
class MaybeNumber {
 public:
  MaybeNumber() = default;
  MaybeNumber(std::nullopt_t) {}
  MaybeNumber(double v) : bits_(std::bit_cast<std::uint64_t>(v)) {
    if (bits_ == kNone) bits_ |= kQuiet;
  }
  bool has_value() const { return bits_ != kNone; }
  explicit operator bool() const { return has_value(); }
  double operator*() const { return std::bit_cast<double>(bits_); }

 private:
  static constexpr std::uint64_t kNone = 0x7ff0'0000'0000'0001, kQuiet = 1ull << 51;
  std::uint64_t bits_ = kNone;
};

// egg's ConstantFold: the value of constant subterms; a class with a value
// gets the literal and loses its non-leaf e-nodes (egg's pruning).
class ConstantFold : public AnalysisOf<ConstantFold, MaybeNumber> {
 public:
  MaybeNumber make(const EGraph&, const ENodeRef& n) {
    if (n.op == kNum) return payload_number(n.payload);
    if (n.children.size() != 2) return std::nullopt;
    const MaybeNumber &a = data(n.children[0]), &b = data(n.children[1]);
    if (!a || !b) return std::nullopt;
    if (n.op == kAdd) return *a + *b;
    if (n.op == kSub) return *a - *b;
    if (n.op == kMul) return *a * *b;
    if (n.op == kDiv && *b != 0.0) return *a / *b;
    return std::nullopt;
  }
  DidMerge merge(MaybeNumber& a, MaybeNumber b) {
    if (!a && b) {
      a = b;
      return {true, false};
    }
    return {false, a && !b};
  }
  void modify(EGraph& g, EClassId c) {
    MaybeNumber v = data(c);
    if (!v) return;
    g.merge(c, g.add(kNum, number_payload(*v)));
    g.prune(c, [](const ENodeRef& n) { return n.is_leaf(); });
  }
};

inline bool has_sym(const EGraph& g, EClassId c) {
  for (ENodeId n : g.nodes(c)) {
    if (g.op(n) == kSym) return true;
  }
  return false;
}

inline Condition is_not_zero(const char* var) {
  return [v = Symbol(var)](const EGraph& g, EClassId, const Subst& s) {
    const MaybeNumber& d = g.analysis<ConstantFold>().data(s.get(v));
    return !d || *d != 0.0;
  };
}
inline Condition is_const(const char* var) {
  return [v = Symbol(var)](const EGraph& g, EClassId, const Subst& s) {
    return g.analysis<ConstantFold>().data(s.get(v)).has_value();
  };
}
inline Condition is_sym(const char* var) {
  return
      [v = Symbol(var)](const EGraph& g, EClassId, const Subst& s) { return has_sym(g, s.get(v)); };
}
inline Condition is_const_or_distinct_var(const char* var, const char* other) {
  return [v = Symbol(var), w = Symbol(other)](const EGraph& g, EClassId, const Subst& s) {
    EClassId cv = g.find(s.get(v)), cw = g.find(s.get(w));
    return cv != cw && (g.analysis<ConstantFold>().data(cv).has_value() || has_sym(g, cv));
  };
}

// The rules of egg's tests/math.rs, in the same order.
inline std::vector<Rewrite> rules() {
  const RuleMaker rw{syntax()};
  return {
      rw("comm-add", "(+ ?a ?b)", "(+ ?b ?a)"),
      rw("comm-mul", "(* ?a ?b)", "(* ?b ?a)"),
      rw("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)"),
      rw("assoc-mul", "(* ?a (* ?b ?c))", "(* (* ?a ?b) ?c)"),
      rw("sub-canon", "(- ?a ?b)", "(+ ?a (* -1 ?b))"),
      rw("div-canon", "(/ ?a ?b)", "(* ?a (pow ?b -1))", {is_not_zero("?b")}),
      rw("zero-add", "(+ ?a 0)", "?a"),
      rw("zero-mul", "(* ?a 0)", "0"),
      rw("one-mul", "(* ?a 1)", "?a"),
      rw("add-zero", "?a", "(+ ?a 0)"),
      rw("mul-one", "?a", "(* ?a 1)"),
      rw("cancel-sub", "(- ?a ?a)", "0"),
      rw("cancel-div", "(/ ?a ?a)", "1", {is_not_zero("?a")}),
      rw("distribute", "(* ?a (+ ?b ?c))", "(+ (* ?a ?b) (* ?a ?c))"),
      rw("factor", "(+ (* ?a ?b) (* ?a ?c))", "(* ?a (+ ?b ?c))"),
      rw("pow-mul", "(* (pow ?a ?b) (pow ?a ?c))", "(pow ?a (+ ?b ?c))"),
      rw("pow0", "(pow ?x 0)", "1", {is_not_zero("?x")}),
      rw("pow1", "(pow ?x 1)", "?x"),
      rw("pow2", "(pow ?x 2)", "(* ?x ?x)"),
      rw("pow-recip", "(pow ?x -1)", "(/ 1 ?x)", {is_not_zero("?x")}),
      rw("recip-mul-div", "(* ?x (/ 1 ?x))", "1", {is_not_zero("?x")}),
      rw("d-variable", "(d ?x ?x)", "1", {is_sym("?x")}),
      rw("d-constant", "(d ?x ?c)", "0", {is_sym("?x"), is_const_or_distinct_var("?c", "?x")}),
      rw("d-add", "(d ?x (+ ?a ?b))", "(+ (d ?x ?a) (d ?x ?b))"),
      rw("d-mul", "(d ?x (* ?a ?b))", "(+ (* ?a (d ?x ?b)) (* ?b (d ?x ?a)))"),
      rw("d-sin", "(d ?x (sin ?x))", "(cos ?x)"),
      rw("d-cos", "(d ?x (cos ?x))", "(* -1 (sin ?x))"),
      rw("d-ln", "(d ?x (ln ?x))", "(/ 1 ?x)", {is_not_zero("?x")}),
      rw("d-power", "(d ?x (pow ?f ?g))",
         "(* (pow ?f ?g) (+ (* (d ?x ?f) (/ ?g ?f)) (* (d ?x ?g) (ln ?f))))",
         {is_not_zero("?f"), is_not_zero("?g")}),
      rw("i-one", "(i 1 ?x)", "?x"),
      rw("i-power-const", "(i (pow ?x ?c) ?x)", "(/ (pow ?x (+ ?c 1)) (+ ?c 1))", {is_const("?c")}),
      rw("i-cos", "(i (cos ?x) ?x)", "(sin ?x)"),
      rw("i-sin", "(i (sin ?x) ?x)", "(* -1 (cos ?x))"),
      rw("i-sum", "(i (+ ?f ?g) ?x)", "(+ (i ?f ?x) (i ?g ?x))"),
      rw("i-dif", "(i (- ?f ?g) ?x)", "(- (i ?f ?x) (i ?g ?x))"),
      rw("i-parts", "(i (* ?a ?b) ?x)", "(- (* ?a (i ?b ?x)) (i (* (d ?x ?a) (i ?b ?x)) ?x))"),
  };
}

}  // namespace eqsat::bench::math
