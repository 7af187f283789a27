#include "rules/lang/rule_lowering.hpp"

#include "rules/lang/builtin_appliers.hpp"
#include "rules/lang/commuted_variants.hpp"
#include "rules/lang/predicate_eval.hpp"
#include "rules/tensor/op_symbols.hpp"
#include "support/internal_error.hpp"

#include "ops/type_error.hpp"

#include <absl/container/inlined_vector.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

namespace eqsat::rules {

using ast::AttrPattern;
using ast::Condition;
using ast::ConditionArg;
using ast::Pattern;
using ast::Rewrite;
using ast::Use;
using egraph::EClassId;
using egraph::Payload;
using egraph::PayloadMatch;
using egraph::Subst;
using egraph::Symbol;
using ops::AttrValue;

namespace {

// An integer axis and a one-element list name the same axis.
bool same_attr(const AttrValue& a, const AttrValue& b) {
  auto as_list = [](const AttrValue& v) -> std::optional<ops::IntList> {
    if (auto* i = std::get_if<std::int64_t>(&v)) return ops::IntList{*i};
    if (auto* l = std::get_if<ops::IntList>(&v)) return *l;
    return std::nullopt;
  };
  const auto la = as_list(a), lb = as_list(b);
  if (la && lb) return *la == *lb;
  return ops::attr_value_equal(a, b);
}

// An integer axis as a one-element list and a one-element list as its
// integer; other values unchanged.
AttrValue other_axis_form(const AttrValue& v) {
  if (auto* i = std::get_if<std::int64_t>(&v)) return ops::IntList{*i};
  if (auto* l = std::get_if<ops::IntList>(&v); l && l->size() == 1) return l->front();
  return v;
}

// A left side lowered to an e-graph pattern, with what the pattern alone
// cannot check.
struct Lhs {
  struct Node {
    enum class Kind { Var, Literal, Op } kind = Kind::Var;
    const Pattern* ast = nullptr;
  };
  bool has_literal = false;  // a literal matched a uniform class
  egraph::Pattern pattern;
  std::vector<Node> nodes;  // parallel to pattern's nodes
  bool attrs_ = false;      // has_attrs(), once lowered

  // Attribute variables bound by a match.
  using Bindings = std::map<std::string, AttrValue>;

  // `ast` must outlive the Lhs.
  Lhs(const Pattern& ast, TensorEGraph& g) {
    lower(ast, g);
    attrs_ = has_attrs();
  }

  // True when verify can refuse a match the e-graph pattern found: a
  // literal or an op with attributes in the pattern. Otherwise every match
  // holds and verify would only look its e-nodes up again.
  bool needs_verify() const { return has_literal || has_attrs(); }

  // An op with attributes in the pattern: checking it needs its e-node.
  bool has_attrs() const {
    for (std::uint32_t i = 0; i < pattern.size(); ++i)
      if (!pattern.node(i).is_var && pattern.node(i).payload.kind == PayloadMatch::Kind::Var)
        return true;
    return false;
  }

  std::uint32_t lower(const Pattern& ast, TensorEGraph& g) {
    std::uint32_t i = 0;
    switch (ast.kind) {
      case Pattern::Kind::Var:
        i = pattern.var(ast.var);
        record(i, Node::Kind::Var, ast);
        return i;
      case Pattern::Kind::Number:
      case Pattern::Kind::Bool:
        i = pattern.var(fmt::format("?#literal{}", pattern.size()));
        record(i, Node::Kind::Literal, ast);
        has_literal = true;
        return i;
      case Pattern::Kind::Op:
        break;
    }
    std::vector<std::uint32_t> kids;
    for (const auto& c : ast.children) kids.push_back(lower(c, g));
    const PayloadMatch payload =
        ops::op_info(ast.op).attr_mask == 0
            ? PayloadMatch::exact(g.analysis().payloads().intern({}))
            : PayloadMatch::bind(pattern.payload_var(fmt::format("?#attrs{}", pattern.size())));
    i = pattern.op(op_symbol(ast.op), payload, kids);
    record(i, Node::Kind::Op, ast);
    return i;
  }

