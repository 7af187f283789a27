#include "tests/rules/property_check.hpp"

#include "rules/pipeline/validate.hpp"

#include "backend/program.hpp"
#include "backend/runtime_error.hpp"
#include "ops/graph_printer.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

namespace eqsat::testing {

using ops::DType;
using ops::OpKind;
using ops::TermRef;
using rules::OptimizeReport;
using rules::RuleProgram;
using rules::RuleReport;

std::optional<std::string> compare(const std::vector<ops::Array>& expected,
                                   const std::vector<ops::Array>& actual,
                                   const ops::Graph& optimized, bool nan_stays) {
  if (expected.size() != actual.size()) return "number of outputs differs";
  for (std::size_t k = 0; k < expected.size(); ++k) {
    const ops::Array &e = expected[k], &a = actual[k];
    std::string where = "output ";
    where.append(std::to_string(k));
    if (e.dtype() != a.dtype()) return where.append(": dtype differs");
    if (e.shape() != a.shape()) return where.append(": shape differs");
    // f32 rounding reaches f64 outputs through casts and promotion.
    const bool f32 = std::ranges::any_of(
        optimized.inputs, [](TermRef in) { return in->tensor_type().dtype == DType::F32; });
    const double tol = f32 || e.dtype() == DType::F32 ? 1e-4 : 1e-7;
    for (std::int64_t i = 0; i < e.size(); ++i) {
      const double x = e.element(i), y = a.element(i);
      bool ok;
      if (std::isnan(x)) {
        // Unless NaN must stay: linalg's dot-assoc re-associates products,
        // and with ±∞ entries one bracketing gives NaN where the other
        // gives ±∞ (documented in rules/linalg.rules).
        ok = !nan_stays || std::isnan(y);
      } else if (std::isinf(x)) {
        // An ∞ of either sign or a finite value: rules may change the sign
        // of a zero (0·−1 → −0 becomes neg), and the reciprocal of that
        // zero is the other ∞.
        ok = !std::isnan(y);
      } else {
        ok = std::abs(x - y) <= tol * (1 + std::max(std::abs(x), std::abs(y)));
      }
      if (!ok)
        return where.append(" element ")
            .append(std::to_string(i))
            .append(": expected ")
            .append(std::to_string(x))
            .append(", got ")
            .append(std::to_string(y));
    }
  }
  return std::nullopt;
}

namespace {

// Ops whose appearance the original must justify: loops, calls and bodies
// only where it had them; never a gradient.
std::optional<std::string> unjustified_op(const ops::Graph& before, const ops::Graph& after) {
  std::set<OpKind> had;
  std::function<void(TermRef, std::set<OpKind>&)> collect = [&](TermRef t, std::set<OpKind>& s) {
    if (!s.insert(t->kind()).second && t->arity() == 0) return;
    for (TermRef o : t->operands()) collect(o, s);
  };
  std::set<OpKind> now;
  for (const auto& o : before.outputs) collect(o.term, had);
  for (const auto& o : after.outputs) collect(o.term, now);
  for (OpKind k : {OpKind::Grad, OpKind::Scan, OpKind::Call, OpKind::Fn})
    if (now.count(k) && !had.count(k))
      return std::string("optimized graph has `") + std::string(ops::op_info(k).name) +
             "`, the original has none";
  return std::nullopt;
}

// Rules whose application may change values beyond rounding where the
// written graph rounds, cancels or overflows (see check_case_unguarded).
bool changes_rounding(const OptimizeReport& r) {
  // A stabilizing rewrite computes the more accurate value where the
  // original cancels or overflows (1 − σ(30), √(x²) for huge x, log1p of
  // expm1(−40) = −1), and a discontinuous op after it (sign, eq, pow of a
  // negative base) turns that into any difference; a re-associating one
  // changes rounding: linalg's matrix-chain reordering re-associates float
  // sums, whose rounding, amplified by sin/cos of large values, a long
  // product or ∞ entries, differs (documented in rules/linalg.rules).
  return std::ranges::any_of(r.rules, [](const RuleReport& rule) {
    return rule.applications > 0 &&
           (rule.ruleset == "stabilize" || rule.name.starts_with("dot-assoc"));
  });
}

bool reassociated(const OptimizeReport& r) {
  return std::ranges::any_of(r.rules, [](const RuleReport& rule) {
    return rule.applications > 0 && rule.name.starts_with("dot-assoc");
  });
}

// The shipped schedule with at most 20,000 e-nodes per step: a random graph
// whose loops fuse and shorten in many ways stops at that size, the same
// way in each run, rather than at the schedule's time limit, where each
// run stops elsewhere (and the determinism check must be skipped).
rules::OptimizeOptions node_limited() {
  rules::OptimizeOptions options;
  options.node_limit = 20000;
  return options;
}
const rules::OptimizeOptions kOptions = node_limited();

CaseResult check_case_unguarded(const RandomCase& c, const RuleProgram& rules,
                                const std::vector<ops::Array>& inputs, bool corners,
                                std::map<std::string, int>* applied) {
  CaseResult out;
  std::vector<ops::Array> expected;
  try {
    expected = backend::compile(c.graph).run(inputs);
  } catch (const backend::RuntimeError&) {
    out.skipped = true;  // the original itself fails (e.g. shapes that do not broadcast)
  } catch (const std::exception& e) {
    out.skipped = true;  // an executor bug, not the optimizer's: reported by the caller
    out.failure = std::string("executor: ") + e.what();
    return out;
  }
  if (out.skipped && !corners) return out;
  OptimizeReport r1, r2;
  try {
    out.optimized = rules::optimize(c.graph, rules, &r1, kOptions);
  } catch (const std::exception& e) {
    out.failure = std::string("optimize threw: ") + e.what();
    return out;
  }
  const ops::Graph& first = out.optimized;
  if (out.skipped) {
    // Each output alone: one whose written computation fails must fail
    // optimized too, the others agree (issue 25 point 8).
    const auto v = rules::validate_optimization(
        c.graph, first, rules, {}, {.input_sets = 1, .fixed = {inputs.begin(), inputs.end()}});
    if (v.mismatch) out.failure = rules::to_string(*v.mismatch, "case");
    return out;
  }
  if (applied)
    for (const auto& rule : r1.rules) (*applied)[rule.name] += rule.applications > 0;
  if (r1.cost_after > r1.cost_before * (1 + 1e-12)) {
    out.failure = "cost_after " + std::to_string(r1.cost_after) + " > cost_before " +
                  std::to_string(r1.cost_before);
    return out;
  }
  if ((out.failure = unjustified_op(c.graph, first))) return out;
  std::vector<ops::Array> actual;
  try {
    actual = backend::compile(first).run(inputs);
  } catch (const std::exception& e) {
    out.failure = std::string("the optimized graph fails: ") + e.what();
    return out;
  }
  if (auto why = compare(expected, actual, first, corners && !reassociated(r1))) {
    if (changes_rounding(r1))
      out.stabilized = true;  // counted by the caller (at most 2%), not a failure
    else
      out.failure = why;
    return out;
  }
  const ops::Graph second = rules::optimize(c.graph, rules, &r2, kOptions);
  const bool timed_out = r1.stop_reason == "time limit" || r2.stop_reason == "time limit";
  if (!timed_out && !(second == first))
    out.failure = "optimizing twice gave different graphs:\n" + ops::print_graph(second);
  return out;
}

}  // namespace

CaseResult check_case(const RandomCase& c, const RuleProgram& rules,
                      const std::vector<ops::Array>& inputs, bool corners,
                      std::map<std::string, int>* applied) {
  // Any exception let through (an optimizer or comparison bug) is the
  // failure it is, so the seed is reported and the case shrunk like any other.
  try {
    return check_case_unguarded(c, rules, inputs, corners, applied);
  } catch (const std::exception& e) {
    CaseResult out;
    out.failure = std::string("threw: ") + e.what();
    return out;
  }
}

RandomCase shrink(RandomCase c, const RuleProgram& rules, const std::vector<ops::Array>& inputs,
                  bool corners) {
  auto fails = [&](const RandomCase& x) {
    const CaseResult r = check_case(x, rules, inputs, corners);
    return r.failure.has_value() && !r.failure->starts_with("executor: ");
  };
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t k = 0; k < c.graph.outputs.size() && !progress; ++k) {
      if (c.graph.outputs.size() > 1) {
        RandomCase x = c;
        x.graph.outputs.erase(x.graph.outputs.begin() + static_cast<std::ptrdiff_t>(k));
        if (fails(x)) {
          c = std::move(x);
          progress = true;
          break;
        }
      }
      for (TermRef o : c.graph.outputs[k].term->operands()) {
        if (o->is_tuple() || o->kind() == OpKind::Fn) continue;
        RandomCase x = c;
        x.graph.outputs[k].term = o;
        if (fails(x)) {
          c = std::move(x);
          progress = true;
          break;
        }
      }
    }
  }
  return c;
}

