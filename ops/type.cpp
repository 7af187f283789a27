#include "type.hpp"

#include "type_error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace eqsat::ops {

bool TensorType::is_static() const {
  return std::none_of(dims.begin(), dims.end(), [](auto d) { return d == kUnknownDim; });
}

std::int64_t TensorType::num_elements() const {
  std::int64_t n = 1;
  for (auto d : dims) {
    if (d == kUnknownDim) return kUnknownDim;
    n *= d;
  }
  return n;
}

std::optional<std::int64_t> checked_num_elements(const Dims& dims) {
  std::int64_t n = 1;
  for (auto d : dims)
    if (d != kUnknownDim && __builtin_mul_overflow(n, d, &n)) return std::nullopt;
  return n;
}

std::optional<std::int64_t> checked_num_bytes(const TensorType& t) {
  const auto n = checked_num_elements(t.dims);
  std::int64_t bytes = 0;
  if (!n || __builtin_mul_overflow(*n, static_cast<std::int64_t>(dtype_size(t.dtype)), &bytes))
    return std::nullopt;
  return bytes;
}

void require_addressable(const TensorType& t, std::string_view what) {
  if (!checked_num_bytes(t))
    throw TypeError(fmt::format("{}: {} is too large: its size in bytes does not fit in 64 bits",
                                what, to_string(t)));
}

std::string to_string(const TensorType& t) {
  if (t.dims.empty()) return std::string(dtype_name(t.dtype));
  std::string s = fmt::format("({}", dtype_name(t.dtype));
  for (auto d : t.dims) s += d == kUnknownDim ? std::string(" ?") : fmt::format(" {}", d);
  return s + ")";
}

std::string to_string(const Type& t) {
  if (auto* tensor = std::get_if<TensorType>(&t)) return to_string(*tensor);
  std::string s = "(tuple";
  for (const auto& e : std::get<TupleType>(t).elements) s.append(" ").append(to_string(e));
  return s + ")";
}

bool compatible(const TensorType& a, const TensorType& b) {
  if (a.dtype != b.dtype || a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i)
    if (a.dims[i] != kUnknownDim && b.dims[i] != kUnknownDim && a.dims[i] != b.dims[i])
      return false;
  return true;
}

std::string dims_to_string(const Dims& d) {
  std::string s = "(";
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (i) s.push_back(' ');
    s.append(d[i] == kUnknownDim ? std::string("?") : std::to_string(d[i]));
  }
  return s + ")";
}

Dims broadcast_dims(const Dims& a, const Dims& b) {
  const std::size_t n = std::max(a.size(), b.size());
  Dims out(n);
  for (std::size_t i = 0; i < n; ++i) {
    // Align from the right; a missing dimension acts as 1.
    const std::int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const std::int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x == y) {
      out[i] = x;
    } else if (x == 1) {
      out[i] = y;
    } else if (y == 1) {
      out[i] = x;
    } else if (x == kUnknownDim) {
      out[i] = y;  // the unknown one must be y or 1: either way the result is y
    } else if (y == kUnknownDim) {
      out[i] = x;
    } else {
      throw TypeError(
          fmt::format("shapes {} and {} do not broadcast", dims_to_string(a), dims_to_string(b)));
    }
  }
  return out;
}

int normalize_axis(std::int64_t axis, int rank, const char* what) {
  if (axis < -rank || axis >= rank)
    throw TypeError(fmt::format("{}: axis {} out of range for rank {}", what, axis, rank));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace eqsat::ops
