// Shared helpers of the gradient tests (and those of
// tests/support/check_optimizes.hpp): random float64
// inputs, central finite differences on the executor, tolerant comparison,
// and term queries (is a grad left, which ops does a term hold).
#pragma once

#include "tests/support/check_optimizes.hpp"

#include "rules/pipeline/finite_difference.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

namespace eqsat::test {

using testing::graph;
using testing::shipped_rules;

// Every distinct term under `t`, bodies included, each once.
inline void for_each_term(ops::TermRef t, const std::function<void(ops::TermRef)>& f) {
  std::unordered_set<ops::TermRef> seen{t};
  std::vector<ops::TermRef> stack{t};
  while (!stack.empty()) {
    ops::TermRef u = stack.back();
    stack.pop_back();
    f(u);
    for (ops::TermRef o : u->operands())
      if (seen.insert(o).second) stack.push_back(o);
  }
}

inline std::size_t count_ops(ops::TermRef t, ops::OpKind k) {
  std::size_t n = 0;
  for_each_term(t, [&](ops::TermRef u) { n += u->kind() == k; });
  return n;
}

inline bool has_grad(ops::TermRef t) {
  return count_ops(t, ops::OpKind::Grad) > 0;
}

inline ops::Array random_array(const ops::TensorType& type, std::mt19937_64& rng, double lo = -1.5,
                               double hi = 1.5) {
  ops::Array a(type.dtype, type.dims);
  std::uniform_real_distribution<double> u(lo, hi);
  for (std::int64_t i = 0; i < a.size(); ++i) a.data<double>()[i] = u(rng);
  return a;
}

inline std::vector<ops::Array> random_inputs(const ops::Graph& g, std::mt19937_64& rng) {
  std::vector<ops::Array> inputs;
  for (ops::TermRef in : g.inputs) inputs.push_back(random_array(in->tensor_type(), rng));
  return inputs;
}

// Central finite differences of the first output of a cost (a scalar)
// with respect to one input: the same as --validate's.
using rules::finite_difference;

inline void check_close(const ops::Array& expected, const ops::Array& actual, double tol) {
  REQUIRE(expected.shape() == actual.shape());
  for (std::int64_t i = 0; i < expected.size(); ++i) {
    const double a = expected.element(i), b = actual.element(i);
    INFO("element " << i << ": expected " << a << " got " << b);
    CHECK(std::abs(a - b) <= tol * (1 + std::abs(a)));
  }
}

// `g` with its outputs replaced by one output `term`.
inline ops::Graph with_output(ops::Graph g, ops::TermRef term) {
  g.outputs = {{"out0", term}};
  return g;
}

inline ops::Array run1(const ops::Graph& g, const std::vector<ops::Array>& inputs) {
  return backend::compile(g).run(inputs)[0];
}

}  // namespace eqsat::test
