// Helpers for the loop rewrite tests: parse, optimize, find the loops of a
// graph, and compare what two graphs compute on the same random inputs.
#pragma once

#include "rules/builtin_appliers.hpp"
#include "rules/optimize.hpp"
#include "rules/shipped_rules.hpp"

#include "backend/program.hpp"
#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <unordered_set>

namespace eqsat::testing {

inline ops::Graph graph(const std::string& text) {
  return ops::parse_graph(text, "t.eg", ".");
}

inline ops::Graph optimized(const ops::Graph& g, rules::OptimizeReport* report = nullptr) {
  static const rules::RuleProgram kRules = rules::load_default_rules();
  return rules::optimize(g, kRules, report);
}

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
        return line.find("(use " + a + " ") != std::string::npos;
      });
      if (!drop) kept << line << '\n';
    }
    sources.push_back({shipped.file, kept.str(), shipped.default_ruleset});
  }
  return rules::parse_rules(sources, rules::builtin_applier_names());
}

// Every scan the graph runs (loop bodies and called bodies included).
inline std::vector<ops::TermRef> scans_in(const ops::Graph& g) {
  std::vector<ops::TermRef> out, stack;
  for (const auto& o : g.outputs) stack.push_back(o.term);
  std::unordered_set<ops::TermRef> seen;
  while (!stack.empty()) {
    const ops::TermRef t = stack.back();
    stack.pop_back();
    if (!seen.insert(t).second) continue;
    if (t->kind() == ops::OpKind::Scan) out.push_back(t);
    for (ops::TermRef o : t->operands()) stack.push_back(o);
  }
  return out;
}

inline const ops::ScanSpec& spec_of(ops::TermRef scan) {
  return scan->attrs().get<ops::ScanSpec>(ops::AttrKey::Scan);
}

// True when an op of `kind` occurs under `t` (bodies included).
inline bool contains(ops::TermRef t, ops::OpKind kind) {
  if (t->kind() == kind) return true;
  return std::ranges::any_of(t->operands(), [&](ops::TermRef o) { return contains(o, kind); });
}

inline std::vector<ops::Array> random_inputs(const ops::Graph& g, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<ops::Array> inputs;
  for (ops::TermRef in : g.inputs) {
    ops::Dims dims = in->tensor_type().dims;
    for (auto& d : dims)
      if (d == ops::kUnknownDim) d = 6;
    ops::Array a(ops::DType::F64, dims);
    for (std::int64_t i = 0; i < a.size(); ++i) a.data<double>()[i] = u(rng);
    inputs.push_back(std::move(a));
  }
  return inputs;
}

// Both graphs (f64 inputs, the same ones) give the same outputs.
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

}  // namespace eqsat::testing
