#include "rules/pipeline/validate.hpp"

#include "rules/pipeline/validate_gradients.hpp"
#include "rules/pipeline/validation_inputs.hpp"

#include "backend/program.hpp"
#include "backend/runtime_error.hpp"
#include "ops/post_order.hpp"
#include "ops/type_error.hpp"
#include "support/internal_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <new>
#include <stdexcept>
#include <unordered_map>

namespace eqsat::rules {

namespace {

// The values of a graph's outputs, or why it failed (a run-time error).
struct Outcome {
  std::optional<std::vector<ops::Array>> values;
  std::string error;
};

Outcome run_graph(const ops::Graph& g, const std::vector<ops::Array>& inputs) {
  try {
    return {backend::compile(g).run(inputs), ""};
  } catch (const backend::RuntimeError& e) {
    return {std::nullopt, e.what()};
  } catch (const std::bad_alloc&) {
    return {std::nullopt, "out of memory"};
  }
}

// `g` with output `k` alone: its own computation, nothing another output needs.
ops::Graph single_output(const ops::Graph& g, std::size_t k) {
  ops::Graph one = g;
  one.outputs = {g.outputs[k]};
  return one;
}

bool uses_f32(const ops::Graph& g) {
  std::vector<ops::TermRef> roots(g.inputs);
  for (const auto& o : g.outputs) roots.push_back(o.term);
  bool found = false;
  ops::for_each_post_order(roots, ops::Bodies::Enter, [&](ops::TermRef t) {
    if (!t->is_tuple() && t->kind() != ops::OpKind::Fn && t->tensor_type().dtype == ops::DType::F32)
      found = true;
  });
  return found;
}

bool any_element(const ops::Array& a, bool (*p)(double)) {
  for (std::int64_t i = 0; i < a.size(); ++i)
    if (p(a.element(i))) return true;
  return false;
}

bool is_nan(double v) {
  return std::isnan(v);
}
bool is_inf_or_zero(double v) {
  return std::isinf(v) || v == 0;
}

// Whether element `i` of an operand `o` of term `t` of `shape` satisfies
// `p`: the same element for elementwise ops whose shapes agree, any
// element otherwise (a softmax mixes its row, a reduction its axes).
bool operand_element(ops::TermRef t, const ops::Array& o, const ops::Dims& shape, std::int64_t i,
                     bool (*p)(double)) {
  const ops::OpGroup g = t->info().group;
  const bool elementwise = g == ops::OpGroup::Unary || g == ops::OpGroup::Binary;
  return elementwise && o.shape() == shape ? p(o.element(i)) : any_element(o, p);
}

// Whether the NaNs of the written output `root` on `inputs` come from range
// (∞ − ∞, 0·∞, 0/0: an operand holding ±∞ or 0) rather than from a domain
// error (√, log or pow of a negative): every element that is NaN in a
// term's value while no operand's is gets looked at (element by element
// for elementwise ops of one shape). NaNs given or written as constants, and those
// of loops and calls (whose bodies are not looked into), count as range.
bool nan_from_range(const ops::Graph& written, ops::TermRef root,
                    const std::vector<ops::Array>& inputs) {
  ops::Graph g = written;
  g.outputs.clear();
  std::unordered_map<ops::TermRef, std::size_t> at;
  ops::for_each_post_order(std::span(&root, 1), ops::Bodies::Skip, [&](ops::TermRef t) {
    if (t->is_tuple() || t->kind() == ops::OpKind::Fn) return;
    at.emplace(t, g.outputs.size());
    g.outputs.push_back({fmt::format("t{}", g.outputs.size()), t});
  });
  const Outcome values = run_graph(g, inputs);
  if (!values.values) return false;
  for (const auto& [t, k] : at) {
    if (t->arity() == 0 || t->kind() == ops::OpKind::Get || t->kind() == ops::OpKind::Call)
      continue;
    const ops::Array& v = (*values.values)[k];
    for (std::int64_t i = 0; i < v.size(); ++i) {
      if (!std::isnan(v.element(i))) continue;
      bool operand_nan = false, operand_range = false;
      for (ops::TermRef o : t->operands()) {
        const auto it = at.find(o);
        if (it == at.end()) continue;
        const ops::Array& ov = (*values.values)[it->second];
        operand_nan = operand_nan || operand_element(t, ov, v.shape(), i, is_nan);
        operand_range = operand_range || operand_element(t, ov, v.shape(), i, is_inf_or_zero);
      }
      if (!operand_nan && !operand_range) return false;
    }
  }
  return true;
}

// The message of a run-time error without its `FILE:LINE:COL: error: `.
std::string_view unlocated(std::string_view message) {
  const auto at = message.find(": error: ");
  return at == std::string_view::npos ? message : message.substr(at + 9);
}

// Whether the run-time error of the written output `root` may lie in work
// its value does not read, which the optimizer may remove
// (docs/architecture.md decision 13): the first outer term that fails is
// reached from `root` only through the inputs of loops and calls (whose
// bodies may not use them), or it is a loop's or a call's result failing
// in its body (a body output of another shape than its state's included).
// A term the output reads directly (`dim` of it included), and a loop's
// own error on its inputs (`scan: :n-steps ...`), must stay an error.
bool failure_unread(const ops::Graph& written, ops::TermRef root,
                    const std::vector<ops::Array>& inputs) {
  auto opaque = [](ops::TermRef t) {
    return t->kind() == ops::OpKind::Scan || t->kind() == ops::OpKind::Call;
  };
  std::vector<ops::TermRef> terms;
  ops::for_each_post_order(std::span(&root, 1), ops::Bodies::Skip, [&](ops::TermRef t) {
    if (!t->is_tuple() && t->kind() != ops::OpKind::Fn) terms.push_back(t);
  });
  ops::Graph g = written;
  for (ops::TermRef t : terms) {
    g.outputs = {{"t", t}};
    const Outcome o = run_graph(g, inputs);
    if (o.values) continue;
    const bool result = opaque(t) || (t->kind() == ops::OpKind::Get && opaque(t->operand(0)));
    const std::string_view message = unlocated(o.error);
    if (result) return !message.starts_with("scan:") || message.starts_with("scan: body output");
    bool direct = false;  // reached without passing through a loop's or call's inputs
    ops::for_each_post_order(
        std::span(&root, 1), ops::Bodies::Skip, [&](ops::TermRef u) { direct = direct || u == t; },
        [&](ops::TermRef u) { return !opaque(u); });
    return !direct;
  }
  return false;
}

// What the rules on an output's path allow beyond rounding (validate.hpp).
struct Allowances {
  bool stabilize = false;       // a range artefact may become a finite value
  bool nan_from_range = false;  // the written NaNs are such artefacts
  bool reassociate = false;     // a non-finite value may become another
};

bool agree(double w, double o, bool exact, double tol, Allowances allow) {
  if ((std::isnan(w) && std::isnan(o)) || w == o) return true;
  if (exact) return false;
  if (std::isfinite(w) && std::isfinite(o) &&
      std::abs(w - o) <= tol * (1 + std::max(std::abs(w), std::abs(o))))
    return true;
  // A NaN of range may become ±∞ too: the limit the stable form reaches
  // (log_softmax of a row holding +∞ is −∞ at its finite elements, where
  // log(softmax x) is ∞ − ∞ = NaN).
  if (allow.stabilize &&
      ((std::isfinite(o) && (std::isinf(w) || w == 0)) || (std::isnan(w) && allow.nan_from_range)))
    return true;
  return allow.reassociate && !std::isfinite(w);
}

// The first difference between an output's written and optimized values.
std::optional<std::string> difference(const ops::Array& w, const ops::Array& o, bool exact,
                                      double tol, Allowances allow) {
  if (w.type() != o.type())
    return fmt::format("written {}, optimized {}", ops::to_string(w.type()),
                       ops::to_string(o.type()));
  exact = exact || !ops::is_float(w.dtype());
  for (std::int64_t i = 0; i < w.size(); ++i)
    if (!agree(w.element(i), o.element(i), exact, tol, allow))
      return fmt::format("element {}: written {}, optimized {}{}", i, w.element(i), o.element(i),
                         exact ? " (the output's term is unchanged: values must be equal)" : "");
  return std::nullopt;
}

// The rules on each output's path, from an explanation (optimize again
// with explanations on: deterministic, so it reaches the same graph).
struct Paths {
  std::vector<std::vector<std::string>> rules;  // per output
  std::map<std::string, std::string> ruleset;   // rule -> its rule set
  std::string note;                             // why the paths are unknown
};

Paths explain_paths(const ops::Graph& written, const RuleProgram& rules,
                    const OptimizeOptions& options) {
  OptimizeOptions o = options;
  o.explain = true;
  o.progress = nullptr;
  o.saturated = nullptr;
  OptimizeReport report;
  Paths p;
  p.rules.resize(written.outputs.size());
  try {
    optimize(written, rules, &report, o);
  } catch (const std::length_error& e) {
    p.note = fmt::format("not known: {}", e.what());
    return p;
  } catch (const InternalError& e) {
    // A bug in explanations: the difference found stands without its path.
    p.note = fmt::format("not known: explaining it failed ({})", e.what());
    return p;
  } catch (const ops::TypeError& e) {
    p.note = fmt::format("not known: explaining it failed ({})", e.what());
    return p;
  }
  for (const RuleReport& r : report.rules) p.ruleset.emplace(r.name, r.ruleset);
  for (std::size_t k = 0; k < report.explanations.size() && k < p.rules.size(); ++k)
    for (const TermStep& s : report.explanations[k].steps)
      if (std::ranges::find(p.rules[k], s.rule) == p.rules[k].end()) p.rules[k].push_back(s.rule);
  return p;
}

Allowances allowances(const Paths& p, std::size_t k) {
  Allowances a;
  for (const std::string& rule : p.rules[k]) {
    const auto it = p.ruleset.find(rule);
    const std::string set = it == p.ruleset.end() ? "" : it->second;
    a.stabilize = a.stabilize || set == "stabilize";
    a.reassociate = a.reassociate || set == "fast-math" || rule.starts_with("dot-assoc");
  }
  return a;
}

// One validation: the sets, and the paths once a difference needs them.
class Validation {
 public:
  // `written` and `optimized` hold the outputs to compare, `source` every
  // output of the graph as written: output k is source's `source_index[k]`.
  // `grad_outputs`: source's outputs holding a grad (`all_optimized` the
  // optimized graph with every output).
  Validation(const ops::Graph& source, std::vector<std::size_t> source_index,
             const ops::Graph& written, const ops::Graph& optimized,
             const ops::Graph& all_optimized, const std::vector<std::size_t>& grad_outputs,
             const RuleProgram& rules, const OptimizeOptions& options, const ValidateOptions& v)
      : source_(source),
        source_index_(std::move(source_index)),
        written_(written),
        optimized_(optimized),
        rules_(rules),
        options_(options),
        draw_(written, v.fixed, v.seed),
        sets_(draw_.random() ? v.input_sets : std::min<std::size_t>(v.input_sets, 1)),
        tol_(uses_f32(written) || uses_f32(optimized) ? kValidateToleranceF32 : kValidateTolerance),
        grads_(source, all_optimized, grad_outputs, uses_f32(source) || uses_f32(all_optimized)) {
    for (std::size_t k : grads_.checked()) result_.gradients.push_back(source.outputs[k].name);
    for (std::size_t k : grads_.unchecked()) result_.unchecked.push_back(source.outputs[k].name);
  }