  void record(std::uint32_t i, Node::Kind kind, const Pattern& ast) {
    if (nodes.size() <= i) nodes.resize(i + 1);
    nodes[i] = {kind, &ast};
  }

  // The matched root e-node: op, payload and children classes.
  struct RootNode {
    Symbol op;
    Payload payload = 0;
    std::vector<EClassId> children;
  };

  // Checks what the e-graph pattern could not; returns the attribute
  // variables' values, or nullopt when the match does not hold. Gives the
  // root e-node in `root` when asked.
  std::optional<Bindings> verify(const TensorEGraph& g, const Subst& s,
                                 RootNode* root = nullptr) const {
    const egraph::EGraph& eg = g.egraph();
    // Literals alone (most rules verified: `(add ?x 0)` matches every add)
    // are read off their classes, without looking the e-nodes up again.
    if (!root && !attrs_) {
      for (std::uint32_t i = 0; i < pattern.size(); ++i)
        if (nodes[i].kind == Node::Kind::Literal &&
            !literal_matches(g.data(s.get(pattern.vars()[pattern.node(i).var])), *nodes[i].ast))
          return std::nullopt;
      return Bindings{};
    }
    std::vector<EClassId> cls(pattern.size());
    Bindings bound;
    for (std::uint32_t i = 0; i < pattern.size(); ++i) {
      const auto& pn = pattern.node(i);
      const Node& info = nodes[i];
      if (pn.is_var) {
        cls[i] = s.get(pattern.vars()[pn.var]);
        if (info.kind == Node::Kind::Literal && !literal_matches(g.data(cls[i]), *info.ast))
          return std::nullopt;
        continue;
      }
      std::vector<EClassId> kids;
      for (auto c : pattern.children(i)) kids.push_back(cls[c]);
      const Payload p = pn.payload.kind == PayloadMatch::Kind::Var
                            ? s.get_payload(pattern.payload_vars()[pn.payload.var])
                            : pn.payload.value;
      // The snapshot the match was found in: mid-iteration, merges not yet
      // rebuilt would hide e-nodes from the live table and drop valid matches.
      const auto found = eg.lookup_in_snapshot(pn.op, p, kids);
      if (!found) return std::nullopt;
      if (root && i + 1 == pattern.size()) *root = {pn.op, p, kids};
      cls[i] = *found;
      if (pn.payload.kind == PayloadMatch::Kind::Var &&
          !attrs_match(g, *info.ast, g.analysis().payloads().attrs(p), kids, bound))
        return std::nullopt;
    }
    return bound;
  }

  // The attribute variables' values in a match (read from its payloads).
  Bindings bindings(const TensorEGraph& g, const Subst& s) const {
    Bindings bound;
    for (std::uint32_t i = 0; i < pattern.size(); ++i) {
      const auto& pn = pattern.node(i);
      if (pn.is_var || pn.payload.kind != PayloadMatch::Kind::Var) continue;
      const ops::Attrs& attrs =
          g.analysis().payloads().attrs(s.get_payload(pattern.payload_vars()[pn.payload.var]));
      for (const AttrPattern& a : nodes[i].ast->attrs)
        if (a.is_var())
          if (const AttrValue* v = attrs.find(a.key)) bound.emplace(a.var, *v);
    }
    return bound;
  }

  static bool literal_matches(const TensorData& d, const Pattern& lit) {
    if (!d.is_tensor() || !d.uniform || !d.tensor_type().is_static()) return false;
    if ((lit.kind == Pattern::Kind::Bool) != (d.tensor_type().dtype == ops::DType::Bool))
      return false;
    return *d.uniform == lit.number;
  }

