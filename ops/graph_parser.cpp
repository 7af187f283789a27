#include "graph_parser.hpp"

#include "attr_literal.hpp"
#include "graph_parser_scan.hpp"
#include "loaded_files.hpp"
#include "npy.hpp"
#include "scan_form.hpp"
#include "sexpr.hpp"
#include "source_file.hpp"
#include "type_error.hpp"
#include "weak_literal.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace eqsat::ops {

namespace {

using parsing::plural;
using parsing::ScanOperands;
using parsing::Value;

// A name bound in a scope, and where it was defined.
struct Binding {
  Value value;
  SourceLocation where;
};

// The names visible at top level or inside one body. A body sees only its
// own parameters and lets; an outer scope is consulted only to say why a
// name is not visible.
struct Scope {
  enum class Kind { TopLevel, ScanBody, DefBody };
  Kind kind = Kind::TopLevel;
  std::string def;  // the def's name, for a DefBody
  const Scope* parent = nullptr;
  std::unordered_map<std::string, Binding> names;
};

[[noreturn]] void fail_at(const SExpr& e, const std::string& message) {
  throw DiagnosticError(e.where, message);
}

// A use of a name whose definition already failed: that failure was
// reported, so this one is not.
struct AlreadyReported {};

std::string at(const SourceLocation& l) {
  return fmt::format("{}:{}", l.line, l.column);
}

// Levenshtein distance, for suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// "; did you mean 'x'?" for the closest candidate within about a third of
// the name's length in edits, or "" (always for names shorter than 3, where
// any other short name would be close, and longer than 64, which no
// candidate is near: the search stays bounded). Ties go to the first.
std::string suggestion(std::string_view name, const std::vector<std::string>& candidates) {
  if (name.size() < 3 || name.size() > 64) return {};
  const std::size_t limit = (name.size() + 1) / 3;
  const std::string* best = nullptr;
  std::size_t best_distance = limit + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(name, c);
    if (d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  return best ? fmt::format("; did you mean '{}'?", *best) : std::string();
}

// Reads the top-level forms of one file into graph_, keeping the names in
// scope; each expression yields a Value, and each application is interned
// with Term::make, whose TypeError becomes a located diagnostic.
class Parser {
 public:
  explicit Parser(const std::string& base_dir) : base_dir_(base_dir) {}

  Graph run(const std::vector<SExpr>& forms) {
    declare_all(forms);
    std::vector<Diagnostic> diagnostics;
    for (const SExpr& form : forms) {
      try {
        top_form(form);
      } catch (const DiagnosticError& e) {
        diagnostics.insert(diagnostics.end(), e.diagnostics().begin(), e.diagnostics().end());
        poison(form);
      } catch (const AlreadyReported&) {
        poison(form);
      }
    }
    if (!diagnostics.empty()) throw DiagnosticError(std::move(diagnostics));
    return std::move(graph_);
  }

 private:
  [[noreturn]] static void fail(const SExpr& e, const std::string& message) {
    throw DiagnosticError(e.where, message);
  }

  // ---- top level ---------------------------------------------------------

  // Records every top-level name with its position, so that a use before
  // the definition can say where the definition is.
  void declare_all(const std::vector<SExpr>& forms) {
    for (const SExpr& f : forms) {
      const auto head = f.head();
      if ((head == "input" || head == "let" || head == "def") && f.items.size() >= 2 &&
          f.items[1].is_symbol())
        declared_.emplace(f.items[1].text, std::pair{std::string(head), f.items[1].where});
    }
  }

  // After a failed form, later uses of its name are not reported again.
  void poison(const SExpr& form) {
    const auto head = form.head();
    if ((head == "input" || head == "let" || head == "def") && form.items.size() >= 2 &&
        form.items[1].is_symbol()) {
      const std::string& name = form.items[1].text;
      if (!top_.names.contains(name) && !defs_.contains(name)) poisoned_.insert(name);
    }
  }

  void top_form(const SExpr& form) {
    const auto head = form.head();
    if (head == "input") return input_form(form);
    if (head == "let") return let_form(form, top_);
    if (head == "def") return def_form(form);
    if (head == "output") return output_form(form);
    if (form.is_list() && !head.empty())
      fail(form.items[0], fmt::format("unknown top-level form '{}'; expected input, let, def or "
                                      "output",
                                      capped_quote(head)));
    fail(form, fmt::format("expected a top-level form (input, let, def or output), got {}",
                           form.describe()));
  }

  void input_form(const SExpr& form) {
    if (form.items.size() != 3) fail(form, "input takes a name and a type: (input NAME TYPE)");
    const std::string& name = new_name(form.items[1], top_);
    const TensorType type = parse_type(form.items[2]);
    TermRef t = Term::input(name, type);
    graph_.inputs.push_back(t);
    graph_.locations.emplace(t, form.items[1].where);
    top_.names[name] = {{t, {}}, form.items[1].where};
  }

  void let_form(const SExpr& form, Scope& scope) {
    if (form.items.size() != 3) fail(form, "let takes a name and an expression: (let NAME EXPR)");
    const std::string& name = new_name(form.items[1], scope);
    Value v = expr(form.items[2], scope);
    scope.names[name] = {v, form.items[1].where};
  }

  void output_form(const SExpr& form) {
    if (form.items.size() != 2 && form.items.size() != 3)
      fail(form, "output takes an expression and an optional name: (output [NAME] EXPR)");
    const SExpr& value = form.items.back();
    std::string name = fmt::format("out{}", graph_.outputs.size());
    const SExpr* name_where = &form;
    if (form.items.size() == 3) {
      if (!form.items[1].is_symbol())
        fail(form.items[1],
             fmt::format("expected an output name, got {}", form.items[1].describe()));
      name = form.items[1].text;
      name_where = &form.items[1];
    }
    if (auto it = output_where_.find(name); it != output_where_.end())
      fail(*name_where,
           fmt::format("duplicate output name '{}' (first used at {})", name, at(it->second)));
    TermRef t = expr(value, top_).strong();
    if (t->is_tuple())
      fail(value, "an output must be a tensor, not a tuple; select an element with (get I ...)");
    output_where_.emplace(name, name_where->where);
    graph_.outputs.push_back({name, t});
  }

  void def_form(const SExpr& form) {
    if (form.items.size() < 3)
      fail(form, "def takes a name and a body: (def NAME (fn ((PARAM TYPE)...) OUTPUTS...))");
    const std::string& name = new_name(form.items[1], top_);
    const SExpr& fn = form.items[2];
    if (fn.head() != "fn")
      fail(fn, fmt::format("a def's body must be (fn ((PARAM TYPE)...) OUTPUTS...), got {}",
                           fn.describe()));
    bool inline_ok = true;
    for (std::size_t i = 3; i < form.items.size(); ++i) {
      const SExpr& item = form.items[i];
      if (!item.is_keyword())
        fail(item, fmt::format("unexpected {} after the def's body", item.describe()));
      if (item.text != "inline") fail(item, fmt::format("def has no attribute :{}", item.text));
      if (i + 1 >= form.items.size()) fail(item, "missing value after :inline");
      inline_ok = std::get<bool>(parse_attr_value(form.items[++i], AttrKey::Inline));
    }
    if (fn.items.size() < 2 || !fn.items[1].is_list())
      fail(fn, "a def's body needs a parameter list: (fn ((PARAM TYPE)...) OUTPUTS...)");
    Scope body{Scope::Kind::DefBody, name, &top_, {}};
    std::vector<TensorType> params;
    for (const SExpr& p : fn.items[1].items) {
      if (!p.is_list() || p.items.size() != 2)
        fail(p, fmt::format("a def parameter is written (NAME TYPE), got {}", p.describe()));
      const std::string& pname = new_name(p.items[0], body);
      params.push_back(parse_type(p.items[1]));
      body.names[pname] = {
          {Term::nominal(static_cast<std::int64_t>(params.size() - 1), params.back()), {}},
          p.items[0].where};
    }
    const auto [outputs, where] = body_outputs(fn, body);
    std::vector<TermRef> terms;
    for (const Value& v : outputs) terms.push_back(v.strong());
    Attrs attrs{{AttrKey::Params, params}};
    if (!inline_ok) attrs.set(AttrKey::Inline, false);
    TermRef f = make(OpKind::Fn, std::move(attrs), std::move(terms), fn, where, {});
    graph_.defs.push_back({name, f});
    defs_.emplace(name, Binding{{f, {}}, form.items[1].where});
  }

  // Checks that `e` is a name not yet defined in `scope` (at top level: nor
  // as a def) and returns it.
  const std::string& new_name(const SExpr& e, const Scope& scope) {
    if (!e.is_symbol()) fail(e, fmt::format("expected a name, got {}", e.describe()));
    const Binding* previous = nullptr;
    if (auto it = scope.names.find(e.text); it != scope.names.end()) previous = &it->second;
    if (scope.kind == Scope::Kind::TopLevel)
      if (auto it = defs_.find(e.text); it != defs_.end()) previous = &it->second;
    if (previous)
      fail(e,
           fmt::format("redefinition of '{}' (first defined at {})", e.text, at(previous->where)));
    return e.text;
  }

  // ---- bodies ------------------------------------------------------------

  // The lets and outputs of a body `(fn PARAMS ITEMS...)`, in `scope`.
  std::pair<std::vector<Value>, std::vector<SourceLocation>> body_outputs(const SExpr& fn,
                                                                          Scope& scope) {
    std::vector<Value> outputs;
    std::vector<SourceLocation> where;
    for (std::size_t i = 2; i < fn.items.size(); ++i) {
      const SExpr& item = fn.items[i];
      const auto head = item.head();
      if (head == "let") {
        let_form(item, scope);
      } else if (head == "input" || head == "def" || head == "output") {
        fail(item, fmt::format("'{}' is a top-level form; it cannot appear in a body", head));
      } else {
        outputs.push_back(expr(item, scope));
        where.push_back(item.where);
      }
    }
    if (outputs.empty()) fail(fn, "a body needs at least one output");
    return {std::move(outputs), std::move(where)};
  }

  // ---- expressions -------------------------------------------------------

  Value expr(const SExpr& e, Scope& scope) {
    switch (e.kind) {
      case SExpr::Kind::Int:
        return {nullptr, {false, e.int_value, static_cast<double>(e.int_value)}};
      case SExpr::Kind::Float:
        return {nullptr, {true, 0, e.float_value}};
      case SExpr::Kind::Bool:
        return {Term::constant(Array::scalar(DType::Bool, e.bool_value)), {}};
      case SExpr::Kind::Symbol:
        return lookup(e, scope);
      case SExpr::Kind::String:
        fail(e, fmt::format("a string is not a value; to read an array write (load {})",
                            e.describe()));
      case SExpr::Kind::Keyword:
        fail(e, fmt::format("unexpected keyword {}", e.describe()));
      case SExpr::Kind::List:
        break;
    }
    if (e.items.empty()) fail(e, "empty expression ()");
    const auto head = e.head();
    if (head.empty())
      fail(e.items[0], fmt::format("expected an op name, got {}", e.items[0].describe()));
    if (head == "const") return {const_expr(e), {}};
    if (head == "load") return {load_expr(e), {}};
    if (head == "get") return {get_expr(e, scope), {}};
    if (head == "call") return {call_expr(e, scope), {}};
    if (head == "scan") return {scan_expr(e, scope), {}};
    if (head == "fn") fail(e, "a body (fn ...) may appear only in a def or a scan");
    if (head == "input" || head == "let" || head == "def" || head == "output")
      fail(e, fmt::format("'{}' is a top-level form, not an expression", head));
    const auto kind = parse_op(head);
    if (!kind) {
      std::vector<std::string> ops{"const", "load", "get", "call", "scan"};
      for (int k = 0; k < kNumOps; ++k)
        if (parse_op(op_info(static_cast<OpKind>(k)).name))
          ops.emplace_back(op_info(static_cast<OpKind>(k)).name);
      fail(e.items[0], fmt::format("unknown op '{}'{}", capped_quote(head), suggestion(head, ops)));
    }
    return {op_expr(e, *kind, scope), {}};
  }

  Value lookup(const SExpr& e, const Scope& scope) {
    const std::string& name = e.text;
    for (const Scope* s = &scope; s; s = s->parent) {
      auto it = s->names.find(name);
      if (it == s->names.end()) continue;
      if (s == &scope) return it->second.value;
      fail(e, outer_value_message(name, scope));
    }
    if (poisoned_.contains(name)) throw AlreadyReported{};
    if (defs_.contains(name))
      fail(e, fmt::format("'{}' is a def, not a value; apply it with (call {} ...)", name, name));
    if (auto it = declared_.find(name); it != declared_.end()) {
      if (scope.kind != Scope::Kind::TopLevel) fail(e, outer_value_message(name, scope));
      fail(e, fmt::format("'{}' is used before its definition at {}", name, at(it->second.second)));
    }
    std::vector<std::string> visible;
    for (const auto& [n, binding] : scope.names) visible.push_back(n);
    std::ranges::sort(visible);
    fail(e, fmt::format("unknown name '{}'{}", capped_quote(name), suggestion(name, visible)));
  }

  static std::string outer_value_message(const std::string& name, const Scope& scope) {
    if (scope.kind == Scope::Kind::ScanBody)
      return fmt::format(
          "'{}' is defined outside this scan body; pass it in through :non-sequences", name);
    return fmt::format("'{}' is defined outside the body of def '{}'; pass it in as a parameter",
                       name, scope.def);
  }

  // The `fn` of the def named by `e`.
  TermRef def_lookup(const SExpr& e, const Scope& scope) {
    if (auto it = defs_.find(e.text); it != defs_.end()) return it->second.value.term;
    if (poisoned_.contains(e.text)) throw AlreadyReported{};
    if (auto it = declared_.find(e.text); it != declared_.end() && it->second.first == "def")
      fail(e, fmt::format("def '{}' is used before its definition at {}", e.text,
                          at(it->second.second)));
    for (const Scope* s = &scope; s; s = s->parent)
      if (s->names.contains(e.text)) fail(e, fmt::format("'{}' is not a def", e.text));
    if (declared_.contains(e.text)) fail(e, fmt::format("'{}' is not a def", e.text));
    std::vector<std::string> defs;
    for (const auto& d : graph_.defs) defs.push_back(d.name);
    fail(e, fmt::format("unknown def '{}'{}", capped_quote(e.text), suggestion(e.text, defs)));
  }

  // Interns an application; a TypeError points at the operand or attribute
  // it blames, else at the whole form.
  TermRef make(OpKind kind, Attrs attrs, std::vector<TermRef> operands, const SExpr& form,
               const std::vector<SourceLocation>& operand_where,
               const std::vector<std::pair<AttrKey, SourceLocation>>& attr_where) {
    try {
      TermRef t = Term::make(kind, std::move(attrs), std::move(operands));
      graph_.locations.emplace(t, form.where);
      return t;
    } catch (const TypeError& error) {
      SourceLocation where = form.where;
      if (error.operand() >= 0 && error.operand() < static_cast<int>(operand_where.size())) {
        where = operand_where[error.operand()];
      } else if (error.attr()) {
        for (const auto& [key, loc] : attr_where)
          if (key == *error.attr()) where = loc;
      }
      throw DiagnosticError(where, error.what());
    }
  }

  TermRef op_expr(const SExpr& e, OpKind kind, Scope& scope) {
    const OpInfo& info = op_info(kind);
    Attrs attrs;
    std::vector<std::pair<AttrKey, SourceLocation>> attr_where;
    std::vector<const SExpr*> args;
    for (std::size_t i = 1; i < e.items.size(); ++i) {
      const SExpr& item = e.items[i];
      if (!item.is_keyword()) {
        args.push_back(&item);
        continue;
      }
      const auto key = parse_attr_key(item.text);
      if (!key || !info.accepts(*key))
        fail(item, fmt::format("{} has no attribute :{}", info.name, item.text));
      if (attrs.has(*key)) fail(item, fmt::format("duplicate attribute :{}", item.text));
      if (i + 1 >= e.items.size()) fail(item, fmt::format("missing value after :{}", item.text));
      const SExpr& v = e.items[++i];
      attrs.set(*key, parse_attr_value(v, *key));
      attr_where.emplace_back(*key, v.where);
    }
    std::vector<Value> values;
    std::vector<PendingOperand> pending;
    std::vector<SourceLocation> where;
    for (const SExpr* a : args) {
      values.push_back(expr(*a, scope));
      pending.push_back(values.back().pending());
      where.push_back(a->where);
    }
    std::vector<TermRef> operands;
    for (std::size_t i = 0; i < values.size(); ++i)
      operands.push_back(
          values[i].term ? values[i].term
                         : values[i].literal.to_term(weak_literal_dtype(kind, attrs, pending, i)));
    return make(kind, std::move(attrs), std::move(operands), e, where, attr_where);
  }

  TermRef const_expr(const SExpr& e) {
    if (e.items.size() != 3) fail(e, "const takes a type and its values: (const TYPE (V...))");
    const TensorType type = parse_type(e.items[1]);
    if (!type.is_static())
      fail(e.items[1],
           fmt::format("const needs a type with known dimensions, got {}", to_string(type)));
    const SExpr& list = e.items[2];
    std::vector<const SExpr*> values;
    if (list.is_list()) {
      for (const SExpr& v : list.items) values.push_back(&v);
    } else {
      values.push_back(&list);
    }
    if (static_cast<std::int64_t>(values.size()) != type.num_elements())
      fail(list, fmt::format("const of type {} needs {}, got {}", to_string(type),
                             plural(static_cast<std::size_t>(type.num_elements()), "value"),
                             values.size()));
    Array a(type.dtype, type.dims);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const SExpr& v = *values[i];
      visit_dtype(type.dtype, [&]<class T>(std::type_identity<T>) {
        a.data<T>()[i] = const_element<T>(v, type.dtype);
      });
    }
    return Term::constant(a);
  }

  // One element of a `const`, checked against its dtype.
  template <class T>
  static T const_element(const SExpr& v, DType dtype) {
    const auto name = dtype_name(dtype);
    if constexpr (std::is_same_v<T, bool>) {
      if (v.kind != SExpr::Kind::Bool)
        fail(v, fmt::format("expected true or false in a bool const, got {}", v.describe()));
      return v.bool_value;
    } else if constexpr (std::is_integral_v<T>) {
      if (v.kind != SExpr::Kind::Int)
        fail(v, fmt::format("expected an integer in an {} const, got {}", name, v.describe()));
      if (v.int_value < std::numeric_limits<T>::min() ||
          v.int_value > std::numeric_limits<T>::max())
        fail(v, fmt::format("{} does not fit in {}", v.int_value, name));
      return static_cast<T>(v.int_value);
    } else {
      if (v.kind == SExpr::Kind::Int) return static_cast<T>(v.int_value);
      if (v.kind == SExpr::Kind::Float) return static_cast<T>(v.float_value);
      if (v.is_symbol("inf")) return std::numeric_limits<T>::infinity();
      if (v.is_symbol("-inf")) return -std::numeric_limits<T>::infinity();
      if (v.is_symbol("nan")) return std::numeric_limits<T>::quiet_NaN();
      fail(v, fmt::format("expected a number in an {} const, got {}", name, v.describe()));
    }
  }

  TermRef load_expr(const SExpr& e) {
    if (e.items.size() != 2 || e.items[1].kind != SExpr::Kind::String)
      fail(e, "load takes a file name: (load \"FILE.npy\")");
    const std::string& path = e.items[1].text;
    const std::string full = load_path(base_dir_, path);
    try {
      return Term::make(OpKind::Const, {{AttrKey::Value, read_npy(full)}, {AttrKey::Path, path}},
                        {});
    } catch (const DiagnosticError& error) {
      fail(e.items[1],
           fmt::format("cannot load '{}': {}", path, error.diagnostics().front().message));
    }
  }

  TermRef get_expr(const SExpr& e, Scope& scope) {
    if (e.items.size() != 3 || e.items[1].kind != SExpr::Kind::Int)
      fail(e, "get takes an index and a tuple: (get I TUPLE)");
    TermRef tuple = expr(e.items[2], scope).strong();
    return make(OpKind::Get, {{AttrKey::Index, e.items[1].int_value}}, {tuple}, e,
                {e.items[2].where}, {{AttrKey::Index, e.items[1].where}});
  }

  TermRef call_expr(const SExpr& e, Scope& scope) {
    if (e.items.size() < 2 || !e.items[1].is_symbol())
      fail(e, "call takes a def name and arguments: (call F ARGS...)");
    TermRef fn = def_lookup(e.items[1], scope);
    std::vector<Value> values{{fn, {}}};
    std::vector<PendingOperand> pending{{fn, false}};
    std::vector<SourceLocation> where{e.items[1].where};
    for (std::size_t i = 2; i < e.items.size(); ++i) {
      values.push_back(expr(e.items[i], scope));
      pending.push_back(values.back().pending());
      where.push_back(e.items[i].where);
    }
    std::vector<TermRef> operands;
    for (std::size_t i = 0; i < values.size(); ++i)
      operands.push_back(values[i].term ? values[i].term
                                        : values[i].literal.to_term(
                                              weak_literal_dtype(OpKind::Call, {}, pending, i)));
    return make(OpKind::Call, {}, std::move(operands), e, where, {});
  }

  // ---- scan --------------------------------------------------------------

  // A scan: its syntax read by read_scan_form (scan_form.hpp), then its
  // slots evaluated and checked (graph_parser_scan.hpp), its body built for
  // the slots' types, and the body's outputs checked against the states.
  TermRef scan_expr(const SExpr& e, Scope& scope) {
    ScanForm form = read_scan_form(e);
    ScanOperands slots =
        parsing::scan_operands(form, [&](const SExpr& s) { return expr(s, scope); });
    parsing::check_scan_params(form, slots);
    auto [body_fn, out_where] = scan_body(form, slots, scope);
    if (parsing::retype_literal_states(form, slots, body_fn))
      std::tie(body_fn, out_where) = scan_body(form, slots, scope);
    parsing::check_scan_outputs(form, slots, body_fn, out_where);
    slots.operands[0] = body_fn;
    return make(OpKind::Scan, {{AttrKey::Scan, form.spec}}, std::move(slots.operands), e,
                slots.where, {});
  }

  // The body for the current parameter types, and where each output is.
  std::pair<TermRef, std::vector<SourceLocation>> scan_body(const ScanForm& form,
                                                            const ScanOperands& slots,
                                                            Scope& scope) {
    const SExpr& fn = *form.fn;
    const SExpr& plist = fn.items[1];
    Scope body{Scope::Kind::ScanBody, {}, &scope, {}};
    for (std::size_t k = 0; k < slots.params.size(); ++k) {
      const SExpr& p = plist.items[k];
      if (!p.is_symbol())
        fail(p, fmt::format("a scan body's parameters are bare names (their types come from "
                            "the slots), got {}",
                            p.describe()));
      const std::string& name = new_name(p, body);
      const auto slot = static_cast<std::size_t>(slots.slot_of[k]);
      body.names[name] = {{Term::nominal(slots.slot_of[k], slots.params[slot]), {}}, p.where};
    }
    auto [outputs, out_where] = body_outputs(fn, body);
    std::vector<TermRef> out_terms = parsing::scan_body_results(form, slots, outputs);
    return {make(OpKind::Fn, {{AttrKey::Params, slots.params}}, out_terms, fn, out_where, {}),
            std::move(out_where)};
  }

  std::string base_dir_;
  Graph graph_;
  Scope top_;
  std::unordered_map<std::string, Binding> defs_;
  // Every top-level name: the form that defines it and where.
  std::unordered_map<std::string, std::pair<std::string, SourceLocation>> declared_;
  std::unordered_map<std::string, SourceLocation> output_where_;
  std::unordered_set<std::string> poisoned_;
};

}  // namespace

