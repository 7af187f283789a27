// Central finite differences of a scalar cost: the reference a gradient is
// checked against (`--validate`'s gradient outputs, validate_gradients.hpp,
// and the gradient property tests).
//
//   FiniteDifferences fd(cost_graph, inputs, wrt);   // cost: one scalar output
//   Difference d = fd.at(i, 1e-6);                    // d cost / d inputs[wrt][i]
#pragma once

#include "backend/program.hpp"
#include "ops/array.hpp"
#include "ops/graph.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace eqsat::rules {

// One element's differences: f at x and at x ± h (h as the dtype rounds
// it), and the central, forward and backward quotients.
struct Difference {
  double f0 = 0, up = 0, down = 0;
  double central = 0, forward = 0, backward = 0;
  double step = 0;  // the smaller of the two steps taken

  bool finite() const;
};

// The first output of `cost` (a scalar) as a function of element i of
// input `wrt` (f32 or f64), the other inputs held at their values. The
// cost at the inputs themselves is computed once, on the first `at`.
class FiniteDifferences {
 public:
  FiniteDifferences(const ops::Graph& cost, std::vector<ops::Array> inputs, std::size_t wrt);

  // The differences at element i with a step of h·max(1, |x_i|). Throws
  // backend::RuntimeError when the cost fails there.
  Difference at(std::int64_t i, double h);
  std::int64_t size() const { return inputs_[wrt_].size(); }

 private:
  double cost_with(std::int64_t i, double x);

  backend::Program program_;
  std::vector<ops::Array> inputs_;
  std::size_t wrt_;
  std::optional<double> f0_;  // the cost at the inputs, once computed
};

// The central differences of `cost` with respect to input `wrt` at
// `inputs`, every element (step h·max(1, |x_i|)), in wrt's type.
ops::Array finite_difference(const ops::Graph& cost, std::vector<ops::Array> inputs,
                             std::size_t wrt, double h = 1e-6);

}  // namespace eqsat::rules