  // The e-node's attributes agree with the pattern's: written values, the
  // bindings of attribute variables, and the op's defaults elsewhere.
  static bool attrs_match(const TensorEGraph& g, const Pattern& ast, const ops::Attrs& attrs,
                          std::span<const EClassId> kids, Bindings& bound) {
    ops::Attrs expected;
    for (const AttrPattern& a : ast.attrs) {
      if (!a.is_var()) {
        expected.set(a.key, a.value);
        continue;
      }
      const AttrValue* v = attrs.find(a.key);
      if (!v) return false;
      auto [it, fresh] = bound.emplace(a.var, *v);
      if (!fresh && !same_attr(it->second, *v)) return false;
      expected.set(a.key, *v);
    }
    std::vector<ops::TermRef> reps;
    for (EClassId c : kids) reps.push_back(g.data(c).rep);
    try {
      ops::check_op(ast.op, expected, reps);  // canonicalizes, fills defaults
    } catch (const ops::TypeError&) {
      return false;
    }
    return expected == attrs;
  }
};

// A rewrite's left side, lowered on first use, shared by its searcher and
// applier: most shipped rules never see their root operator in a small
// graph, and lowering and compiling every rule was a fixed cost of each
// optimization. The runner uses both on one thread.
class LazyLhs {
 public:
  // `ast` must outlive the LazyLhs.
  LazyLhs(const Pattern& ast, TensorEGraph& g) : ast_(&ast), g_(&g) {}
  // A left side of its own (a commuted variant).
  LazyLhs(std::unique_ptr<Pattern> own, TensorEGraph& g)
      : own_(std::move(own)), ast_(own_.get()), g_(&g) {}

  const Pattern& ast() const { return *ast_; }
  const TensorEGraph* graph() const { return g_; }
  // False when no class of the snapshot holds the root operator: the
  // left side has no match there.
  bool may_match(const egraph::EGraph& eg) const {
    return !ast_->is_op() || !eg.classes_with_op(op_symbol(ast_->op)).empty();
  }
  const Lhs& get() const {
    if (!lhs_) lhs_.emplace(*ast_, *g_);
    return *lhs_;
  }

 private:
  std::unique_ptr<Pattern> own_;
  const Pattern* ast_;
  TensorEGraph* g_;
  mutable std::optional<Lhs> lhs_;
};

// Finds the matches of a left side that hold beyond the e-graph pattern.
// Its left side is lowered and its match program compiled on the first
// search that can find a match (LazyLhs).
class TensorSearcher final : public egraph::Searcher {
 public:
  // `dtype_needs`: the rule's conditions' (predicate_eval.hpp); the rule
  // is not searched while the e-graph has made no class of one of them.
  TensorSearcher(std::shared_ptr<const LazyLhs> lhs, std::vector<std::uint32_t> dtype_needs)
      : lhs_(std::move(lhs)), dtype_needs_(std::move(dtype_needs)) {}

  // Empty until the left side is lowered: the rewrite's typed applier reads
  // variables by name and binds nothing to it.
  const egraph::VarLayout& layout() const override { return layout_; }
  void search(const egraph::EGraph& g, egraph::Matches& out, std::size_t limit) const override {
    egraph::Matches all;
    if (may_match(g)) program().search(g, all, limit);
    keep_verified(all, out);
  }
  void search_eclass(const egraph::EGraph& g, EClassId c, egraph::Matches& out,
                     std::size_t limit) const override {
    egraph::Matches all;
    if (may_match(g)) program().search_eclass(g, c, all, limit);
    keep_verified(all, out);
  }
  // The rule's left side as written; printed only when asked.
  std::string to_string() const override { return ast::to_string(lhs_->ast()); }

 private:
  bool may_match(const egraph::EGraph& g) const {
    const std::uint32_t made = lhs_->graph()->analysis().dtypes_made();
    return lhs_->may_match(g) && std::ranges::all_of(dtype_needs_, [&](std::uint32_t need) {
             return (made & need) != 0;
           });
  }

  const egraph::MatchProgram& program() const {
    if (!program_) {
      const Lhs& lhs = lhs_->get();
      program_.emplace(lhs.pattern);
      layout_ = program_->layout();
      verify_ = lhs.needs_verify();
    }
    return *program_;
  }

