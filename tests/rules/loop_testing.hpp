// Helpers for the loop rewrite tests: find the loops of a graph and count
// their slots, compare what two graphs compute on the same inputs, and
// prove two outputs equal with chosen appliers alone. Parsing, optimizing
// and `contains` come from tests/support/check_optimizes.hpp.
#pragma once

#include "tests/support/check_optimizes.hpp"

#include "rules/lang/builtin_appliers.hpp"
#include "rules/lang/shipped_rules.hpp"
#include "rules/pipeline/optimize.hpp"
#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/runner.hpp"

#include "backend/program.hpp"
#include "ops/graph_printer.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <unordered_set>

namespace eqsat::testing {

// The shipped rules without the given appliers (a copy of the rule files
// with their `use` lines removed): the graph the rewrites under test start
// from, with everything else optimized alike.
inline rules::RuleProgram default_rules_without(const std::vector<std::string>& appliers) {
  std::vector<rules::RuleSource> sources;
  for (const rules::RuleSource& shipped : rules::shipped_rule_sources()) {
    std::istringstream in(shipped.text);
    std::ostringstream kept;
    for (std::string line; std::getline(in, line);) {
      const bool drop = std::ranges::any_of(appliers, [&](const std::string& a) {
        return line.find("(use " + a + " ") != std::string::npos ||
               line.find("(use " + a + ")") != std::string::npos;
      });
      if (!drop) kept << line << '\n';
    }
    sources.push_back({shipped.file, kept.str(), shipped.default_ruleset});
  }
  return rules::parse_rules(sources, rules::builtin_applier_names());
}

// Every distinct scan the graph runs (loop bodies and called bodies
// included), in depth-first order from the outputs, then the defs.
inline std::vector<ops::TermRef> scans_in(const ops::Graph& g) {
  std::vector<ops::TermRef> out, stack;
  for (auto it = g.defs.rbegin(); it != g.defs.rend(); ++it) stack.push_back(it->term);
  for (auto it = g.outputs.rbegin(); it != g.outputs.rend(); ++it) stack.push_back(it->term);
  std::unordered_set<ops::TermRef> seen;
  while (!stack.empty()) {
    const ops::TermRef t = stack.back();
    stack.pop_back();
    if (!seen.insert(t).second) continue;
    if (t->kind() == ops::OpKind::Scan) out.push_back(t);
    for (auto it = t->operands().rbegin(); it != t->operands().rend(); ++it) stack.push_back(*it);
  }
  return out;
}

// The one loop `g` runs; the test stops when it runs none or several.
inline ops::TermRef only_loop(const ops::Graph& g) {
  const auto loops = scans_in(g);
  REQUIRE(loops.size() == 1);
  return loops[0];
}

inline const ops::ScanSpec& spec_of(ops::TermRef scan) {
  return scan->attrs().get<ops::ScanSpec>(ops::AttrKey::Scan);
}

// Random inputs of `g`'s declared shapes and dtypes: unknown dimensions
// are `unknown` long, floats uniform in [-1, 1], integers `integer` (an
// index the test needs in range) or else drawn in [-4, 4].
inline std::vector<ops::Array> random_inputs(const ops::Graph& g, std::uint64_t seed,
                                             std::int64_t unknown = 6,
                                             std::optional<std::int64_t> integer = {}) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<ops::Array> inputs;
  for (ops::TermRef in : g.inputs) {
    ops::Dims dims = in->tensor_type().dims;
    for (auto& d : dims)
      if (d == ops::kUnknownDim) d = unknown;
    ops::Array a(in->tensor_type().dtype, dims);
    for (std::int64_t i = 0; i < a.size(); ++i)
      ops::visit_dtype(a.dtype(), [&]<class T>(std::type_identity<T>) {
        if constexpr (std::is_integral_v<T>)
          a.data<T>()[i] = static_cast<T>(integer ? *integer : std::round(4 * u(rng)));
        else
          a.data<T>()[i] = static_cast<T>(u(rng));
      });
    inputs.push_back(std::move(a));
  }
  return inputs;
}

// Both graphs (f64 inputs, the same ones) give the same outputs. Kept here,
// not in tests/support: its margin (1e-9) is looser than
// optimize_and_compare's (1e-12), and the loop tests were written against it.
inline void check_same_values(const ops::Graph& expected_graph, const ops::Graph& actual_graph,
                              std::uint64_t seed = 1) {
  const auto inputs = random_inputs(expected_graph, seed);
  const auto expected = backend::compile(expected_graph).run(inputs);
  const auto actual = backend::compile(actual_graph).run(inputs);
  INFO("expected:\n"
       << ops::print_graph(expected_graph) << "actual:\n"
       << ops::print_graph(actual_graph));
  REQUIRE(expected.size() == actual.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    REQUIRE(expected[k].shape() == actual[k].shape());
    for (std::int64_t i = 0; i < expected[k].size(); ++i)
      CHECK(actual[k].element(i) == Approx(expected[k].element(i)).margin(1e-9));
  }
}

