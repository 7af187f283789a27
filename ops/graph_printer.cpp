#include "graph_printer.hpp"

#include "attr_literal.hpp"
#include "post_order.hpp"
#include "support/internal_error.hpp"
#include "type_error.hpp"
#include "weak_literal.hpp"

#include <absl/container/flat_hash_map.h>
#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <charconv>
#include <cmath>
#include <iterator>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace eqsat::ops {

namespace {

// A term whose inline text would hold more ops than this gets a `let`.
constexpr int kMaxInlineOps = 10;

// A finite double as a float literal that reads back exactly, appended
// to `out` (a constant's elements go straight into its text).
void append_float_text(std::string& out, double v) {
  const std::size_t start = out.size();
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), v);
  if (out.find_first_of(".e", start) == std::string::npos) out += ".0";
}

// Appends the shortest text of a finite float (fmt's) when the graph
// parser, which reads a double and rounds it to float, gives v back;
// false, appending nothing, otherwise. fmt writes the same digits for
// that double (no decimal of as few digits lies as close to it), so the
// text is also the double's. from_chars and a stack buffer, not
// std::stod and strings: a model's weights are printed one by one, and
// strtod was half of printing an ONNX encoder (bench/README.md, "Speed
// round 21"). The format is fmt's run-time one: with FMT_COMPILE, which
// the doubles take, the f32 encoder's `eqsat optimize` ran 7% more
// instructions.
bool append_float_shortest_text(std::string& out, float v) {
  std::array<char, 32> buf;
  const auto written = fmt::format_to_n(buf.data(), buf.size(), "{}", v);
  double d = 0;
  std::from_chars(buf.data(), buf.data() + written.size, d);
  if (static_cast<float>(d) != v) return false;
  const std::string_view text(buf.data(), written.size);
  out += text;
  if (text.find_first_of(".e") == std::string_view::npos) out += ".0";
  return true;
}

// One element of a constant as written in `(const TYPE (V...))`,
// appended to `out`.
void append_element_text(std::string& out, const Array& a, std::int64_t i) {
  visit_dtype(a.dtype(), [&]<class T>(std::type_identity<T>) {
    const T v = a.data<T>()[i];
    if constexpr (std::is_same_v<T, bool>) {
      out += v ? "true" : "false";
    } else if constexpr (std::is_integral_v<T>) {
      fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), v);
    } else if (std::isnan(v)) {
      out += "nan";
    } else if (std::isinf(v)) {
      out += v > 0 ? "inf" : "-inf";
    } else {
      if constexpr (std::is_same_v<T, float>)
        if (append_float_shortest_text(out, v)) return;
      append_float_text(out, static_cast<double>(v));
    }
  });
}

std::string element_text(const Array& a, std::int64_t i) {
  std::string out;
  append_element_text(out, a, i);
  return out;
}

// `(1 -2 3)`.
std::string int_list_text(const IntList& v) {
  return fmt::format("({})", fmt::join(v, " "));
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out + "\"";
}

// A scalar numeric constant that a bare literal can stand for.
bool literal_candidate(TermRef t) {
  const Array* a = t->const_value();
  return a && a->rank() == 0 && a->dtype() != DType::Bool && !t->attrs().has(AttrKey::Path) &&
         std::isfinite(a->element(0));
}

// The literal text of a literal candidate: an integer or a float.
std::string literal_text(TermRef t) {
  return element_text(*t->const_value(), 0);
}

// The dtype a literal written for `t` would take where a literal meeting
// nothing gets its default dtype.
DType default_literal_dtype(TermRef t) {
  return is_float(t->tensor_type().dtype) ? DType::F64 : DType::I64;
}

// Children a scope walks through: a body (`fn`) is a scope of its own.
std::vector<TermRef> scope_children(TermRef t) {
  std::vector<TermRef> out;
  const bool skip_first = t->kind() == OpKind::Scan || t->kind() == OpKind::Call;
  for (std::size_t i = skip_first ? 1 : 0; i < t->arity(); ++i) out.push_back(t->operand(i));
  return out;
}

