// Helpers shared by the tests of the optimize pipeline (egg's `test_fn!`
// in spirit): parse a graph, optimize it with the shipped rules, run it,
// and check "start ⇒ goal", printing both graphs on failure.
//
//   check_optimizes("(input x (f64 3)) (output (neg (neg x)))",
//                   "(input x (f64 3)) (output x)");
#pragma once

#include "rules/lang/rule_parser.hpp"
#include "rules/pipeline/optimize.hpp"
#include "rules/pipeline/prove_equal.hpp"

#include "backend/program.hpp"
#include "backend/runtime_error.hpp"
#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"
#include "ops/op.hpp"
#include "ops/post_order.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace eqsat::testing {

// The shipped rule files, loaded once.
inline const rules::RuleProgram& shipped_rules() {
  static const rules::RuleProgram p = rules::load_default_rules();
  return p;
}

// The shipped rule files with the fast-math set saturated too, as
// `--fast-math` loads them.
inline const rules::RuleProgram& fast_math_rules() {
  static const rules::RuleProgram p = [] {
    rules::RuleFileOptions o;
    o.fast_math = true;
    return rules::load_rules(o).program;
  }();
  return p;
}

// A rule program from the text of one rule file, `t.rules`.
inline rules::RuleProgram rules_from(const std::string& text) {
  const rules::RuleSource s{"t.rules", text};
  return rules::parse_rules(std::span(&s, 1));
}

// The graph `text` (named t.eg in messages, loads relative to the working
// directory).
inline ops::Graph graph(const std::string& text) {
  return ops::parse_graph(text, "t.eg", ".");
}

// `g` optimized with the shipped rules.
inline ops::Graph optimized(const ops::Graph& g, rules::OptimizeReport* report = nullptr) {
  return rules::optimize(g, shipped_rules(), report);
}

// True when an op of `kind` occurs under `t` (bodies included).
inline bool contains(ops::TermRef t, ops::OpKind kind) {
  bool found = false;
  ops::for_each_post_order(
      t, ops::Bodies::Enter, [](ops::TermRef) {},
      [&](ops::TermRef u) {
        found = found || u->kind() == kind;
        return !found;
      });
  return found;
}

// The same term, up to the operand order of commutative ops (the
// extractor may pick either order of an equally cheap `add`).
inline bool same_up_to_commuting(ops::TermRef a, ops::TermRef b) {
  if (a == b) return true;
  if (a->kind() != b->kind() || !(a->attrs() == b->attrs()) || a->arity() != b->arity())
    return false;
  bool straight = true;
  for (std::size_t i = 0; i < a->arity(); ++i)
    straight = straight && same_up_to_commuting(a->operand(i), b->operand(i));
  if (straight) return true;
  return ops::is_commutative(a->kind()) && a->arity() == 2 &&
         same_up_to_commuting(a->operand(0), b->operand(1)) &&
         same_up_to_commuting(a->operand(1), b->operand(0));
}

// How `check_optimizes` compares the optimized outputs with the goal's.
enum class Match { Exact, UpToCommuting };

// Optimizing `start` with `rules` gives the outputs of `goal` (the same
// terms, or up to commuting); on failure both graphs are printed.
inline void check_optimizes(const rules::RuleProgram& rules, const std::string& start,
                            const std::string& goal, rules::OptimizeReport* report = nullptr,
                            Match match = Match::Exact) {
  const ops::Graph in = graph(start);
  const ops::Graph expected = graph(goal);
  const ops::Graph out = rules::optimize(in, rules, report);
  INFO("optimized:\n" << ops::print_graph(out) << "expected:\n" << ops::print_graph(expected));
  REQUIRE(out.outputs.size() == expected.outputs.size());
  for (std::size_t i = 0; i < out.outputs.size(); ++i) {
    const ops::TermRef got = out.outputs[i].term, want = expected.outputs[i].term;
    CHECK((match == Match::Exact ? got == want : same_up_to_commuting(got, want)));
  }
}