  void keep_verified(egraph::Matches& all, egraph::Matches& out) const {
    if (!verify_ && out.roots.empty()) {
      out = std::move(all);
      out.layout = &layout();
      return;
    }
    out.layout = &layout();
    const std::size_t nv = layout().vars.size(), np = layout().payload_vars.size();
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (verify_ && !lhs_->get().verify(*lhs_->graph(), all.subst(i))) continue;
      out.roots.push_back(all.roots[i]);
      out.classes.insert(out.classes.end(), all.classes.begin() + i * nv,
                         all.classes.begin() + (i + 1) * nv);
      out.payloads.insert(out.payloads.end(), all.payloads.begin() + i * np,
                          all.payloads.begin() + (i + 1) * np);
    }
  }

  std::shared_ptr<const LazyLhs> lhs_;
  std::vector<std::uint32_t> dtype_needs_;
  // Set when the left side is lowered.
  mutable std::optional<egraph::MatchProgram> program_;
  mutable egraph::VarLayout layout_;  // the program's
  mutable bool verify_ = false;       // the left side's needs_verify()
};

}  // namespace

// Builds a right side when it is well-typed and has the matched class's
// type; counts the matches it refuses.
class TypedApplier final : public egraph::Applier {
 public:
  // `stabilizing`: the left side is a worse way to compute the right side;
  // each applied match marks its root e-node unstable (docs/architecture.md decision
  // 11), so extraction keeps the stable form.
  TypedApplier(std::shared_ptr<const LazyLhs> lhs, const Pattern& rhs, TensorEGraph& g,
               bool stabilizing)
      : lhs_(std::move(lhs)),
        rhs_(rhs),
        g_(&g),
        stabilizing_(stabilizing),
        plain_(plain(rhs)),
        no_attrs_(g.analysis().payloads().intern({})) {
    Vars kept, read;
    vars_of(rhs, kept);
    vars_of(lhs_->ast(), read);
    for (const std::string_view v : read)
      if (std::ranges::find(kept, v) == kept.end()) dropped_.emplace_back(v);
  }

  // True when the e-graph changed: a merge, or new e-nodes (a right side
  // whose class the analysis already knew, such as a folded constant).
  bool apply(egraph::EGraph& eg, EClassId root, const Subst& s) override {
    // The runner applies every match again in each iteration: a right side
    // already in the root's class changes nothing, and a plain one (no
    // literal, no attribute) is found by lookups without typing a term.
    if (plain_ && !stabilizing_ && !eg.explaining()) {
      const auto present = lookup(eg, rhs_, s);
      if (present && eg.find(*present) == eg.find(root)) return false;
    }
    const Lhs& lhs = lhs_->get();
    const Lhs::Bindings bound = lhs.bindings(*g_, s);
    auto built = type_side(rhs_, s, bound, g_->data(root).type(), nullptr);
    if (built && lhs.has_literal) built = broadcast_to_class(std::move(*built), root);
    if (!built || built->rep->type() != g_->data(root).type()) {
      ++refused_;
      return false;
    }
    if (stabilizing_) {
      Lhs::RootNode node;
      if (lhs.verify(*g_, s, &node) && !operand_at_hand(eg, node) &&
          marked_.insert(key(node)).second)
        g_->mark_unstable(node.op, node.payload, node.children);
    }
    // A dropped operand that may fail takes its failure along, even where
    // the root's class may fail for other reasons (the flag is one bit).
    for (const Symbol v : dropped_)
      if (g_->data(s.get(v)).may_fail) {
        ++refused_;
        return false;
      }
    const std::uint64_t before = eg.version();
    const EClassId right = add(*built);
    if (drops_check(*g_, root, right)) {
      ++refused_;
      return false;
    }
    // With explanations on, the recorded step is exactly lhs(s) => rhs(s).
    eg.merge(eg.explaining() ? egraph::instantiate(eg, lhs.pattern, s) : root, right);
    return eg.version() != before;
  }
  std::string to_string() const override { return ast::to_string(rhs_); }
  std::size_t refused() const { return refused_; }