bool is_leaf(TermRef t) {
  return t->kind() == OpKind::Input || t->kind() == OpKind::Nominal ||
         (t->kind() == OpKind::Const && t->const_value()->rank() == 0);
}

class Printer {
 public:
  Printer(const Graph& g, PrintOptions options) : graph_(g), options_(options) {
    for (TermRef in : g.inputs) taken_.insert(in->attrs().get<std::string>(AttrKey::Name));
    for (const auto& d : g.defs) {
      taken_.insert(d.name);
      fn_names_.emplace(d.term, d.name);
    }
  }

  std::string run() {
    for (TermRef in : graph_.inputs)
      out_ += fmt::format("(input {} {})\n", in->attrs().get<std::string>(AttrKey::Name),
                          to_string(in->type()));
    for (std::size_t i = 0; i < graph_.defs.size(); ++i) emit_def_entry(i);
    std::vector<TermRef> roots;
    for (const auto& o : graph_.outputs) roots.push_back(o.term);
    for (TermRef fn : called_fns(roots)) emit_fn(fn);

    Scope top;
    emit_lets(roots, top, 0, out_);
    for (std::size_t k = 0; k < graph_.outputs.size(); ++k) {
      const NamedTerm& o = graph_.outputs[k];
      const std::string name = o.name == fmt::format("out{}", k) ? std::string() : o.name + " ";
      out_ += fmt::format("(output {}{}){}\n", name,
                          operand_text(o.term, top, 0, default_literal_dtype(o.term)),
                          type_comment(o.term->type()));
    }
    return out_;
  }

  // `t` on its own, every value inline (no `let`), free parameters named
  // p0, p1, ... by slot, calls naming the context's defs (f0, ... for others).
  std::string expression(TermRef t) {
    inline_all_ = true;
    for (TermRef fn : called_fns({t})) emit_fn(fn);
    Scope scope;
    int counter = 0;
    std::int64_t slots = 0;
    for (std::int64_t k : t->free_nominals()) slots = std::max(slots, k + 1);
    for (std::int64_t k = 0; k < slots; ++k) scope.params.push_back(fresh("p", counter));
    if (t->kind() == OpKind::Fn) {  // a body on its own: its own parameters
      Scope body;
      std::string names;
      counter = 0;
      for (std::size_t i = 0; i < t->attrs().get<std::vector<TensorType>>(AttrKey::Params).size();
           ++i) {
        body.params.push_back(fresh("p", counter));
        names += (i ? " " : "") + body.params.back();
      }
      return fmt::format("(fn ({})\n", names) + body_text(t, body, 2, {});
    }
    if (t->is_tuple()) return expr(t, scope, 0);
    return operand_text(t, scope, 0, default_literal_dtype(t));
  }

 private:
  struct Scope {
    std::vector<std::string> params;
    std::unordered_map<TermRef, std::string> bound;
  };

  std::string type_comment(const Type& t) const {
    return options_.types ? fmt::format("  ; {}", to_string(t)) : std::string();
  }

  std::string fresh(const char* prefix, int& counter) {
    for (;;) {
      std::string name = fmt::format("{}{}", prefix, counter++);
      if (!taken_.contains(name)) return name;
    }
  }

  // ---- defs ----------------------------------------------------------------

  // The fns called anywhere under `roots` (through scan bodies too), in
  // first-reached order. Not `for_each_post_order`: it goes into the bodies
  // of scans but not into those of calls (each called fn is a def of its
  // own, whose calls `emit_dependencies` lists when it prints it).
  std::vector<TermRef> called_fns(const std::vector<TermRef>& roots) const {
    std::vector<TermRef> out, stack(roots.rbegin(), roots.rend());
    std::unordered_set<TermRef> seen;
    while (!stack.empty()) {
      TermRef t = stack.back();
      stack.pop_back();
      if (!seen.insert(t).second) continue;
      if (t->kind() == OpKind::Call) out.push_back(t->operand(0));
      const std::size_t first = t->kind() == OpKind::Call ? 1 : 0;
      for (std::size_t i = t->arity(); i-- > first;) stack.push_back(t->operand(i));
    }
    return out;
  }