// The same with the shipped rules.
inline void check_optimizes(const std::string& start, const std::string& goal,
                            Match match = Match::Exact) {
  check_optimizes(shipped_rules(), start, goal, nullptr, match);
}

// An f64 array of `dims` holding 0, 1, 2, ... in row-major order: where each
// element went is visible in the result of a view.
inline ops::Array iota(ops::Dims dims) {
  ops::Array a(ops::DType::F64, std::move(dims));
  for (std::int64_t i = 0; i < a.size(); ++i) a.data<double>()[i] = static_cast<double>(i);
  return a;
}

// Output 0 of the graph `text` optimized with the shipped rules, run on
// `inputs`.
inline ops::Array run_optimized(const std::string& text, std::vector<ops::Array> inputs) {
  const ops::Graph out = optimized(graph(text));
  INFO("optimized:\n" << ops::print_graph(out));
  return backend::compile(out).run(std::move(inputs))[0];
}

// The run-time messages of the written graph `g` and of `out` (what it
// optimizes to) run on `in`, "" for a side that runs: a rewrite must fail
// exactly where the written graph fails, with the same message.
inline std::pair<std::string, std::string> failures(const ops::Graph& g, const ops::Graph& out,
                                                    const std::vector<ops::Array>& in) {
  std::pair<std::string, std::string> got;
  try {
    backend::compile(g).run(in);
  } catch (const backend::RuntimeError& e) {
    got.first = e.what();
  }
  try {
    backend::compile(out).run(in);
  } catch (const backend::RuntimeError& e) {
    got.second = e.what();
  }
  return got;
}

// A vector of f64 values.
inline ops::Array f64_vector(const std::vector<double>& v) {
  ops::Array a(ops::DType::F64, {static_cast<std::int64_t>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) a.data<double>()[i] = v[i];
  return a;
}

// Every output of the graph `text` optimized with `rules` equals the
// output as written on `inputs`: NaN where it is NaN, the same infinity,
// and finite values within `rel` (relative to max(1, |value|)).
inline void check_same_values(const rules::RuleProgram& rules, const std::string& text,
                              const std::vector<ops::Array>& inputs, double rel = 1e-12) {
  const ops::Graph written = graph(text);
  const ops::Graph out = rules::optimize(written, rules);
  INFO("optimized:\n" << ops::print_graph(out));
  const std::vector<ops::Array> want = backend::compile(written).run(inputs);
  const std::vector<ops::Array> got = backend::compile(out).run(inputs);
  REQUIRE(got.size() == want.size());
  for (std::size_t o = 0; o < want.size(); ++o) {
    REQUIRE(got[o].shape() == want[o].shape());
    for (std::int64_t i = 0; i < want[o].size(); ++i) {
      const double w = want[o].element(i), g = got[o].element(i);
      INFO("output " << o << " element " << i << ": got " << g << ", want " << w);
      if (std::isnan(w) || std::isinf(w))
        CHECK((std::isnan(w) ? std::isnan(g) : g == w));
      else
        CHECK(std::abs(g - w) <= rel * std::max(1.0, std::abs(w)));
    }
  }
}

// The rules put output 0 and output 1 of the graph `text` in one e-class
// (a rewrite the cost model does not pick still happened).
inline void check_proves(const rules::RuleProgram& rules, const std::string& text) {
  const ops::Graph g = graph(text);
  REQUIRE(g.outputs.size() == 2);
  INFO(text);
  CHECK(rules::prove_equal(g, g.outputs[0].term, g.outputs[1].term, rules).explanation);
}

// The number of distinct terms of op `kind` under the outputs and defs of
// `g`, loop and function bodies included.
inline std::size_t count_ops(const ops::Graph& g, ops::OpKind kind) {
  std::vector<ops::TermRef> roots;
  for (const auto& o : g.outputs) roots.push_back(o.term);
  for (const auto& d : g.defs) roots.push_back(d.term);
  std::size_t n = 0;
  ops::for_each_post_order(std::span<const ops::TermRef>(roots), ops::Bodies::Enter,
                           [&](ops::TermRef u) { n += u->kind() == kind; });
  return n;
}

}  // namespace eqsat::testing
