#include "rules/lang/rule_parser.hpp"

#include "ops/attr_literal.hpp"
#include "ops/sexpr.hpp"
#include "ops/source_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <tuple>

namespace eqsat::rules {

using ast::AttrPattern;
using ast::Condition;
using ast::ConditionArg;
using ast::kDefaultNodeLimit;
using ast::kDefaultRunIterations;
using ast::kDefaultSaturateIterations;
using ast::kDefaultTimeLimit;
using ast::Limits;
using ast::Pattern;
using ast::Rewrite;
using ast::RuleSetDecl;
using ast::Schedule;
using ast::ScheduleStep;
using ast::Use;
using ops::AttrKey;
using ops::Diagnostic;
using ops::DiagnosticError;
using ops::SExpr;
using ops::SourceLocation;

namespace {

bool is_variable(const SExpr& e) {
  return e.is_symbol() && e.text.size() > 1 && e.text[0] == '?';
}

// What a variable stands for in one rewrite, and where it first appeared;
// `mixed` is where one side first used it in the other role (a term where
// it had stood for an attribute, or the reverse), when it did.
struct VarUse {
  bool is_attr = false;
  SourceLocation where;
  std::optional<SourceLocation> mixed;
};
// Variables of one side in order of first appearance.
using VarList = std::vector<std::pair<std::string, VarUse>>;

void add_var(VarList& vars, const std::string& name, bool is_attr, const SourceLocation& where) {
  for (auto& v : vars) {
    if (v.first != name) continue;
    if (v.second.is_attr != is_attr && !v.second.mixed) v.second.mixed = where;
    return;
  }
  vars.push_back({name, {is_attr, where, std::nullopt}});
}

void collect_vars(const Pattern& p, VarList& vars) {
  if (p.kind == Pattern::Kind::Var) add_var(vars, p.var, false, p.where);
  for (const auto& a : p.attrs)
    if (a.is_var()) add_var(vars, a.var, true, a.where);
  for (const auto& c : p.children) collect_vars(c, vars);
}

const VarUse* find_var(const VarList& vars, const std::string& name) {
  for (const auto& v : vars)
    if (v.first == name) return &v.second;
  return nullptr;
}

}  // namespace

// Builds a RuleProgram from rule files, collecting every diagnostic.
class RuleParser {
 public:
  explicit RuleParser(std::span<const std::string> appliers) : appliers_(appliers) {
    program_.rulesets_.push_back({"default", {}});
  }
  // The parser as it was after reading `sources`, whose checked program
  // (before `finish`'s implicit schedule) is `checked`.
  RuleParser(std::span<const std::string> appliers, RuleProgram checked,
             std::span<const RuleSource> sources)
      : appliers_(appliers), program_(std::move(checked)) {
    for (const RuleSource& s : sources) files_.push_back(s.file);
    for (const Rewrite& r : program_.rewrites_) rule_names_.push_back({r.name, r.where});
    have_schedule_ = program_.schedule_.where.line != 0;
    if (!have_schedule_) program_.schedule_.steps.clear();  // finish() adds it again
  }

  // Reads each file after the sources given so far.
  void add_files(std::span<const RuleFile> files) {
    for (const auto& file : files) {
      std::string text;
      try {
        text = ops::read_source_file(file.path);
      } catch (const ops::DiagnosticError& e) {
        for (const auto& d : e.diagnostics()) add_error(d.where, d.message);
        continue;
      }
      add_source({file.path, std::move(text), file.default_ruleset});
    }
  }

  void add_source(const RuleSource& source) {
    files_.push_back(source.file);
    default_ruleset_ = source.default_ruleset;
    if (!program_.has_ruleset(default_ruleset_))
      program_.rulesets_.push_back({default_ruleset_, {}});
    std::vector<SExpr> forms;
    try {
      forms = ops::read_sexprs(source.text, source.file);
    } catch (const DiagnosticError& e) {
      errors_.insert(errors_.end(), e.diagnostics().begin(), e.diagnostics().end());
      return;
    }
    for (const SExpr& f : forms) form(f);
  }