  void emit_def_entry(std::size_t i) {
    if (printed_defs_.contains(i)) return;
    printed_defs_.insert(i);
    const NamedTerm& d = graph_.defs[i];
    emit_dependencies(d.term);
    print_def(d.name, d.term);
  }

  void emit_dependencies(TermRef fn) {
    emitted_fns_.insert(fn);  // a def cannot call itself: terms are acyclic
    std::vector<TermRef> roots(fn->operands().begin(), fn->operands().end());
    for (TermRef dep : called_fns(roots)) emit_fn(dep);
  }

  // Prints the def of a called `fn` unless one was printed already.
  void emit_fn(TermRef fn) {
    if (emitted_fns_.contains(fn)) return;
    for (std::size_t i = 0; i < graph_.defs.size(); ++i)
      if (graph_.defs[i].term == fn) return emit_def_entry(i);
    int counter = 0;
    const std::string name = fresh("f", counter);
    taken_.insert(name);
    fn_names_.emplace(fn, name);
    emit_dependencies(fn);
    print_def(name, fn);
  }

  void print_def(const std::string& name, TermRef fn) {
    emitted_fns_.insert(fn);
    Scope body;
    std::string params;
    int counter = 0;
    for (const auto& type : fn->attrs().get<std::vector<TensorType>>(AttrKey::Params)) {
      body.params.push_back(fresh("p", counter));
      params +=
          fmt::format("{}({} {})", params.empty() ? "" : " ", body.params.back(), to_string(type));
    }
    out_ += fmt::format("(def {} (fn ({})\n", name, params);
    out_ += body_text(fn, body, 2, {});
    out_ += fn->attrs().get_or<bool>(AttrKey::Inline, true) ? ")\n" : " :inline false)\n";
  }

  // The lets and outputs of a body, one per line at `indent`, ending with
  // the `fn`'s closing parenthesis (no newline). `state_dtypes` are the
  // dtypes the first outputs must have (a scan's states).
  std::string body_text(TermRef fn, Scope& body, int indent,
                        const std::vector<DType>& state_dtypes) {
    std::vector<TermRef> roots(fn->operands().begin(), fn->operands().end());
    std::string text;
    emit_lets(roots, body, indent, text);
    for (std::size_t i = 0; i < roots.size(); ++i) {
      DType d = default_literal_dtype(roots[i]);
      if (i < state_dtypes.size()) d = promote(state_dtypes[i], false, d, true);
      text += fmt::format("{:{}}{}{}", "", indent, operand_text(roots[i], body, indent, d),
                          i + 1 < roots.size() ? "\n" : ")");
    }
    return text;
  }

  // ---- lets ----------------------------------------------------------------

  // Gives a `let` (appended to `text`, one per line at `indent`) to every
  // term under `roots` that is shared, a tuple, or too large to inline.
  void emit_lets(const std::vector<TermRef>& roots, Scope& scope, int indent, std::string& text) {
    if (inline_all_) return;
    // Flat maps: these two were 3% of optimizing a 48,000-term graph.
    absl::flat_hash_map<TermRef, int> uses;
    for (TermRef r : roots) ++uses[r];
    std::vector<TermRef> order;  // post-order, without the bodies: they are scopes of their own
    for_each_post_order(roots, Bodies::Skip, [&](TermRef t) {
      if (t->kind() == OpKind::Fn) return;
      for (TermRef c : scope_children(t)) ++uses[c];
      order.push_back(t);
    });
    std::unordered_set<TermRef> root_set(roots.begin(), roots.end());
    absl::flat_hash_map<TermRef, int> size;
    size.reserve(order.size());
    for (TermRef t : order) {
      if (is_leaf(t)) {
        size[t] = 0;
        continue;
      }
      int s = 1;
      for (TermRef c : scope_children(t))
        if (!scope.bound.contains(c)) s += size[c];
      size[t] = s;
      const bool shared = uses[t] > 1;
      const bool bind =
          t->is_tuple() || shared ||
          (!root_set.contains(t) && (s > kMaxInlineOps || t->kind() == OpKind::Const));
      if (!bind) continue;
      const std::string name = fresh("v", let_counter_);
      const std::string value = expr(t, scope, indent);
      scope.bound.emplace(t, name);
      text += fmt::format("{:{}}(let {} {}){}\n", "", indent, name, value, type_comment(t->type()));
    }
  }

