// Rewrite: a named rule made of a searcher (what to find: a pattern or a
// multi-pattern, compiled to a MatchProgram), optional conditions over each
// substitution and the analysis, and an applier (what to do with each
// match: instantiate a pattern and merge it with the matched class, or any
// C++ code deriving from `Applier`).
//
//   Rewrite comm = Rewrite::parse("comm-add", "(+ ?a ?b)", "(+ ?b ?a)");
//   Rewrite div = Rewrite::parse("cancel-div", "(/ ?a ?a)", "1")
//                     .when([a = Symbol("?a")](const EGraph& g, EClassId, const Subst& s) {
//                       return is_not_zero(g, s.get(a));
//                     });
//   auto both = Rewrite::bidirectional("assoc", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)");
//
// A custom applier reads the substitution and the analysis, adds e-nodes
// bottom-up with `EGraph::add` and unions with `EGraph::merge`:
//
//   struct Fold : Applier {
//     bool apply(EGraph& g, EClassId root, const Subst& s) override {
//       EClassId k = g.add(Symbol("num"), /*payload*/ 42);
//       return g.merge(root, k);
//     }
//   };
//   Rewrite r("fold", Pattern::parse("(+ ?a ?b)"), std::make_shared<Fold>());
#pragma once

#include "egraph/egraph.hpp"
#include "egraph/ematch.hpp"
#include "egraph/pattern.hpp"
#include "egraph/subst.hpp"

#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::egraph {

// Finds matches in the e-graph as of its last rebuild. A searcher should
// read only that snapshot (`classes`, `classes_with_op`, `packed_nodes`,
// `lookup_in_snapshot`, see egraph.hpp): the runner applies a rule's
// matches before it searches the next rule, so live lists (`nodes`,
// `parents`) may already show earlier rules' changes.
class Searcher {
 public:
  virtual ~Searcher() = default;
  virtual const VarLayout& layout() const = 0;
  // Appends matches to `out` (whose layout it sets), at most `limit` more.
  virtual void search(const EGraph& g, Matches& out, std::size_t limit) const = 0;
  // The same, handing batches of matches to `sink` as it goes (which then
  // clears them); returns how many it found. By default: `search`, then
  // nothing streamed.
  virtual std::size_t search_streaming(const EGraph& g, Matches& out, std::size_t limit,
                                       const MatchSink& sink) const {
    (void)sink;
    std::size_t before = out.size();
    search(g, out, limit);
    return out.size() - before;
  }
  virtual void search_eclass(const EGraph& g, EClassId c, Matches& out,
                             std::size_t limit) const = 0;
  virtual std::string to_string() const = 0;
};

// The searcher of a pattern or multi-pattern. A multi-pattern's match is
// rooted at its first part's class (what a PatternApplier merges with).
class PatternSearcher final : public Searcher {
 public:
  explicit PatternSearcher(const Pattern& p) : program_(p), text_(p.to_string()) {}
  explicit PatternSearcher(const MultiPattern& p) : program_(p), text_(p.to_string()) {}
  const VarLayout& layout() const override { return program_.layout(); }
  void search(const EGraph& g, Matches& out, std::size_t limit) const override {
    program_.search(g, out, limit);
  }
  std::size_t search_streaming(const EGraph& g, Matches& out, std::size_t limit,
                               const MatchSink& sink) const override {
    return program_.search(g, out, limit, &sink);
  }
  void search_eclass(const EGraph& g, EClassId c, Matches& out, std::size_t limit) const override {
    program_.search_eclass(g, c, out, limit);
  }
  std::string to_string() const override { return text_; }
  const MatchProgram& program() const { return program_; }

 private:
  MatchProgram program_;
  std::string text_;
};

// Acts on one match at a time. The e-graph is not rebuilt between the
// matches of an iteration: use `g.find` on ids, and expect classes to have
// grown since the search.
class Applier {
 public:
  virtual ~Applier() = default;
  // Called once with the searcher's variables before any `apply`; resolve
  // variable names to indices here. Throws std::invalid_argument when the
  // applier needs a variable the searcher does not bind.
  virtual void bind(const VarLayout& layout) { (void)layout; }
  // Applies to a match rooted at class `root`; returns true when the
  // e-graph changed (a merge happened or e-nodes were added).
  virtual bool apply(EGraph& g, EClassId root, const Subst& subst) = 0;
  virtual std::string to_string() const { return "<C++ applier>"; }
};

// The class of `p` with its variables and payload variables taken from
// `subst` by name; with explanations on, the id of exactly that term.
EClassId instantiate(EGraph& g, const Pattern& p, const Subst& subst);