  void add_error(const SourceLocation& where, std::string message) {
    if (std::ranges::find(files_, where.file.str()) == files_.end()) files_.push_back(where.file);
    errors_.push_back({where, std::move(message)});
  }

  RuleProgram finish() {
    for (const auto& [name, where] : ruleset_refs_)
      if (!program_.has_ruleset(name))
        add_error(where, fmt::format("unknown rule set '{}'", ops::capped_quote(name)));
    if (!errors_.empty()) {
      // Files in the order given, then by position.
      auto file_rank = [&](const std::string& f) {
        return std::ranges::find(files_, f) - files_.begin();
      };
      std::ranges::stable_sort(errors_, [&](const Diagnostic& a, const Diagnostic& b) {
        return std::tuple(file_rank(a.where.file), a.where.line, a.where.column) <
               std::tuple(file_rank(b.where.file), b.where.line, b.where.column);
      });
      throw DiagnosticError(std::move(errors_));
    }
    if (!have_schedule_) {
      ScheduleStep all{ScheduleStep::Kind::Saturate,
                       {},
                       {kDefaultSaturateIterations, kDefaultNodeLimit, kDefaultTimeLimit},
                       {}};
      for (const auto& set : program_.rulesets_) all.rulesets.push_back(set.name);
      program_.schedule_.steps.push_back(std::move(all));
    }
    return std::move(program_);
  }

 private:
  void error(const SExpr& at, std::string message) { add_error(at.where, std::move(message)); }

  void form(const SExpr& e) {
    const std::string_view head = e.head();
    if (head == "ruleset") return ruleset_form(e);
    if (head == "rewrite") return rewrite_form(e, false);
    if (head == "birewrite") return rewrite_form(e, true);
    if (head == "use") return use_form(e);
    if (head == "schedule") return schedule_form(e);
    if (!e.is_list() || head.empty())
      return error(e, fmt::format("expected a form like (rewrite ...), got {}", e.describe()));
    error(e, fmt::format("unknown form '{}': expected ruleset, rewrite, birewrite, use or schedule",
                         ops::capped_quote(head)));
  }

  // (ruleset NAME) declares a rule set; (ruleset NAME :default true) also
  // makes it the set of the file's later rules that name none, so a file
  // holding one topic says its set once.
  void ruleset_form(const SExpr& e) {
    const bool file_default = e.items.size() == 4 && e.items[2].is_keyword() &&
                              e.items[2].text == "default" && e.items[3].kind == SExpr::Kind::Bool;
    if ((e.items.size() != 2 && !file_default) || !e.items[1].is_symbol() ||
        is_variable(e.items[1]))
      return error(e, "ruleset takes one name: (ruleset NAME) or (ruleset NAME :default true)");
    const SExpr& name = e.items[1];
    if (file_default && e.items[3].bool_value) default_ruleset_ = name.text;
    for (auto& set : program_.rulesets_) {
      if (set.name != name.text) continue;
      if (set.where.line == 0) {  // `default` and `user` may be declared explicitly
        set.where = name.where;
        return;
      }
      return error(name, fmt::format("rule set '{}' is already declared at {}", name.text,
                                     set.where.text()));
    }
    program_.rulesets_.push_back({name.text, name.where});
  }

  // Reads `:ruleset NAME`; the name is checked once every file is read.
  std::optional<std::string> ruleset_option(const SExpr& value) {
    if (!value.is_symbol() || is_variable(value)) {
      error(value, fmt::format(":ruleset needs a rule set name, got {}", value.describe()));
      return std::nullopt;
    }
    ruleset_refs_.push_back({value.text, value.where});
    return value.text;
  }