 private:
  // The root e-node computes nothing unstable when an operand the left side
  // rewrites (an op of the pattern, not a variable or a literal) is at hand
  // as a value: its class holds a leaf (an input, a parameter, a constant).
  // softplus(log y) is unstable, but softplus(x) is not, though x's class
  // also holds log(exp x).
  bool operand_at_hand(const egraph::EGraph& eg, const Lhs::RootNode& node) const {
    const Pattern& root = *lhs_->get().nodes.back().ast;
    for (std::size_t i = 0; i < root.children.size() && i < node.children.size(); ++i) {
      if (!root.children[i].is_op()) continue;
      for (egraph::ENodeId n : eg.nodes(node.children[i]))
        if (eg.node(n).is_leaf()) return true;
    }
    return false;
  }

  // A typed right-side node: its representative, and its class once added.
  struct Built {
    const Pattern* ast = nullptr;
    ops::TermRef rep = nullptr;
    std::optional<EClassId> eclass;  // a variable's class
    std::vector<Built> children;
  };

  // A literal of the left side matches a uniform class of any static shape,
  // which may broadcast the other operands: `(add ?x 1)` with a (2, 4) one
  // and ?x of shape (4). The right side then has the operands' shape, and
  // its value broadcast to the class's shape is the class's value.
  Built broadcast_to_class(Built b, EClassId root) const {
    const ops::Type& want = g_->data(root).type();
    if (b.rep->type() == want || b.rep->is_tuple() ||
        !std::holds_alternative<ops::TensorType>(want))
      return b;
    const ops::TensorType& to = std::get<ops::TensorType>(want);
    const ops::TensorType& from = b.rep->tensor_type();
    if (!to.is_static() || from.dtype != to.dtype || from.rank() > to.rank()) return b;
    for (int i = 1; i <= from.rank(); ++i) {
      const auto d = from.dims[from.dims.size() - i];
      if (d != 1 && d != to.dims[to.dims.size() - i]) return b;
    }
    Built out{nullptr, nullptr, std::nullopt, {}};
    try {
      out.rep = ops::Term::make(ops::OpKind::BroadcastTo,
                                ops::Attrs{{ops::AttrKey::Shape, ops::IntList(to.dims)}}, {b.rep});
    } catch (const ops::TypeError&) {
      return b;
    }
    out.children.push_back(std::move(b));
    return out;
  }

  // Types `p`; a literal takes the dtype of `sibling_dtype`'s operand (or of
  // the matched class at the root).
  std::optional<Built> type_side(const Pattern& p, const Subst& s, const Lhs::Bindings& bound,
                                 const ops::Type& context, const ops::DType* sibling) const {
    Built b{&p, nullptr, std::nullopt, {}};
    switch (p.kind) {
      case Pattern::Kind::Var:
        b.eclass = s.get(Symbol(p.var));
        b.rep = g_->data(*b.eclass).rep;
        return b;
      case Pattern::Kind::Number:
      case Pattern::Kind::Bool: {
        std::optional<ops::DType> meet;
        if (sibling)
          meet = *sibling;
        else if (std::holds_alternative<ops::TensorType>(context))
          meet = std::get<ops::TensorType>(context).dtype;
        b.rep = ops::Term::scalar(literal_dtype(p, meet), p.number);
        return b;
      }
      case Pattern::Kind::Op:
        break;
    }
    // Operands that are not literals first: literals take their dtype.
    std::optional<ops::DType> meet;
    b.children.resize(p.children.size());
    for (std::size_t i = 0; i < p.children.size(); ++i) {
      const Pattern& c = p.children[i];
      if (c.kind == Pattern::Kind::Number || c.kind == Pattern::Kind::Bool) continue;
      auto child = type_side(c, s, bound, context, nullptr);
      if (!child) return std::nullopt;
      if (!meet && !child->rep->is_tuple()) meet = child->rep->tensor_type().dtype;
      b.children[i] = std::move(*child);
    }
    std::vector<ops::TermRef> reps;
    for (std::size_t i = 0; i < p.children.size(); ++i) {
      const Pattern& c = p.children[i];
      if (c.kind == Pattern::Kind::Number || c.kind == Pattern::Kind::Bool) {
        auto lit = type_side(c, s, bound, context, meet ? &*meet : nullptr);
        b.children[i] = std::move(*lit);
      }
      reps.push_back(b.children[i].rep);
    }
    // An attribute variable may have been bound by an op storing an axis
    // list (`sum`) and be used by one taking a single axis (`softmax`), or
    // the other way round: a second try converts between the two.
    for (const bool convert : {false, true}) {
      ops::Attrs attrs;
      for (const AttrPattern& a : p.attrs)
        attrs.set(a.key, !a.is_var() ? a.value
                         : convert   ? other_axis_form(bound.at(a.var))
                                     : bound.at(a.var));
      try {
        b.rep = ops::Term::make(p.op, std::move(attrs), reps);
        return b;
      } catch (const ops::TypeError&) {
      }
    }
    return std::nullopt;
  }

