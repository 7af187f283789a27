// Eigen views over the executor's contiguous buffers, for kernel sources
// only (keeps Eigen out of the headers the rest of the project includes).
#pragma once

#include <Eigen/Core>

namespace eqsat::backend {

// A column of T, owned (a temporary) or mapped over a buffer (In: read, Out: write).
template <class T>
using Vec = Eigen::Array<T, Eigen::Dynamic, 1>;
template <class T>
using In = Eigen::Map<const Vec<T>>;
template <class T>
using Out = Eigen::Map<Vec<T>>;

}  // namespace eqsat::backend