  ValidationResult run(const ValidateOptions& v) {
    if (written_.outputs.empty() && grads_.checked().empty()) return std::move(result_);
    if (v.before_drawing) v.before_drawing(draw_.largest_types());
    for (std::size_t s = 0; s < sets_ && !result_.mismatch; ++s) {
      const std::vector<ops::Array> inputs = draw_.input_set(s);
      ++result_.input_sets;
      if (!written_.outputs.empty()) check_set(s, inputs);
      if (!result_.mismatch && !grads_.checked().empty()) check_gradients(s, inputs);
    }
    return std::move(result_);
  }

 private:
  void check_gradients(std::size_t s, const std::vector<ops::Array>& inputs) {
    bool skipped = false;
    auto m = grads_.check(inputs, skipped);
    ++(skipped ? result_.gradient_sets_skipped : result_.gradient_sets);
    if (m) refuse_source(s, m->output, inputs, std::move(m->difference));
  }

  void check_set(std::size_t s, const std::vector<ops::Array>& inputs) {
    const Outcome w = run_graph(written_, inputs);
    if (!w.values) {  // each output alone: its own computation must fail optimized too
      ++result_.written_fails;
      for (std::size_t k = 0; k < written_.outputs.size() && !result_.mismatch; ++k)
        check_alone(s, k, inputs, run_graph(single_output(written_, k), inputs));
      return;
    }
    const Outcome o = run_graph(optimized_, inputs);
    if (!o.values) {
      for (std::size_t k = 0; k < written_.outputs.size() && !result_.mismatch; ++k)
        check_alone(s, k, inputs, {std::vector<ops::Array>{(*w.values)[k]}, ""});
      if (!result_.mismatch)  // no output fails alone: the graph as a whole does
        refuse(s, 0, inputs,
               fmt::format("the optimized graph fails where the written one runs: {}", o.error));
      return;
    }
    for (std::size_t k = 0; k < written_.outputs.size() && !result_.mismatch; ++k)
      compare(s, k, inputs, (*w.values)[k], (*o.values)[k]);
  }