  // ---- expressions -----------------------------------------------------------

  // An operand where a weak literal would take `weak_dtype`.
  std::string operand_text(TermRef t, Scope& scope, int indent, DType weak_dtype) {
    if (literal_candidate(t) && t->tensor_type().dtype == weak_dtype && !scope.bound.contains(t))
      return literal_text(t);
    return expr(t, scope, indent);
  }

  std::string expr(TermRef t, Scope& scope, int indent) {
    if (auto it = scope.bound.find(t); it != scope.bound.end()) return it->second;
    switch (t->kind()) {
      case OpKind::Input:
        return t->attrs().get<std::string>(AttrKey::Name);
      case OpKind::Nominal: {
        const auto slot = t->attrs().get<std::int64_t>(AttrKey::Slot);
        EQSAT_ASSERT(slot >= 0 && static_cast<std::size_t>(slot) < scope.params.size())
            << "print_graph: parameter " << slot
            << " is read where no body gives it (an invalid graph)";
        return scope.params[static_cast<std::size_t>(slot)];
      }
      case OpKind::Const:
        return const_text(t);
      case OpKind::Get:
        return fmt::format("(get {} {})", t->attrs().get<std::int64_t>(AttrKey::Index),
                           expr(t->operand(0), scope, indent));
      case OpKind::Scan:
        return scan_text(t, scope, indent);
      case OpKind::Fn:
        EQSAT_ASSERT(false) << "print_graph: a body (fn) used as a value";
        break;
      default:
        break;
    }
    return application_text(t, scope, indent);
  }

  static std::string const_text(TermRef t) {
    if (const AttrValue* path = t->attrs().find(AttrKey::Path))
      return fmt::format("(load {})", quoted(std::get<std::string>(*path)));
    const Array& a = *t->const_value();
    if (a.rank() == 0 && a.dtype() == DType::Bool) return element_text(a, 0);
    std::string values;
    for (std::int64_t i = 0; i < a.size(); ++i) {
      if (i) values += ' ';
      append_element_text(values, a, i);
    }
    return fmt::format("(const {} ({}))", to_string(a.type()), values);
  }

