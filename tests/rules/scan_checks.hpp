// Shared checks of the loop rewrite tests: parse a graph, optimize it with
// the shipped rules, run both on the same inputs and compare, and list the
// scans of a graph (nested ones included) to count their slots; or prove
// two outputs equal with chosen appliers alone.
#pragma once

#include "rules/builtin_appliers.hpp"
#include "rules/optimize.hpp"
#include "rules/tensor_egraph.hpp"

#include "egraph/runner.hpp"

#include "backend/program.hpp"
#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <unordered_set>
#include <vector>

namespace eqsat::scan_checks {

inline ops::Graph graph(const std::string& text) {
  return ops::parse_graph(text, "t.eg", ".");
}

// Every distinct scan under the graph's outputs, bodies included, in
// depth-first order.
inline std::vector<ops::TermRef> scans(const ops::Graph& g) {
  std::vector<ops::TermRef> out;
  std::unordered_set<ops::TermRef> seen;
  std::vector<ops::TermRef> stack;
  for (auto it = g.outputs.rbegin(); it != g.outputs.rend(); ++it) stack.push_back(it->term);
  while (!stack.empty()) {
    const ops::TermRef t = stack.back();
    stack.pop_back();
    if (!seen.insert(t).second) continue;
    if (t->kind() == ops::OpKind::Scan) out.push_back(t);
    for (auto it = t->operands().rbegin(); it != t->operands().rend(); ++it) stack.push_back(*it);
  }
  return out;
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

inline const ops::ScanSpec& spec(ops::TermRef scan) {
  return scan->attrs().get<ops::ScanSpec>(ops::AttrKey::Scan);
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
  const ops::Graph out = rules::optimize(g, rules::load_default_rules(), report);
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

}  // namespace eqsat::scan_checks
