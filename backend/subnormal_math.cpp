#include "subnormal_math.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>

namespace eqsat::backend {

namespace {

template <class T>
using Vec = Eigen::Array<T, Eigen::Dynamic, 1>;

constexpr std::int64_t kBlock = 512;

template <class T>
void exact_exp_typed(const T* x, T* y, std::int64_t n) {
  // Below log(smallest normal) Eigen's result is wrong; the margin keeps
  // the rounding of the threshold itself harmless.
  const T lowest = std::log(std::numeric_limits<T>::min()) + T(0.5);
  for (std::int64_t s = 0; s < n; s += kBlock) {
    const std::int64_t m = std::min(kBlock, n - s);
    Eigen::Map<const Vec<T>> a(x + s, m);
    if ((a < lowest).any()) {
      for (std::int64_t i = s; i < s + m; ++i) y[i] = std::exp(x[i]);
    } else {
      Eigen::Map<Vec<T>>(y + s, m) = a.exp();
    }
  }
}

template <class T>
void exact_log_typed(const T* x, T* y, std::int64_t n) {
  for (std::int64_t s = 0; s < n; s += kBlock) {
    const std::int64_t m = std::min(kBlock, n - s);
    Eigen::Map<const Vec<T>> a(x + s, m);
    // A subnormal argument: positive and below the smallest normal.
    if ((a < std::numeric_limits<T>::min() && a > T(0)).any()) {
      for (std::int64_t i = s; i < s + m; ++i) y[i] = std::log(x[i]);
    } else {
      Eigen::Map<Vec<T>>(y + s, m) = a.log();
    }
  }
}

}  // namespace

void exact_exp(const double* x, double* y, std::int64_t n) {
  exact_exp_typed(x, y, n);
}

void exact_exp(const float* x, float* y, std::int64_t n) {
  exact_exp_typed(x, y, n);
}

void exact_log(const double* x, double* y, std::int64_t n) {
  exact_log_typed(x, y, n);
}

void exact_log(const float* x, float* y, std::int64_t n) {
  exact_log_typed(x, y, n);
}

}  // namespace eqsat::backend