void save_failure(const std::string& name, const ops::Graph& graph, const std::string& why) {
  const char* dir = std::getenv("EQSAT_PROPERTY_FAILURES");
  if (dir == nullptr || *dir == '\0') return;
  std::ofstream out(std::filesystem::path(dir) / (name + ".eg"));
  std::istringstream lines(why);
  for (std::string line; std::getline(lines, line);) out << "; " << line << "\n";
  out << ops::print_graph(graph);
}

int run_seeds(std::uint64_t first, std::uint64_t count, std::map<std::string, int>* built,
              const GeneratorOptions& options, const std::set<std::uint64_t>& excluded) {
  static const RuleProgram rules = rules::load_default_rules();
  std::map<std::string, int> applied;  // per rule: seeds where it applied
  int ran = 0, stabilized = 0;
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    if (excluded.contains(seed)) continue;
    INFO("seed " << seed);
    ProgramGenerator gen(seed, options);
    const RandomCase c = gen.make();
    INFO("graph:\n" << ops::print_graph(c.graph));
    for (const auto& [k, n] : gen.built()) (*built)[k] += n;
    const auto inputs = random_inputs(c, seed, options.corners);
    const CaseResult r = check_case(c, rules, inputs, options.corners, &applied);
    if (r.skipped && r.failure && r.failure->starts_with("executor: ")) {
      WARN("seed " << seed << ": the original does not run (" << *r.failure << ")\n"
                   << ops::print_graph(c.graph));
      continue;
    }
    if (!r.skipped) ++ran;
    if (!r.skipped && !(r.optimized == c.graph)) ++(*built)["changed by optimize"];
    stabilized += r.stabilized;
    if (!r.failure) continue;
    const RandomCase small = shrink(c, rules, inputs, options.corners);
    const CaseResult s = check_case(small, rules, inputs, options.corners);
    INFO("seed " << seed << ": " << *r.failure << "\noriginal:\n"
                 << ops::print_graph(c.graph) << "optimized:\n"
                 << ops::print_graph(r.optimized) << "shrunk to: " << s.failure.value_or("?")
                 << "\n"
                 << ops::print_graph(small.graph) << "optimized:\n"
                 << ops::print_graph(s.optimized));
    save_failure("seed-" + std::to_string(seed), small.graph, s.failure.value_or(*r.failure));
    CHECK(r.failure == std::nullopt);
  }
  std::string never;
  for (const auto& [name, seeds] : applied)
    if (seeds == 0) never.append(" ").append(name);
  if (!never.empty()) WARN("rules that applied in no seed:" << never);
  // Stabilizations (and re-associations) that change values are rare, one
  // in a small run; more would hide bugs.
  CHECK(stabilized <= std::max(1, ran / 50));
  WARN(ran << " graphs ran, " << stabilized << " with values changed by a stabilizing rewrite");
  return ran;
}

}  // namespace eqsat::testing
