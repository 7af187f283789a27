// The checked form of rule files (.rules): patterns, rewrites, built-in
// appliers switched on by name, rule sets and the schedule. A RuleProgram is
// produced only by the rule parser after every check passed
// (rules/lang/rule_parser.hpp) and is immutable afterwards: the optimizer lowers
// it to e-graph rewrites without re-checking.
#pragma once

#include "rules/lang/predicate.hpp"

#include "ops/attrs.hpp"
#include "ops/diagnostic.hpp"
#include "ops/op.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::rules {

// The rule language's syntax tree, in a namespace of its own: its Pattern,
// Condition and Rewrite are what a file says, not the e-graph's compiled
// egraph::Pattern, egraph::Condition and egraph::Rewrite they lower to.
namespace ast {

// An attribute in a pattern: `:axis ?ax` (a variable) or `:axis 1` (a value).
// An attribute a left side omits must have the op's default value for the
// matched operands (`(transpose ?x)` matches only the reversing transpose).
struct AttrPattern {
  ops::AttrKey key;
  std::string var;       // "?ax", or empty for a literal value
  ops::AttrValue value;  // the literal value when `var` is empty
  ops::SourceLocation where;

  bool is_var() const { return !var.empty(); }
};

// A node of a pattern tree.
//   Var      `?x`: any e-class (repeated: the same e-class)
//   Number   `0`, `1.5`: left side: an e-class whose every element equals the
//            number and whose shape is static; right side: a weak scalar
//            literal that takes the dtype of the operand it meets
//   Bool     `true`, `false`: the same for bool values
//   Op       `(OP CHILD... :KEY VALUE...)`; `(get I ?t)` keeps I as :index
struct Pattern {
  enum class Kind { Var, Number, Bool, Op };

  Kind kind = Kind::Var;
  std::string var;        // Var
  double number = 0;      // Number (Bool: 1 or 0)
  bool is_float = false;  // Number written as a float (`1.0`)
  ops::OpKind op{};       // Op
  std::vector<Pattern> children;
  std::vector<AttrPattern> attrs;  // sorted by key
  ops::SourceLocation where;

  bool is_op() const { return kind == Kind::Op; }
};

// `(ndim ?x 2)`: one argument of a condition.
struct ConditionArg {
  enum class Kind { Var, Int, DType };
  Kind kind = Kind::Var;
  std::string var;
  std::int64_t int_value = 0;
  ops::DType dtype{};
};

struct Condition {
  Predicate predicate{};
  std::vector<ConditionArg> args;
  ops::SourceLocation where;
};

// `(rewrite NAME LHS RHS :when (COND...) :ruleset SET)`; a birewrite also
// rewrites RHS to LHS, under the same conditions.
struct Rewrite {
  std::string name;
  std::string ruleset;  // "default" when not given
  Pattern lhs;
  Pattern rhs;
  std::vector<Condition> conditions;
  bool bidirectional = false;
  // `:domain finite`: the law holds for finite operands (as in real
  // arithmetic); with ±∞ or NaN operands the two sides may differ, as for
  // any re-association. The optimizer applies it like any rule;
  // check-rules calls it "finite only" when it differs only at ±∞ or NaN.
  bool finite_domain = false;
  // `:comm`: every node of a commutative op (ops::is_commutative) in the
  // left side also matches its two operands swapped, so one rule covers
  // `(add ?x 1)` and `(add 1 ?x)`.
  bool commutative = false;
  ops::SourceLocation where;
};

// `(use NAME :ruleset SET)`: a built-in C++ applier joins a rule set.
struct Use {
  std::string applier;
  std::string ruleset;
  ops::SourceLocation where;
};

// `(ruleset NAME)`, or the implicit `default` set (no location).
struct RuleSetDecl {
  std::string name;
  ops::SourceLocation where;
};

// Limits of one schedule step; any limit hit stops the step.
struct Limits {
  std::int64_t iterations = 0;
  std::int64_t nodes = 0;
  double seconds = 0;
};

// Defaults: `run` 1 iteration, `saturate` 30; both 100000 e-nodes, 10 s.
inline constexpr std::int64_t kDefaultRunIterations = 1;
inline constexpr std::int64_t kDefaultSaturateIterations = 30;
inline constexpr std::int64_t kDefaultNodeLimit = 100000;
inline constexpr double kDefaultTimeLimit = 10.0;

// One step of a schedule. `run` applies its rule sets up to :iter times
// (default 1); `saturate` runs them together until nothing changes or a
// limit is hit (default :iter 30). Both stop early once saturated.
struct ScheduleStep {
  enum class Kind { Run, Saturate };
  Kind kind = Kind::Run;
  std::vector<std::string> rulesets;
  Limits limits;
  ops::SourceLocation where;
};

struct Schedule {
  std::vector<ScheduleStep> steps;
  ops::SourceLocation where;  // line 0 when no file gave a schedule
};

// The pattern as written in rule files, e.g. `(softmax ?x :axis ?ax)`.
std::string to_string(const Pattern& p);

// The dtype a literal of a right side takes: a weak literal meeting an
// operand of dtype `meet` (the first non-literal operand of its op, or the
// matched class at the root) takes that dtype, except that a float literal
// meeting an integer or bool gives f64; alone, i64 or f64. `true`/`false`
// are bool.
ops::DType literal_dtype(const Pattern& literal, std::optional<ops::DType> meet);

}  // namespace ast

// Every checked rule, applier use, rule set and the schedule of one or more
// rule files, in the order written. With no `schedule` in any file the
// schedule is one `saturate` step over every declared rule set.
//
//   RuleProgram p = parse_rule_files({"rules/canonicalize.rules"});
//   for (const ast::Rewrite& r : p.rewrites()) ...
class RuleProgram {
 public:
  const std::vector<ast::RuleSetDecl>& rulesets() const { return rulesets_; }
  const std::vector<ast::Rewrite>& rewrites() const { return rewrites_; }
  const std::vector<ast::Use>& uses() const { return uses_; }
  const ast::Schedule& schedule() const { return schedule_; }

  const ast::Rewrite* find_rewrite(std::string_view name) const;
  bool has_ruleset(std::string_view name) const;

  // This program with `set` added to every `saturate` step of its schedule
  // that does not run it yet: `--fast-math` is the default schedule with
  // the `fast-math` set saturated beside the shipped ones.
  RuleProgram saturating_also(const std::string& set) const;

 private:
  friend class RuleParser;
  friend class RuleSnapshot;
  RuleProgram() = default;

  std::vector<ast::RuleSetDecl> rulesets_;
  std::vector<ast::Rewrite> rewrites_;
  std::vector<ast::Use> uses_;
  ast::Schedule schedule_;
};

}  // namespace eqsat::rules