  // `(OP OPERANDS... :ATTR VALUE...)` for ops and `(call F ARGS...)`.
  std::string application_text(TermRef t, Scope& scope, int indent) {
    const OpKind kind = t->kind();
    // Leave out every attribute the type rule would fill in the same way.
    Attrs printed = t->attrs();
    for (const auto& [key, value] : t->attrs().entries()) {
      Attrs without = printed;
      without.erase(key);
      Attrs canonical = without;
      try {
        check_op(kind, canonical, t->operands());
      } catch (const TypeError&) {
        continue;
      }
      if (canonical == t->attrs()) printed = std::move(without);
    }
    // Scalar constants that bare literals can stand for: start from all of
    // them and drop those the weak-literal rule would type differently
    // (each drop can only change the others' dtypes, so this settles).
    const std::size_t n = t->arity();
    std::vector<bool> literal(n);
    for (std::size_t i = 0; i < n; ++i) literal[i] = literal_candidate(t->operand(i));
    if (kind == OpKind::Call) literal[0] = false;
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<PendingOperand> pending;
      for (std::size_t i = 0; i < n; ++i)
        pending.push_back(
            literal[i] ? PendingOperand{nullptr, is_float(t->operand(i)->tensor_type().dtype)}
                       : PendingOperand{t->operand(i), false});
      for (std::size_t i = 0; i < n; ++i)
        if (literal[i] &&
            weak_literal_dtype(kind, printed, pending, i) != t->operand(i)->tensor_type().dtype) {
          literal[i] = false;
          changed = true;
        }
    }
    std::string s = kind == OpKind::Call ? fmt::format("(call {}", fn_names_.at(t->operand(0)))
                                         : fmt::format("({}", op_name(kind));
    for (std::size_t i = kind == OpKind::Call ? 1 : 0; i < n; ++i) {
      s += ' ';
      s += literal[i] ? literal_text(t->operand(i)) : expr(t->operand(i), scope, indent);
    }
    for (const auto& [key, value] : printed.entries())
      s += fmt::format(" :{} {}", attr_key_name(key), attr_value_text(value));
    return s + ")";
  }

  std::string scan_text(TermRef t, Scope& scope, int indent) {
    const ScanSpec& spec = t->attrs().get<ScanSpec>(AttrKey::Scan);
    std::size_t at = 1;
    auto next = [&](DType weak) { return operand_text(t->operand(at++), scope, indent, weak); };
    auto slot = [&]() {
      TermRef x = t->operand(at);
      return next(default_literal_dtype(x));
    };
    std::string s = "(scan";
    if (spec.has_n_steps) s += " :n-steps " + next(default_literal_dtype(t->operand(at)));
    auto entries = [&](const char* key, const std::vector<IntList>& taps, const IntList& plain) {
      if (taps.empty()) return;
      s += fmt::format(" :{} (", key);
      for (std::size_t i = 0; i < taps.size(); ++i) {
        if (i) s += " ";
        const std::string e = slot();
        s += taps[i] == plain ? e : fmt::format("({} :taps {})", e, int_list_text(taps[i]));
      }
      s += ")";
    };
    entries("sequences", spec.sequence_taps, IntList{0});
    entries("mit-sot", spec.mitsot_taps, IntList{});
    auto plain_slots = [&](const char* key, std::int64_t count) {
      if (count == 0) return;
      s += fmt::format(" :{} (", key);
      for (std::int64_t i = 0; i < count; ++i) {
        if (i) s += ' ';
        s += slot();
      }
      s += ")";
    };
    plain_slots("sit-sot", spec.num_sitsot);
    if (spec.num_nitsot) s += fmt::format(" :nit-sot {}", spec.num_nitsot);
    plain_slots("non-sequences", spec.num_nonsequences);
    if (spec.until) s += " :until true";
    if (!spec.keep.empty()) {
      s += " :keep (";
      for (std::size_t i = 0; i < spec.keep.size(); ++i) {
        if (i) s += ' ';
        s += spec.keep[i] == 0 ? std::string("all") : std::to_string(spec.keep[i]);
      }
      s += ")";
    }

    // The body, with the states' dtypes for its literal outputs.
    TermRef fn = t->operand(0);
    const auto& params = fn->attrs().get<std::vector<TensorType>>(AttrKey::Params);
    std::vector<DType> states;
    std::size_t k = 0;
    for (const auto& taps : spec.sequence_taps) k += taps.size();
    for (const auto& taps : spec.mitsot_taps) {
      states.push_back(params[k].dtype);
      k += taps.size();
    }
    for (std::int64_t i = 0; i < spec.num_sitsot; ++i) states.push_back(params[k++].dtype);
    Scope body;
    int counter = 0;
    std::string names, types;
    for (std::size_t i = 0; i < params.size(); ++i) {
      body.params.push_back(fresh("p", counter));
      if (i) names += ' ';
      names += body.params.back();
      types += fmt::format("{}{}: {}", i ? ", " : "", body.params.back(), to_string(params[i]));
    }
    s += fmt::format("\n{:{}}(fn ({}){}\n", "", indent + 2, names,
                     options_.types && !params.empty() ? fmt::format("  ; {}", types) : "");
    s += body_text(fn, body, indent + 4, states);
    return s + ")";
  }

  const Graph& graph_;
  PrintOptions options_;
  std::string out_;
  std::unordered_set<std::string> taken_;  // input and def names
  std::unordered_map<TermRef, std::string> fn_names_;
  std::unordered_set<std::size_t> printed_defs_;
  std::unordered_set<TermRef> emitted_fns_;
  int let_counter_ = 0;
  bool inline_all_ = false;
};

}  // namespace

std::string print_graph(const Graph& graph, PrintOptions options) {
  return Printer(graph, options).run();
}

std::string print_expression(TermRef t, const Graph& context) {
  return Printer(context, {}).expression(t);
}

}  // namespace eqsat::ops