  void rewrite_form(const SExpr& e, bool bidirectional) {
    const char* what = bidirectional ? "birewrite" : "rewrite";
    if (e.items.size() < 4 || e.items[2].is_keyword() || e.items[3].is_keyword())
      return error(e, fmt::format("{} needs a name, a left side and a right side: "
                                  "({} NAME LHS RHS :when (COND...) :ruleset SET)",
                                  what, what));
    const std::size_t errors_before = errors_.size();
    Rewrite r;
    r.bidirectional = bidirectional;
    r.where = e.where;
    r.ruleset = default_ruleset_;
    const SExpr& name = e.items[1];
    if (!name.is_symbol() || is_variable(name))
      error(name, fmt::format("{} name must be a symbol, got {}", what, name.describe()));
    r.name = name.text;
    r.lhs = pattern(e.items[2]);
    r.rhs = pattern(e.items[3]);
    bool have_when = false, have_set = false, have_domain = false;
    for (std::size_t i = 4; i < e.items.size(); ++i) {
      const SExpr& item = e.items[i];
      if (!item.is_keyword()) {
        error(item, fmt::format("unexpected {} after the right side of {} {}", item.describe(),
                                what, r.name));
        continue;
      }
      if (item.text == "comm") {  // `:comm` or `:comm true` / `:comm false`
        if (r.commutative) error(item, ":comm given twice");
        r.commutative = true;
        if (i + 1 < e.items.size() && e.items[i + 1].kind == SExpr::Kind::Bool)
          r.commutative = e.items[++i].bool_value;
        continue;
      }
      if (item.text != "when" && item.text != "ruleset" && item.text != "domain") {
        error(item,
              fmt::format("unknown {} option :{} (expected :when, :ruleset, :domain or :comm)",
                          what, item.text));
        if (i + 1 < e.items.size() && !e.items[i + 1].is_keyword()) ++i;  // its value
        continue;
      }
      bool& seen = item.text == "when"      ? have_when
                   : item.text == "ruleset" ? have_set
                                            : have_domain;
      if (seen) error(item, fmt::format(":{} given twice", item.text));
      seen = true;
      if (i + 1 >= e.items.size()) {
        error(item, fmt::format(":{} needs a value", item.text));
        break;
      }
      const SExpr& value = e.items[++i];
      if (item.text == "when") {
        r.conditions = conditions(value);
      } else if (item.text == "domain") {
        if (value.is_symbol("finite"))
          r.finite_domain = true;
        else
          error(value, fmt::format(":domain takes `finite`, got {}", value.describe()));
      } else if (auto set = ruleset_option(value)) {
        r.ruleset = *set;
      }
    }
    check_sides(r);
    if (r.name.empty()) return;
    // Names are unique even among rewrites with other errors.
    for (const auto& [seen, where] : rule_names_)
      if (seen == r.name)
        return error(name, fmt::format("duplicate rule name '{}' (first defined at {})", r.name,
                                       where.text()));
    rule_names_.push_back({r.name, r.where});
    if (errors_.size() == errors_before) program_.rewrites_.push_back(std::move(r));
  }