// True when an output of `g` reads the input called `name`.
inline bool reads_input(const ops::Graph& g, const std::string& name) {
  std::unordered_set<ops::TermRef> seen;
  std::vector<ops::TermRef> stack;
  for (const auto& o : g.outputs) stack.push_back(o.term);
  while (!stack.empty()) {
    const ops::TermRef t = stack.back();
    stack.pop_back();
    if (!seen.insert(t).second) continue;
    if (t->kind() == ops::OpKind::Input && t->attrs().get<std::string>(ops::AttrKey::Name) == name)
      return true;
    for (ops::TermRef o : t->operands()) stack.push_back(o);
  }
  return false;
}

// The number of body parameters of a scan.
inline std::size_t num_params(ops::TermRef scan) {
  return scan->operand(0)->attrs().get<std::vector<ops::TensorType>>(ops::AttrKey::Params).size();
}

// Deterministic inputs for `g`: unknown dimensions are 5, values in
// [-1, 1] (integers in [-3, 3]).
inline std::vector<ops::Array> inputs_for(const ops::Graph& g) {
  std::vector<ops::Array> in;
  std::int64_t seed = 1;
  for (ops::TermRef t : g.inputs) {
    ops::Dims d = t->tensor_type().dims;
    for (auto& x : d)
      if (x == ops::kUnknownDim) x = 5;
    ops::Array a(t->tensor_type().dtype, d);
    for (std::int64_t i = 0; i < a.size(); ++i) {
      const double v = std::sin(0.7 * static_cast<double>(i) + 1.3 * static_cast<double>(seed));
      switch (a.dtype()) {
        case ops::DType::F64:
          a.data<double>()[i] = v;
          break;
        case ops::DType::F32:
          a.data<float>()[i] = static_cast<float>(v);
          break;
        case ops::DType::I64:
          a.data<std::int64_t>()[i] = std::lround(3 * v);
          break;
        case ops::DType::I32:
          a.data<std::int32_t>()[i] = static_cast<std::int32_t>(std::lround(3 * v));
          break;
        case ops::DType::Bool:
          a.data<bool>()[i] = v > 0;
          break;
      }
    }
    in.push_back(std::move(a));
    ++seed;
  }
  return in;
}

// True when the built-in appliers `names` (run alone, to saturation) prove
// the first two outputs of `text` equal: a start ⇒ goal check at the
// e-graph level, independent of what extraction would pick.
inline bool proves(const std::string& text, std::initializer_list<std::string_view> names) {
  const ops::Graph g = graph(text);
  rules::TensorEGraph eg;
  const egraph::EClassId a = eg.add_term(g.outputs.at(0).term);
  const egraph::EClassId b = eg.add_term(g.outputs.at(1).term);
  std::vector<egraph::Rewrite> rewrites;
  for (std::string_view n : names) rewrites.push_back(rules::find_builtin_applier(n)->make(eg));
  egraph::Runner(eg.egraph(), {.iter_limit = 10}).run(rewrites);
  return eg.egraph().find(a) == eg.egraph().find(b);
}

// Optimizes `g` with the shipped rules, checks that both graphs compute the
// same values (unless `compare` is false: a graph with `grad` runs only
// optimized), and returns the optimized graph.
inline ops::Graph optimize_and_compare(const ops::Graph& g, rules::OptimizeReport* report = nullptr,
                                       bool compare = true) {
  const ops::Graph out = optimized(g, report);
  INFO("optimized:\n" << ops::print_graph(out));
  if (!compare) return out;
  const auto in = inputs_for(g);
  const auto expected = backend::compile(g).run(in);
  const auto actual = backend::compile(out).run(in);
  REQUIRE(expected.size() == actual.size());
  for (std::size_t o = 0; o < expected.size(); ++o) {
    REQUIRE(expected[o].shape() == actual[o].shape());
    for (std::int64_t i = 0; i < expected[o].size(); ++i)
      CHECK(actual[o].element(i) == Approx(expected[o].element(i)).margin(1e-12));
  }
  return out;
}

// Optimizes the graph `text` with the shipped rules and checks that it
// computes what the graph computes and what the graph optimized by
// `without` (the rules less the ones under test) computes; returns the
// optimized graph.
inline ops::Graph optimized_checked(const std::string& text, const rules::RuleProgram& without) {
  const ops::Graph g = graph(text);
  const ops::Graph out = optimized(g);
  INFO(ops::print_graph(out));
  check_same_values(rules::optimize(g, without), out);
  check_same_values(g, out, 2);
  return out;
}

}  // namespace eqsat::testing