  // A rule's variables: a few, kept without an allocation.
  using Vars = absl::InlinedVector<std::string_view, 8>;
  // The variables `p` reads, each once, into `out`.
  static void vars_of(const Pattern& p, Vars& out) {
    if (p.kind == Pattern::Kind::Var && std::ranges::find(out, p.var) == out.end())
      out.push_back(p.var);
    for (const Pattern& c : p.children) vars_of(c, out);
  }

  // Variables and ops without attributes only: such a right side's e-nodes
  // are its ops over its variables' classes, whatever their types.
  static bool plain(const Pattern& p) {
    if (p.kind == Pattern::Kind::Var) return true;
    if (p.kind != Pattern::Kind::Op || ops::op_info(p.op).attr_mask != 0) return false;
    return std::ranges::all_of(p.children, [](const Pattern& c) { return plain(c); });
  }

  // The class of plain right side `p` under `s`, when all its e-nodes exist.
  std::optional<EClassId> lookup(const egraph::EGraph& eg, const Pattern& p, const Subst& s) const {
    if (p.kind == Pattern::Kind::Var) return s.get(Symbol(p.var));
    absl::InlinedVector<EClassId, 4> kids;
    for (const Pattern& c : p.children) {
      const auto k = lookup(eg, c, s);
      if (!k) return std::nullopt;
      kids.push_back(*k);
    }
    return eg.lookup(op_symbol(p.op), no_attrs_, kids);
  }

  EClassId add(const Built& b) const {
    if (b.eclass) return *b.eclass;
    std::vector<EClassId> kids;
    for (const Built& c : b.children) kids.push_back(add(c));
    const Payload p = g_->analysis().payloads().intern(b.rep->attrs());
    return g_->egraph().add(op_symbol(b.rep->kind()), p, kids);
  }

  std::shared_ptr<const LazyLhs> lhs_;
  // A root e-node as marked: the runner applies every match again in each
  // iteration, and one mark per e-node is enough.
  using NodeKey = std::tuple<std::uint32_t, Payload, std::vector<std::size_t>>;
  static NodeKey key(const Lhs::RootNode& n) {
    std::vector<std::size_t> kids;
    for (EClassId c : n.children) kids.push_back(c.index());
    return {n.op.id(), n.payload, std::move(kids)};
  }

  const Pattern& rhs_;
  TensorEGraph* g_;
  bool stabilizing_ = false;
  bool plain_ = false;  // plain(rhs_)
  Payload no_attrs_;    // the payload of an op without attributes
  std::set<NodeKey> marked_;
  std::vector<Symbol> dropped_;  // left-side variables the right side does not read
  std::size_t refused_ = 0;
};

namespace {

// The guard of a rewrite: every condition holds on the match.
egraph::Condition make_condition(std::vector<Condition> conditions, const TensorEGraph& g) {
  return [conditions = std::move(conditions), &g](const egraph::EGraph&, EClassId, const Subst& s) {
    std::vector<PredicateArg> args;
    for (const Condition& c : conditions) {
      args.clear();
      for (const ConditionArg& a : c.args) {
        PredicateArg arg;
        if (a.kind == ConditionArg::Kind::Var) arg.eclass = s.get(Symbol(a.var));
        arg.int_value = a.int_value;
        arg.dtype = a.dtype;
        args.push_back(arg);
      }
      if (!evaluate(c.predicate, args, g)) return false;
    }
    return true;
  };
}

}  // namespace