  void check_alone(std::size_t s, std::size_t k, const std::vector<ops::Array>& inputs,
                   const Outcome& w) {
    const Outcome o = run_graph(single_output(optimized_, k), inputs);
    if (!w.values && o.values) {
      if (!failure_unread(written_, written_.outputs[k].term, inputs))
        refuse(
            s, k, inputs,
            fmt::format("the written output fails ({}), the optimized one gives a value", w.error));
    } else if (w.values && !o.values)
      refuse(s, k, inputs,
             fmt::format("the optimized output fails where the written one runs: {}", o.error));
    else if (w.values)
      compare(s, k, inputs, w.values->front(), o.values->front());
  }

  void compare(std::size_t s, std::size_t k, const std::vector<ops::Array>& inputs,
               const ops::Array& w, const ops::Array& o) {
    const bool exact = written_.outputs[k].term == optimized_.outputs[k].term;
    if (!difference(w, o, exact, tol_, {})) return;
    if (!paths_) paths_ = explain_paths(source_, rules_, options_);
    Allowances allow = allowances(*paths_, source_index_[k]);
    allow.nan_from_range =
        allow.stabilize && nan_from_range(written_, written_.outputs[k].term, inputs);
    if (auto why = difference(w, o, exact, tol_, allow)) refuse(s, k, inputs, *why);
  }

