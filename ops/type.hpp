// Static types of the tensor language: a tensor type is a dtype and a shape
// whose dimensions may be unknown (`?`); a tuple type is the result of a
// `scan`, a multi-output `call` or a body (`fn`). Includes NumPy
// broadcasting over static shapes.
#pragma once

#include "dtype.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace eqsat::ops {

// A dimension: its length, or kUnknownDim when static inference cannot prove it.
inline constexpr std::int64_t kUnknownDim = -1;
using Dims = std::vector<std::int64_t>;

// A tensor's type: `f64` is a scalar, `(f32 3 ?)` a matrix with unknown columns.
struct TensorType {
  DType dtype = DType::F64;
  Dims dims;

  int rank() const { return static_cast<int>(dims.size()); }
  bool is_scalar() const { return dims.empty(); }
  // True when every dimension is known.
  bool is_static() const;
  // Number of elements, or kUnknownDim.
  std::int64_t num_elements() const;
  friend bool operator==(const TensorType&, const TensorType&) = default;
};

// The type of a tuple value: one tensor type per element.
struct TupleType {
  std::vector<TensorType> elements;
  friend bool operator==(const TupleType&, const TupleType&) = default;
};

// Every term has one Type.
using Type = std::variant<TensorType, TupleType>;

// The product of the known dimensions of `dims` (unknown ones skipped), or
// nullopt when it overflows int64.
std::optional<std::int64_t> checked_num_elements(const Dims& dims);

// The bytes a value of `t` takes counting its known dimensions only, or
// nullopt when that overflows int64: no array of that type can exist.
std::optional<std::int64_t> checked_num_bytes(const TensorType& t);

// Throws TypeError, naming `what` (an op), when checked_num_bytes(t)
// overflows. Every type a term gets passes this check (check_op), so later
// size arithmetic on static shapes cannot overflow.
void require_addressable(const TensorType& t, std::string_view what);

// The text form used by graph files: `f64`, `(f32 3 ?)`, `(tuple f64 (i64 ?))`.
std::string to_string(const TensorType& t);
std::string to_string(const Type& t);
// `(3 ?)`: a shape as written in attributes and messages.
std::string dims_to_string(const Dims& d);

// True when two types may describe the same value: same dtype and rank, and
// equal dimensions wherever both are known.
bool compatible(const TensorType& a, const TensorType& b);

// Static NumPy broadcasting: the shape of the result, keeping every
// dimension it can prove. Throws TypeError when two known dims differ and
// neither is 1.
Dims broadcast_dims(const Dims& a, const Dims& b);

// Normalizes an axis of a rank-`rank` tensor to [0, rank); throws TypeError
// naming `what` when out of range.
int normalize_axis(std::int64_t axis, int rank, const char* what);

}  // namespace eqsat::ops