  // Variable binding across the two sides and the conditions.
  void check_sides(const Rewrite& r) {
    VarList lhs, rhs;
    collect_vars(r.lhs, lhs);
    collect_vars(r.rhs, rhs);
    if (!r.lhs.is_op())
      add_error(r.lhs.where, "the left side must be an op application, not a variable or literal");
    if (r.bidirectional && !r.rhs.is_op())
      add_error(r.rhs.where,
                "the right side of a birewrite must be an op application, not a variable or "
                "literal");
    // The same variable must stand for a term everywhere or an attribute
    // everywhere: across the two sides, then within one.
    const auto both_roles = [&](const std::string& name, const SourceLocation& where) {
      add_error(where,
                fmt::format("variable {} is used both for a term and for an attribute", name));
    };
    VarList all = lhs;
    std::vector<std::string> reported;
    for (const auto& [name, use] : rhs) {
      const VarUse* other = find_var(all, name);
      if (other && other->is_attr != use.is_attr) {
        both_roles(name, use.where);
        reported.push_back(name);
      } else if (!other) {
        all.push_back({name, use});
      }
    }
    for (const VarList* side : {&lhs, &rhs})
      for (const auto& [name, use] : *side)
        if (use.mixed && std::ranges::find(reported, name) == reported.end()) {
          both_roles(name, *use.mixed);
          reported.push_back(name);
        }
    for (const auto& [name, use] : rhs)
      if (!find_var(lhs, name))
        add_error(use.where,
                  fmt::format("variable {} of the right side is not bound by the left side", name));
    if (r.bidirectional)
      for (const auto& [name, use] : lhs)
        if (!find_var(rhs, name))
          add_error(use.where, fmt::format("variable {} of the left side is not bound by the right "
                                           "side (a birewrite rewrites both ways)",
                                           name));
    for (const auto& c : r.conditions)
      for (const auto& a : c.args) {
        if (a.kind != ConditionArg::Kind::Var) continue;
        const VarUse* use = find_var(lhs, a.var);
        if (!use)
          add_error(c.where,
                    fmt::format("variable {} of a condition is not bound by the left side", a.var));
        else if (use->is_attr)
          add_error(c.where, fmt::format("variable {} of a condition stands for an attribute; "
                                         "predicates take terms",
                                         a.var));
        else if (r.bidirectional && !find_var(rhs, a.var))
          add_error(c.where, fmt::format("variable {} of a condition is not bound by the right "
                                         "side (a birewrite rewrites both ways)",
                                         a.var));
      }
  }

  std::vector<Condition> conditions(const SExpr& e) {
    std::vector<Condition> out;
    if (!e.is_list() || (!e.items.empty() && !e.items[0].is_list())) {
      error(e, "`:when` takes a list of conditions, e.g. :when ((nonzero ?x))");
      return out;
    }
    for (const SExpr& c : e.items) {
      const std::string_view head = c.head();
      if (head.empty()) {
        error(c, fmt::format("a condition is (PREDICATE ARG...), got {}", c.describe()));
        continue;
      }
      const auto pred = parse_predicate(head);
      if (!pred) {
        error(c.items[0], fmt::format("unknown predicate '{}'", ops::capped_quote(head)));
        continue;
      }
      const PredicateInfo& info = predicate_info(*pred);
      Condition cond{*pred, {}, c.where};
      const std::size_t nargs = c.items.size() - 1;
      if (nargs != info.signature.size()) {
        error(c, fmt::format("predicate {} takes {} argument{}, got {}", info.name,
                             info.signature.size(), info.signature.size() == 1 ? "" : "s", nargs));
        continue;
      }
      bool ok = true;
      for (std::size_t k = 0; k < nargs; ++k) {
        const SExpr& a = c.items[k + 1];
        ConditionArg arg;
        switch (info.signature[k]) {
          case 't':
            if (!is_variable(a)) {
              error(a, fmt::format("{}: argument {} must be a variable (?x), got {}", info.name,
                                   k + 1, a.describe()));
              ok = false;
            }
            arg.var = a.text;
            break;
          case 'i':
            if (a.kind != SExpr::Kind::Int || a.int_value < 0 || a.int_value > kMaxConditionInt) {
              error(a, fmt::format("{}: argument {} must be an integer from 0 to {}, got {}",
                                   info.name, k + 1, kMaxConditionInt, a.describe()));
              ok = false;
            }
            arg.kind = ConditionArg::Kind::Int;
            arg.int_value = a.int_value;
            break;
          default: {
            auto d = a.is_symbol() ? ops::parse_dtype(a.text) : std::nullopt;
            if (!d) {
              error(a, fmt::format("{}: argument {} must be a dtype (bool i32 i64 f32 f64), got {}",
                                   info.name, k + 1, a.describe()));
              ok = false;
            }
            arg.kind = ConditionArg::Kind::DType;
            arg.dtype = d.value_or(ops::DType::F64);
          }
        }
        cond.args.push_back(std::move(arg));
      }
      if (ok) out.push_back(std::move(cond));
    }
    return out;
  }

