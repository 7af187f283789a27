// egg's lambda language (tests/lambda.rs) on eqsat::egraph: booleans,
// integers and symbols as leaves (payload: the value or the interned name),
// `var`, `+`, `=`, `app`, `lam`, `let`, `fix`, `if`; the analysis of free
// variables and constants; egg's rules, with `if-elim`'s equality condition
// and the capture-avoiding `let-lam-diff` as C++ appliers.
#pragma once

#include "egg_rule_maker.hpp"

#include "egraph/analysis_of.hpp"
#include "egraph/rewrite.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::bench::lambda {

using namespace eqsat::egraph;

inline const Symbol kBool("bool"), kNum("num"), kSym("sym"), kVar("var"), kAdd("+"), kEq("="),
    kApp("app"), kLam("lam"), kLet("let"), kFix("fix"), kIf("if");

inline Payload num_payload(std::int32_t v) {
  return static_cast<Payload>(static_cast<std::uint32_t>(v));
}
inline std::int32_t payload_num(Payload p) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(p));
}

inline const Syntax& syntax() {
  static const Syntax s{
      [](std::string_view atom, bool is_leaf) -> std::optional<Head> {
        if (!is_leaf) return std::nullopt;
        if (atom == "true" || atom == "false") return Head{kBool, atom == "true" ? 1u : 0u};
        std::int32_t v = 0;
        auto [end, ec] = std::from_chars(atom.data(), atom.data() + atom.size(), v);
        if (ec == std::errc() && end == atom.data() + atom.size())
          return Head{kNum, num_payload(v)};
        return Head{kSym, Symbol(atom).id()};
      },
      [](Symbol op, Payload p) -> std::optional<std::string> {
        if (op == kBool) return std::string(p ? "true" : "false");
        if (op == kNum) return std::to_string(payload_num(p));
        if (op == kSym) return std::string(Symbol::from_id(static_cast<std::uint32_t>(p)).name());
        return std::nullopt;
      }};
  return s;
}

// A literal: `num` or `bool` with its payload.
struct Literal {
  Symbol op;
  Payload value;
  friend bool operator==(const Literal&, const Literal&) = default;
};

struct LambdaData {
  std::vector<EClassId> free;  // sorted: classes of the symbols free in the term
  std::optional<Literal> constant;
};

// egg's LambdaAnalysis: free variables (joined by intersection) and
// constant evaluation of + and =; a constant class gets its literal.
class LambdaAnalysis : public AnalysisOf<LambdaAnalysis, LambdaData> {
 public:
  LambdaData make(const EGraph&, const ENodeRef& n) {
    LambdaData d;
    auto add_free = [&](EClassId c) {
      const std::vector<EClassId>& f = data(c).free;
      d.free.insert(d.free.end(), f.begin(), f.end());
    };
    auto remove = [&](EClassId v) { std::erase(d.free, v); };
    if (n.op == kVar) {
      d.free.push_back(n.children[0]);
    } else if (n.op == kLet) {
      add_free(n.children[2]);
      normalize(d.free);
      remove(n.children[0]);
      add_free(n.children[1]);
    } else if (n.op == kLam || n.op == kFix) {
      add_free(n.children[1]);
      normalize(d.free);
      remove(n.children[0]);
    } else {
      for (EClassId c : n.children) add_free(c);
    }
    normalize(d.free);
    d.constant = eval(n);
    return d;
  }
  DidMerge merge(LambdaData& to, LambdaData from) {
    std::size_t before = to.free.size();
    std::vector<EClassId> both;
    std::set_intersection(to.free.begin(), to.free.end(), from.free.begin(), from.free.end(),
                          std::back_inserter(both));
    to.free = std::move(both);
    if (!to.constant && from.constant) {
      to.constant = from.constant;
      return {true, to.free.size() != from.free.size()};
    }
    return {before != to.free.size(), true};
  }
  void modify(EGraph& g, EClassId c) {
    if (std::optional<Literal> k = data(c).constant) g.merge(c, g.add(k->op, k->value));
  }

 private:
  static void normalize(std::vector<EClassId>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  std::optional<Literal> eval(const ENodeRef& n) {
    if (n.op == kNum || n.op == kBool) return Literal{n.op, n.payload};
    if (n.op != kAdd && n.op != kEq) return std::nullopt;
    std::optional<Literal> a = data(n.children[0]).constant, b = data(n.children[1]).constant;
    if (!a || !b) return std::nullopt;
    if (n.op == kEq) return Literal{kBool, *a == *b ? 1u : 0u};
    if (a->op != kNum || b->op != kNum) return std::nullopt;
    return Literal{kNum, num_payload(payload_num(a->value) + payload_num(b->value))};
  }
};

inline const LambdaData& info(const EGraph& g, EClassId c) {
  return g.analysis<LambdaAnalysis>().data(c);
}

inline Condition is_not_same_var(const char* v1, const char* v2) {
  return [a = Symbol(v1), b = Symbol(v2)](const EGraph& g, EClassId, const Subst& s) {
    return g.find(s.get(a)) != g.find(s.get(b));
  };
}
inline Condition is_const(const char* v) {
  return [a = Symbol(v)](const EGraph& g, EClassId, const Subst& s) {
    return info(g, s.get(a)).constant.has_value();
  };
}

// if-elim: (if (= (var ?x) ?e) ?then ?else) => ?else when (let ?x ?e ?then)
// and (let ?x ?e ?else) are equal; like egg's ConditionEqual it adds both.
class IfElim final : public Applier {
 public:
  void bind(const VarLayout& l) override {
    x_ = *l.index_of(Symbol("?x"));
    e_ = *l.index_of(Symbol("?e"));
    then_ = *l.index_of(Symbol("?then"));
    else_ = *l.index_of(Symbol("?else"));
  }
  bool apply(EGraph& g, EClassId root, const Subst& s) override {
    EClassId a = g.add(kLet, 0, {s[x_], s[e_], s[then_]});
    EClassId b = g.add(kLet, 0, {s[x_], s[e_], s[else_]});
    if (g.find(a) != g.find(b)) return false;
    return g.merge(root, s[else_]);
  }
  std::string to_string() const override {
    return "?else if (let ?x ?e ?then) = (let ?x ?e ?else)";
  }