  void refuse(std::size_t s, std::size_t k, const std::vector<ops::Array>& inputs,
              std::string why) {
    refuse_source(s, source_index_[k], inputs, std::move(why));
  }

  // The refusal of source's output `k`.
  void refuse_source(std::size_t s, std::size_t k, const std::vector<ops::Array>& inputs,
                     std::string why) {
    if (!paths_) paths_ = explain_paths(source_, rules_, options_);
    ValidationMismatch m{
        source_.outputs[k].name, s + 1,       sets_, draw_.describe(inputs), std::move(why),
        paths_->rules[k],        paths_->note};
    if (m.rules.empty() && m.path_note.empty())
      m.path_note = "none: the optimized output is the written one";
    result_.mismatch = std::move(m);
  }

  const ops::Graph& source_;
  std::vector<std::size_t> source_index_;
  const ops::Graph& written_;
  const ops::Graph& optimized_;
  const RuleProgram& rules_;
  const OptimizeOptions& options_;
  ValidationInputs draw_;
  std::size_t sets_;
  double tol_;
  std::optional<Paths> paths_;
  ValidationResult result_;
  GradientValidation grads_;
};

}  // namespace

ValidationResult validate_optimization(const ops::Graph& written, const ops::Graph& optimized,
                                       const RuleProgram& rules, const OptimizeOptions& options,
                                       const ValidateOptions& validate) {
  ops::Graph w = written, o = optimized;
  w.outputs.clear();
  o.outputs.clear();
  std::vector<std::size_t> index, grads;
  for (std::size_t k = 0; k < written.outputs.size(); ++k) {
    if (holds_grad(written.outputs[k].term)) {
      grads.push_back(k);
      continue;
    }
    index.push_back(k);
    w.outputs.push_back(written.outputs[k]);
    o.outputs.push_back(optimized.outputs.at(k));
  }
  return Validation(written, std::move(index), w, o, optimized, grads, rules, options, validate)
      .run(validate);
}

std::string to_string(const ValidationMismatch& m, const std::string& source) {
  std::string text = fmt::format("{}: error: --validate: output {} differs on input set {} of {}\n",
                                 source, m.output, m.input_set, m.input_sets);
  text += fmt::format("  {}\n  input set {}: {}\n", m.difference, m.input_set, m.inputs);
  if (!m.rules.empty())
    text += fmt::format("  rules on the path from the written output to the optimized one: {}\n",
                        fmt::join(m.rules, ", "));
  else
    text += fmt::format("  rules on the path: {}\n", m.path_note);
  return text;
}

std::string summary(const ValidationResult& r) {
  if (r.input_sets == 0)
    return fmt::format(
        "--validate: nothing compared: every output holds a grad that cannot be checked "
        "against finite differences: {}",
        fmt::join(r.unchecked, ", "));
  std::string text = fmt::format(
      "--validate: the written and the optimized graph agree on {} "
      "input set{}",
      r.input_sets, r.input_sets == 1 ? "" : "s");
  if (r.written_fails > 0)
    text += fmt::format(" ({} on which the written graph fails, checked output by output)",
                        r.written_fails);
  if (!r.gradients.empty()) {
    text +=
        fmt::format("; gradients {} agree with finite differences on {} input set{}",
                    fmt::join(r.gradients, ", "), r.gradient_sets, r.gradient_sets == 1 ? "" : "s");
    if (r.gradient_sets_skipped > 0)
      text += fmt::format(" ({} skipped: they hold ±∞ or NaN)", r.gradient_sets_skipped);
  }
  if (!r.unchecked.empty())
    text += fmt::format(
        "; not compared, as only a whole output (grad COST WRT) is checked against finite "
        "differences: {}",
        fmt::join(r.unchecked, ", "));
  return text;
}

}  // namespace eqsat::rules
