#include "rules/pipeline/finite_difference.hpp"

#include "support/internal_error.hpp"

#include <algorithm>
#include <cmath>

namespace eqsat::rules {

namespace {

void set_element(ops::Array& a, std::int64_t i, double v) {
  switch (a.dtype()) {
    case ops::DType::F64:
      a.data<double>()[i] = v;
      return;
    case ops::DType::F32:
      a.data<float>()[i] = static_cast<float>(v);
      return;
    case ops::DType::Bool:
    case ops::DType::I32:
    case ops::DType::I64:
      break;
  }
  EQSAT_ASSERT(false) << "finite differences of an integer input";
}

}  // namespace

bool Difference::finite() const {
  return std::isfinite(f0) && std::isfinite(up) && std::isfinite(down) && step > 0;
}

FiniteDifferences::FiniteDifferences(const ops::Graph& cost, std::vector<ops::Array> inputs,
                                     std::size_t wrt)
    : program_(backend::compile(cost)), inputs_(std::move(inputs)), wrt_(wrt) {
  inputs_[wrt_] = inputs_[wrt_].clone();  // copies share buffers
}

double FiniteDifferences::cost_with(std::int64_t i, double x) {
  ops::Array& a = inputs_[wrt_];
  const double x0 = a.element(i);
  set_element(a, i, x);
  const double f = program_.run(inputs_)[0].element(0);
  set_element(a, i, x0);
  return f;
}

Difference FiniteDifferences::at(std::int64_t i, double h) {
  ops::Array& x = inputs_[wrt_];
  const double x0 = x.element(i);
  const double step = h * std::max(1.0, std::abs(x0));
  // The steps as the dtype stores them.
  set_element(x, i, x0 + step);
  const double hi = x.element(i);
  set_element(x, i, x0 - step);
  const double lo = x.element(i);
  set_element(x, i, x0);
  if (!f0_) f0_ = program_.run(inputs_)[0].element(0);
  Difference d;
  d.f0 = *f0_;
  d.up = cost_with(i, hi);
  d.down = cost_with(i, lo);
  d.step = std::min(hi - x0, x0 - lo);
  d.central = (d.up - d.down) / (hi - lo);
  d.forward = (d.up - d.f0) / (hi - x0);
  d.backward = (d.f0 - d.down) / (x0 - lo);
  return d;
}

ops::Array finite_difference(const ops::Graph& cost, std::vector<ops::Array> inputs,
                             std::size_t wrt, double h) {
  ops::Array out = inputs[wrt].clone();
  FiniteDifferences fd(cost, std::move(inputs), wrt);
  for (std::int64_t i = 0; i < out.size(); ++i) set_element(out, i, fd.at(i, h).central);
  return out;
}

}  // namespace eqsat::rules