 private:
  std::uint32_t x_ = 0, e_ = 0, then_ = 0, else_ = 0;
};

// let-lam-diff: (let ?v1 ?e (lam ?v2 ?body)) becomes
// (lam ?v2 (let ?v1 ?e ?body)) when ?v2 is not free in ?e, else
// (lam _N (let ?v1 ?e (let ?v2 (var _N) ?body))) with a fresh symbol _N.
class CaptureAvoid final : public Applier {
 public:
  void bind(const VarLayout& l) override {
    v1_ = *l.index_of(Symbol("?v1"));
    v2_ = *l.index_of(Symbol("?v2"));
    e_ = *l.index_of(Symbol("?e"));
    body_ = *l.index_of(Symbol("?body"));
  }
  bool apply(EGraph& g, EClassId root, const Subst& s) override {
    EClassId v2 = g.find(s[v2_]);
    const std::vector<EClassId>& free = info(g, s[e_]).free;
    EClassId result;
    if (std::binary_search(free.begin(), free.end(), v2)) {
      std::string name = fmt::format("_{}", root.value());
      EClassId fresh = g.add(kSym, Symbol(name).id());
      EClassId inner = g.add(kLet, 0, {s[v2_], g.add(kVar, 0, {fresh}), s[body_]});
      result = g.add(kLam, 0, {fresh, g.add(kLet, 0, {s[v1_], s[e_], inner})});
    } else {
      result = g.add(kLam, 0, {s[v2_], g.add(kLet, 0, {s[v1_], s[e_], s[body_]})});
    }
    return g.merge(root, result);
  }
  std::string to_string() const override { return "<capture-avoiding substitution>"; }

 private:
  std::uint32_t v1_ = 0, v2_ = 0, e_ = 0, body_ = 0;
};

// The rules of egg's tests/lambda.rs, in the same order.
inline std::vector<Rewrite> rules() {
  const RuleMaker rw{syntax()};
  std::vector<Rewrite> rs = {
      rw("if-true", "(if true ?then ?else)", "?then"),
      rw("if-false", "(if false ?then ?else)", "?else"),
      Rewrite("if-elim", Pattern::parse("(if (= (var ?x) ?e) ?then ?else)", syntax()),
              std::make_shared<IfElim>()),
      rw("add-comm", "(+ ?a ?b)", "(+ ?b ?a)"),
      rw("add-assoc", "(+ (+ ?a ?b) ?c)", "(+ ?a (+ ?b ?c))"),
      rw("eq-comm", "(= ?a ?b)", "(= ?b ?a)"),
      rw("fix", "(fix ?v ?e)", "(let ?v (fix ?v ?e) ?e)"),
      rw("beta", "(app (lam ?v ?body) ?e)", "(let ?v ?e ?body)"),
      rw("let-app", "(let ?v ?e (app ?a ?b))", "(app (let ?v ?e ?a) (let ?v ?e ?b))"),
      rw("let-add", "(let ?v ?e (+ ?a ?b))", "(+ (let ?v ?e ?a) (let ?v ?e ?b))"),
      rw("let-eq", "(let ?v ?e (= ?a ?b))", "(= (let ?v ?e ?a) (let ?v ?e ?b))"),
      rw("let-const", "(let ?v ?e ?c)", "?c", {is_const("?c")}),
      rw("let-if", "(let ?v ?e (if ?cond ?then ?else))",
         "(if (let ?v ?e ?cond) (let ?v ?e ?then) (let ?v ?e ?else))"),
      rw("let-var-same", "(let ?v1 ?e (var ?v1))", "?e"),
      rw("let-var-diff", "(let ?v1 ?e (var ?v2))", "(var ?v2)", {is_not_same_var("?v1", "?v2")}),
      rw("let-lam-same", "(let ?v1 ?e (lam ?v1 ?body))", "(lam ?v1 ?body)"),
  };
  rs.emplace_back("let-lam-diff", Pattern::parse("(let ?v1 ?e (lam ?v2 ?body))", syntax()),
                  std::make_shared<CaptureAvoid>());
  rs.back().when(is_not_same_var("?v1", "?v2"));
  return rs;
}

}  // namespace eqsat::bench::lambda