  // `nan`, `inf`, `-inf`: float numbers written as words, as in graphs.
  static std::optional<double> special_float(std::string_view word) {
    if (word == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (word == "inf") return std::numeric_limits<double>::infinity();
    if (word == "-inf") return -std::numeric_limits<double>::infinity();
    return std::nullopt;
  }

  // A pattern: a number, a boolean, a variable, or an op application.
  Pattern pattern(const SExpr& e) {
    if (e.kind == SExpr::Kind::List) return op_pattern(e);
    Pattern p;
    p.where = e.where;
    switch (e.kind) {
      case SExpr::Kind::Int:
      case SExpr::Kind::Float:
        p.kind = Pattern::Kind::Number;
        p.is_float = e.kind == SExpr::Kind::Float;
        p.number = p.is_float ? e.float_value : static_cast<double>(e.int_value);
        break;
      case SExpr::Kind::Bool:
        p.kind = Pattern::Kind::Bool;
        p.number = e.bool_value ? 1 : 0;
        break;
      case SExpr::Kind::Symbol:
        if (is_variable(e)) {
          p.var = e.text;
        } else if (const auto special = special_float(e.text)) {
          p.kind = Pattern::Kind::Number;  // a right side's NaN or infinity
          p.is_float = true;
          p.number = *special;
        } else {
          error(e, fmt::format("unexpected symbol '{}' in a pattern: variables start with '?'",
                               ops::capped_quote(e.text)));
        }
        break;
      case SExpr::Kind::Keyword:
      case SExpr::Kind::String:
        error(e, fmt::format("unexpected {} in a pattern", e.describe()));
        break;
      case SExpr::Kind::List:
        break;
    }
    return p;
  }

  // (OP ITEMS...): an unknown op is reported and read as `neg`, so that
  // its operands are still checked.
  Pattern op_pattern(const SExpr& e) {
    Pattern p;
    p.where = e.where;
    const std::string_view head = e.head();
    if (head.empty()) {
      error(e, "a pattern list must start with an op name");
      return p;
    }
    p.kind = Pattern::Kind::Op;
    const auto op = ops::parse_op(head);
    if (!op) error(e.items[0], fmt::format("unknown op '{}'", ops::capped_quote(head)));
    p.op = op.value_or(ops::OpKind::Neg);
    std::size_t first = 1;
    if (op == ops::OpKind::Get) {  // (get I TUPLE): the index is the :index attribute
      if (e.items.size() < 2 || !(e.items[1].kind == SExpr::Kind::Int || is_variable(e.items[1]))) {
        error(e, "get takes an index and a tuple: (get I ?t)");
      } else {
        attribute(p, AttrKey::Index, e.items[1], e.items[1]);
        first = 2;
      }
    }
    operands_and_attributes(p, e, op, first);
    if (op) check_arity(e, *op, p.children.size());
    std::ranges::sort(p.attrs, {}, &AttrPattern::key);
    return p;
  }

  // Items `first`... of an op pattern: operand patterns and `:KEY VALUE`
  // attributes (checked against the op when it is known).
  void operands_and_attributes(Pattern& p, const SExpr& e, std::optional<ops::OpKind> op,
                               std::size_t first) {
    for (std::size_t i = first; i < e.items.size(); ++i) {
      const SExpr& item = e.items[i];
      if (!item.is_keyword()) {
        p.children.push_back(pattern(item));
        continue;
      }
      const auto key = ops::parse_attr_key(item.text);
      if (i + 1 >= e.items.size()) {
        error(item, fmt::format("attribute :{} needs a value", item.text));
        break;
      }
      const SExpr& value = e.items[++i];
      if (!key) {
        error(item, fmt::format("unknown attribute :{}", item.text));
      } else if (op && !ops::op_info(*op).accepts(*key)) {
        error(item, fmt::format("{} has no attribute :{}", e.head(), item.text));
      } else {
        attribute(p, *key, item, value);
      }
    }
  }

  // Reports an operand count outside the op's arity.
  void check_arity(const SExpr& e, ops::OpKind op, std::size_t count) {
    const ops::OpInfo& info = ops::op_info(op);
    const int n = static_cast<int>(count);
    if (n >= info.min_arity && (info.max_arity < 0 || n <= info.max_arity)) return;
    const char* plural = info.min_arity == 1 ? "" : "s";
    if (info.min_arity == info.max_arity)
      error(e, fmt::format("{} takes {} operand{}, got {}", e.head(), info.min_arity, plural, n));
    else
      error(e, fmt::format("{} takes at least {} operand{}, got {}", e.head(), info.min_arity,
                           plural, n));
  }

  void attribute(Pattern& p, AttrKey key, const SExpr& at, const SExpr& value) {
    for (const auto& a : p.attrs)
      if (a.key == key)
        return error(at, fmt::format("attribute :{} given twice", ops::attr_key_name(key)));
    AttrPattern a{key, {}, {}, at.where};
    if (is_variable(value)) {
      a.var = value.text;
      a.where = value.where;
    } else if (auto v = ops::parse_attr_literal(key, value)) {
      a.value = std::move(*v);
    } else {
      return error(value, fmt::format("bad value {} for :{}: expected {}", value.describe(),
                                      ops::attr_key_name(key), ops::attr_literal_form(key)));
    }
    p.attrs.push_back(std::move(a));
  }

  void use_form(const SExpr& e) {
    if (e.items.size() < 2 || !e.items[1].is_symbol() || is_variable(e.items[1]))
      return error(e, "use takes an applier name: (use NAME :ruleset SET)");
    const SExpr& name = e.items[1];
    Use u{name.text, default_ruleset_, e.where};
    bool ok = true;
    if (std::ranges::find(appliers_, name.text) == appliers_.end()) {
      error(name, fmt::format("unknown applier '{}'", ops::capped_quote(name.text)));
      ok = false;
    }
    for (std::size_t i = 2; i < e.items.size(); ++i) {
      const SExpr& item = e.items[i];
      if (!item.is_keyword() || item.text != "ruleset" || i + 1 >= e.items.size()) {
        error(item, fmt::format("unexpected {} in use: (use NAME :ruleset SET)", item.describe()));
        ok = false;
        break;
      }
      if (auto set = ruleset_option(e.items[++i]))
        u.ruleset = *set;
      else
        ok = false;
    }
    for (const Use& other : program_.uses_)
      if (other.applier == u.applier && other.ruleset == u.ruleset) {
        error(name, fmt::format("applier '{}' is already used in rule set '{}' at {}", u.applier,
                                u.ruleset, other.where.text()));
        ok = false;
      }
    if (ok) program_.uses_.push_back(std::move(u));
  }

  void schedule_form(const SExpr& e) {
    if (have_schedule_)
      return error(e, fmt::format("a second schedule (the first is at {})",
                                  program_.schedule_.where.text()));
    have_schedule_ = true;
    program_.schedule_.where = e.where;
    if (e.items.size() < 2) return error(e, "malformed schedule: it has no steps");
    for (std::size_t i = 1; i < e.items.size(); ++i) schedule_step(e.items[i]);
  }

  void schedule_step(const SExpr& e) {
    const std::string_view head = e.head();
    if (head != "run" && head != "saturate")
      return error(e, fmt::format("malformed schedule: a step is (run SET... :iter N) or "
                                  "(saturate SET... :iter N :nodes N :time SECONDS), got {}",
                                  e.describe()));
    ScheduleStep step;
    step.where = e.where;
    step.kind = head == "run" ? ScheduleStep::Kind::Run : ScheduleStep::Kind::Saturate;
    step.limits = {head == "run" ? kDefaultRunIterations : kDefaultSaturateIterations,
                   kDefaultNodeLimit, kDefaultTimeLimit};
    std::vector<std::string> seen;
    for (std::size_t i = 1; i < e.items.size(); ++i) {
      const SExpr& item = e.items[i];
      if (item.is_symbol() && !is_variable(item)) {
        ruleset_refs_.push_back({item.text, item.where});
        step.rulesets.push_back(item.text);
        continue;
      }
      if (!item.is_keyword()) {
        error(item, fmt::format("malformed schedule: expected a rule set name or a limit, got {}",
                                item.describe()));
        continue;
      }
      if (item.text != "iter" && item.text != "nodes" && item.text != "time") {
        error(item, fmt::format("malformed schedule: unknown limit :{} (expected :iter, :nodes or "
                                ":time)",
                                item.text));
        if (i + 1 < e.items.size() && e.items[i + 1].is_number()) ++i;  // its value
        continue;
      }
      if (std::ranges::find(seen, item.text) != seen.end())
        error(item, fmt::format("malformed schedule: :{} given twice", item.text));
      seen.push_back(item.text);
      const SExpr* value = i + 1 < e.items.size() ? &e.items[++i] : nullptr;
      if (item.text == "time") {
        if (!value || !value->is_number() ||
            (value->kind == SExpr::Kind::Int ? value->int_value <= 0 : !(value->float_value > 0))) {
          error(value ? *value : item,
                "malformed schedule: :time needs a positive number of seconds");
          continue;
        }
        step.limits.seconds = value->kind == SExpr::Kind::Int
                                  ? static_cast<double>(value->int_value)
                                  : value->float_value;
      } else {
        if (!value || value->kind != SExpr::Kind::Int || value->int_value <= 0) {
          error(value ? *value : item,
                fmt::format("malformed schedule: :{} needs a positive integer", item.text));
          continue;
        }
        (item.text == "iter" ? step.limits.iterations : step.limits.nodes) = value->int_value;
      }
    }
    if (step.rulesets.empty())
      return error(e, fmt::format("malformed schedule: {} names no rule set", head));
    program_.schedule_.steps.push_back(std::move(step));
  }

  std::span<const std::string> appliers_;
  RuleProgram program_;
  std::vector<Diagnostic> errors_;
  std::vector<std::string> files_;  // in the order given
  std::vector<std::pair<std::string, SourceLocation>> rule_names_;
  std::vector<std::pair<std::string, SourceLocation>> ruleset_refs_;
  bool have_schedule_ = false;
  std::string default_ruleset_ = "default";  // of the file being read
};

const Rewrite* RuleProgram::find_rewrite(std::string_view name) const {
  for (const auto& r : rewrites_)
    if (r.name == name) return &r;
  return nullptr;
}

bool RuleProgram::has_ruleset(std::string_view name) const {
  return std::ranges::any_of(rulesets_, [&](const RuleSetDecl& d) { return d.name == name; });
}

RuleProgram RuleProgram::saturating_also(const std::string& set) const {
  RuleProgram out = *this;
  for (ScheduleStep& step : out.schedule_.steps)
    if (step.kind == ScheduleStep::Kind::Saturate &&
        std::ranges::find(step.rulesets, set) == step.rulesets.end())
      step.rulesets.push_back(set);
  return out;
}

RuleProgram parse_rules(std::span<const RuleSource> sources,
                        std::span<const std::string> appliers) {
  RuleParser parser(appliers);
  for (const auto& s : sources) parser.add_source(s);
  return parser.finish();
}

RuleProgram parse_rule_files(std::span<const RuleFile> files, std::span<const std::string> appliers,
                             std::span<const RuleSource> before) {
  RuleParser parser(appliers);
  for (const auto& source : before) parser.add_source(source);
  parser.add_files(files);
  return parser.finish();
}

RuleProgram parse_rule_files(std::span<const RuleFile> files, std::span<const std::string> appliers,
                             RuleProgram checked, std::span<const RuleSource> before) {
  RuleParser parser(appliers, std::move(checked), before);
  parser.add_files(files);
  return parser.finish();
}

RuleProgram parse_rule_files(std::span<const std::string> paths,
                             std::span<const std::string> appliers) {
  std::vector<RuleFile> files;
  for (const auto& p : paths) files.push_back({p, "default"});
  return parse_rule_files(files, appliers);
}

}  // namespace eqsat::rules