// Instantiates a pattern with the substitution and merges it with the
// matched class. `any` payloads are not allowed on a right-hand side.
// Given the left side too, with explanations on, it merges the left side's
// instance instead of the matched class, so that the recorded step is
// exactly lhs(subst) => rhs(subst).
class PatternApplier final : public Applier {
 public:
  explicit PatternApplier(Pattern rhs, std::optional<Pattern> lhs = std::nullopt);
  void bind(const VarLayout& layout) override;
  bool apply(EGraph& g, EClassId root, const Subst& subst) override;
  std::string to_string() const override { return rhs_.to_string(); }
  // The class of the instantiated pattern (without merging).
  EClassId instantiate(EGraph& g, const Subst& subst);

 private:
  // The right side compiled once: values 0..vars-1 are its variables'
  // classes, then one value per operator node, each an `add` of earlier
  // values (children first), so a match costs one pass without lookups.
  struct Step {
    Symbol op;
    Payload payload = 0;     // when pvar is kFixed
    std::uint32_t pvar = 0;  // rhs payload variable, or kFixed
    std::uint32_t arity = 0;
    std::uint32_t first_arg = 0;  // into args_: value indices of the children
  };
  static constexpr std::uint32_t kFixed = ~0u;

  Pattern rhs_;
  std::optional<Pattern> lhs_;
  std::vector<std::uint32_t> var_index_;   // rhs variable -> searcher variable
  std::vector<std::uint32_t> pvar_index_;  // rhs payload variable -> searcher's
  std::vector<Step> steps_;
  std::vector<std::uint32_t> args_;
  std::uint32_t root_value_ = 0;
  std::vector<EClassId> values_;  // scratch: one per variable and step
  std::vector<EClassId> kids_;    // scratch: a step's children
};

// A guard evaluated on each match just before applying it.
using Condition = std::function<bool(const EGraph& g, EClassId root, const Subst& subst)>;

class Rewrite {
 public:
  // Binds the applier to the searcher's variables (throws
  // std::invalid_argument for an unbound variable; an empty name or a
  // missing part is an InternalError).
  Rewrite(std::string name, std::shared_ptr<const Searcher> searcher,
          std::shared_ptr<Applier> applier);
  Rewrite(std::string name, const Pattern& lhs, std::shared_ptr<Applier> applier);
  Rewrite(std::string name, const MultiPattern& lhs, std::shared_ptr<Applier> applier);
  Rewrite(std::string name, const Pattern& lhs, const Pattern& rhs);
  // lhs => rhs from text. Throws ParseError or std::invalid_argument.
  static Rewrite parse(std::string name, std::string_view lhs, std::string_view rhs,
                       const Syntax& syntax = Syntax::standard());
  // `name` for lhs => rhs and `name-rev` for rhs => lhs; both sides must
  // bind the same variables.
  static std::vector<Rewrite> bidirectional(const std::string& name, std::string_view lhs,
                                            std::string_view rhs,
                                            const Syntax& syntax = Syntax::standard());

  // Adds a condition (all must hold).
  Rewrite& when(Condition c) {
    conditions_.push_back(std::move(c));
    return *this;
  }

  const std::string& name() const { return name_; }
  // The name as the justification of its merges (explain.hpp).
  Symbol reason() const { return reason_; }
  const Searcher& searcher() const { return *searcher_; }
  Applier& applier() const { return *applier_; }

  // Whether matches that an earlier snapshot already held may be skipped
  // (MatchProgram::search's `seen_through`) once they were applied: applying
  // one again changes nothing when the rule instantiates a pattern under no
  // condition (a condition may read analysis data that changed since) and
  // its program tells seen matches.
  bool skips_seen() const { return seen_program_ != nullptr && conditions_.empty(); }

  // Searches (streaming into `sink` when given); returns how many matches
  // were found. With `seen_through` (only when skips_seen()), the matches
  // that snapshot held are counted, not written, and added to `*skipped`.
  std::size_t search(const EGraph& g, Matches& out,
                     std::size_t limit = std::numeric_limits<std::size_t>::max(),
                     const MatchSink* sink = nullptr, std::uint32_t seen_through = 0,
                     std::size_t* skipped = nullptr) const {
    if (seen_through > 0) return search_unseen(g, out, limit, sink, seen_through, skipped);
    if (sink) return searcher_->search_streaming(g, out, limit, *sink);
    std::size_t before = out.size();
    searcher_->search(g, out, limit);
    return out.size() - before;
  }
  // Checks the conditions, then applies match i of `m`; true when the
  // e-graph changed.
  bool apply_match(EGraph& g, const Matches& m, std::size_t i) const;
  std::string to_string() const;

 private:
  std::string name_;
  Symbol reason_;
  std::shared_ptr<const Searcher> searcher_;
  std::shared_ptr<Applier> applier_;
  std::vector<Condition> conditions_;
  // The searcher's program when the searcher is a pattern whose program
  // skips_seen() and the applier a PatternApplier; else null.
  const MatchProgram* seen_program_ = nullptr;

  std::size_t search_unseen(const EGraph& g, Matches& out, std::size_t limit, const MatchSink* sink,
                            std::uint32_t seen_through, std::size_t* skipped) const;
};

}  // namespace eqsat::egraph