bool scheduled(const RuleProgram& program, const std::string& ruleset) {
  const auto& steps = program.schedule().steps;
  return steps.empty() || std::ranges::any_of(steps, [&](const ast::ScheduleStep& s) {
           return std::ranges::find(s.rulesets, ruleset) != s.rulesets.end();
         });
}

LoweredRules::LoweredRules(const RuleProgram& program, TensorEGraph& g) {
  // Room for each rule both ways and its applier uses: grown by doubling,
  // the moves and large blocks of the vectors cost glibc's allocator
  // consolidations of its small blocks.
  const std::size_t room = 2 * program.rewrites().size() + program.uses().size();
  rewrites_.reserve(room);
  rulesets_.reserve(room);
  rule_names_.reserve(room);
  appliers_.reserve(room);
  // A rule set no step runs (fast-math without --fast-math) is not lowered:
  // lowering every rule is a fixed cost of each optimization.
  for (const Rewrite& r : program.rewrites()) {
    if (!scheduled(program, r.ruleset)) continue;
    const std::vector<std::uint32_t> needs = dtype_needs(r.conditions);
    // One e-graph rewrite per (commuted) left side: NAME, NAME#1, NAME#2...
    auto add_direction = [&](const std::string& name, const Pattern& from, const Pattern& to) {
      std::vector<std::shared_ptr<const LazyLhs>> sides;
      if (r.commutative)
        for (Pattern& v : commuted_variants(from))
          sides.push_back(
              std::make_shared<const LazyLhs>(std::make_unique<Pattern>(std::move(v)), g));
      else
        sides.push_back(std::make_shared<const LazyLhs>(from, g));
      for (std::size_t k = 0; k < sides.size(); ++k) {
        auto searcher = std::make_shared<TensorSearcher>(sides[k], needs);
        auto applier =
            std::make_shared<TypedApplier>(sides[k], to, g, r.ruleset == kStabilizeRuleset);
        egraph::Rewrite rw(k == 0 ? name : fmt::format("{}#{}", name, k), searcher, applier);
        if (!r.conditions.empty()) rw.when(make_condition(r.conditions, g));
        rewrites_.push_back(std::move(rw));
        rulesets_.push_back(r.ruleset);
        rule_names_.push_back(name);
        appliers_.push_back(applier);
      }
    };
    add_direction(r.name, r.lhs, r.rhs);
    if (r.bidirectional) add_direction(r.name + "-rev", r.rhs, r.lhs);
  }
  for (const Use& u : program.uses()) {
    if (!scheduled(program, u.ruleset)) continue;
    const BuiltinApplier* builtin = find_builtin_applier(u.applier);
    EQSAT_ASSERT(builtin) << "the rule program uses unknown applier " << u.applier;
    rewrites_.push_back(builtin->make(g));
    rulesets_.push_back(u.ruleset);
    rule_names_.push_back(rewrites_.back().name());
    appliers_.push_back(nullptr);
  }
}

LoweredRules::~LoweredRules() = default;

std::vector<const egraph::Rewrite*> LoweredRules::select(
    std::span<const std::string> rulesets) const {
  std::vector<const egraph::Rewrite*> out;
  for (std::size_t i = 0; i < rewrites_.size(); ++i)
    if (std::ranges::find(rulesets, rulesets_[i]) != rulesets.end()) out.push_back(&rewrites_[i]);
  return out;
}

std::size_t LoweredRules::refused(std::size_t i) const {
  if (appliers_[i]) return appliers_[i]->refused();
  const auto* builtin = dynamic_cast<const RefusingApplier*>(&rewrites_[i].applier());
  return builtin ? builtin->refused() : 0;
}

}  // namespace eqsat::rules
