#include "rules/pipeline/validate_gradients.hpp"

#include "rules/pipeline/finite_difference.hpp"

#include "backend/program.hpp"
#include "backend/runtime_error.hpp"
#include "ops/post_order.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>

namespace eqsat::rules {

namespace {

ops::Graph with_output(const ops::Graph& g, std::string name, ops::TermRef t) {
  ops::Graph one = g;
  one.outputs = {{std::move(name), t}};
  return one;
}

bool all_finite(const std::vector<ops::Array>& inputs) {
  for (const ops::Array& a : inputs)
    if (ops::is_float(a.dtype()))
      for (std::int64_t i = 0; i < a.size(); ++i)
        if (!std::isfinite(a.element(i))) return false;
  return true;
}

}  // namespace

bool holds_grad(ops::TermRef root) {
  bool found = false;
  ops::for_each_post_order(
      std::span(&root, 1), ops::Bodies::Enter,
      [&](ops::TermRef t) { found = found || t->kind() == ops::OpKind::Grad; },
      [&](ops::TermRef) { return !found; });
  return found;
}

GradientValidation::GradientValidation(const ops::Graph& written, const ops::Graph& optimized,
                                       const std::vector<std::size_t>& outputs, bool f32)
    : written_(written),
      optimized_(optimized),
      step_(f32 ? kGradientStepF32 : kGradientStep),
      tol_(f32 ? kGradientToleranceF32 : kGradientTolerance),
      eps_(f32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon()) {
  for (std::size_t k : outputs) {
    const ops::TermRef t = written.outputs[k].term;
    const auto wrt = t->kind() == ops::OpKind::Grad
                         ? std::ranges::find(written.inputs, t->operand(1))
                         : written.inputs.end();
    if (wrt == written.inputs.end() || holds_grad(t->operand(0))) {
      unchecked_.push_back(k);
      continue;
    }
    checked_.push_back(k);
    grads_.push_back({k, t->operand(0), static_cast<std::size_t>(wrt - written.inputs.begin())});
  }
}

std::optional<GradientMismatch> GradientValidation::check(const std::vector<ops::Array>& inputs,
                                                          bool& skipped) {
  skipped = !all_finite(inputs);
  if (skipped) return std::nullopt;
  for (const Checked& c : grads_)
    if (auto why = check_one(c, inputs)) return GradientMismatch{c.output, std::move(*why)};
  return std::nullopt;
}

std::optional<std::string> GradientValidation::check_one(const Checked& c,
                                                         const std::vector<ops::Array>& inputs) {
  const ops::Graph cost = with_output(written_, "cost", c.cost);
  ops::Array gradient;
  try {
    gradient = backend::compile(with_output(optimized_, "g", optimized_.outputs[c.output].term))
                   .run(inputs)[0];
  } catch (const backend::RuntimeError& e) {
    try {
      backend::compile(cost).run(inputs);
    } catch (const backend::RuntimeError&) {
      return std::nullopt;  // the written cost fails too
    }
    return fmt::format("the optimized gradient fails where the written cost runs: {}", e.what());
  } catch (const std::bad_alloc&) {
    return std::nullopt;
  }
  if (gradient.shape() != inputs[c.wrt].shape())
    return fmt::format("the optimized gradient is {}, its input {}",
                       ops::to_string(gradient.type()), ops::to_string(inputs[c.wrt].type()));
  const std::int64_t n = gradient.size();
  if (n == 0) return std::nullopt;
  try {
    FiniteDifferences fd(cost, inputs, c.wrt);
    const std::int64_t count = std::min(n, kMaxGradientElements);
    for (std::int64_t j = 0; j < count; ++j) {
      const std::int64_t i = j * n / count;
      const Difference d = fd.at(i, step_);
      if (!d.finite()) continue;
      // Rounding of the cost, magnified by the division by the step.
      const double noise =
          8 * eps_ * std::max({std::abs(d.f0), std::abs(d.up), std::abs(d.down)}) / d.step;
      const double bound = tol_ * (1 + std::abs(d.central)) + 2 * noise;
      if (std::abs(d.forward - d.backward) > bound) continue;  // not smooth here
      const double g = gradient.element(i);
      if (std::isfinite(g) && std::abs(g - d.central) <=
                                  tol_ * (1 + std::max(std::abs(g), std::abs(d.central))) + noise)
        continue;
      return fmt::format(
          "gradient element {}: finite differences of the written cost give {}, the optimized "
          "gradient {}",
          i, d.central, g);
    }
  } catch (const backend::RuntimeError&) {
    return std::nullopt;  // the written cost fails at the point or beside it
  } catch (const std::bad_alloc&) {
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace eqsat::rules