AttrValue parse_attr_value(const SExpr& v, AttrKey key) {
  if (auto value = parse_attr_literal(key, v)) return *std::move(value);
  fail_at(v, fmt::format(":{} expects {}, got {}", attr_key_name(key), attr_literal_form(key),
                         v.describe()));
}

TensorType parse_type(const SExpr& e) {
  if (e.is_symbol()) {
    if (auto d = parse_dtype(e.text)) return {*d, {}};
    fail_at(e, fmt::format("unknown type '{}'; expected a dtype (bool i32 i64 f32 f64) or "
                           "(DTYPE DIM...)",
                           capped_quote(e.text)));
  }
  if (!e.is_list() || e.items.empty() || !e.items[0].is_symbol())
    fail_at(e, fmt::format("expected a type such as f64 or (f32 3 ?), got {}", e.describe()));
  const auto d = parse_dtype(e.items[0].text);
  if (!d) fail_at(e.items[0], fmt::format("unknown dtype '{}'", capped_quote(e.items[0].text)));
  TensorType t{*d, {}};
  for (std::size_t i = 1; i < e.items.size(); ++i) {
    const SExpr& dim = e.items[i];
    if (dim.kind == SExpr::Kind::Int && dim.int_value >= 0)
      t.dims.push_back(dim.int_value);
    else if (dim.is_symbol("?"))
      t.dims.push_back(kUnknownDim);
    else
      fail_at(dim, fmt::format("bad dimension {}: expected a length >= 0 or ?", dim.describe()));
  }
  // Every value of the type must be representable (see require_addressable).
  if (!checked_num_bytes(t))
    fail_at(
        e, fmt::format("{} is too large: its size in bytes does not fit in 64 bits", to_string(t)));
  return t;
}

Graph parse_graph(std::string_view text, const std::string& file, const std::string& base_dir) {
  const std::vector<SExpr> forms = read_sexprs(text, file);
  return Parser(base_dir).run(forms);
}

Graph parse_graph_file(const std::string& path) {
  return parse_graph(read_source_file(path), path,
                     std::filesystem::path(path).parent_path().string());
}

}  // namespace eqsat::ops
