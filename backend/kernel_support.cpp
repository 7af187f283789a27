#include "kernel_support.hpp"

#include "ops/type.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace eqsat::backend::detail {

void fail(ops::TermRef op, const std::string& message) {
  throw RuntimeError(fmt::format("{}: {}", op->info().name, message));
}

namespace {

template <class To, class From>
To convert_one(From x) {
  if constexpr (std::is_same_v<To, bool>) {
    return x != From{};
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    // Guarded: an out-of-range float-to-integer conversion is undefined in C++.
    constexpr auto lo = static_cast<From>(std::numeric_limits<To>::min());
    constexpr auto hi = -lo;  // 2^(bits-1), exactly representable
    if (!(x >= lo && x < hi)) return std::numeric_limits<To>::min();
    return static_cast<To>(x);
  } else {
    return static_cast<To>(x);
  }
}

}  // namespace

void convert_into(const Array& in, Array& out) {
  ops::visit_dtype(in.dtype(), [&]<class From>(std::type_identity<From>) {
    ops::visit_dtype(out.dtype(), [&]<class To>(std::type_identity<To>) {
      const From* src = in.data<From>();
      To* dst = out.data<To>();
      parallel_for(in.size(), kCopyGrain, [&](std::int64_t i0, std::int64_t i1) {
        if constexpr (std::is_same_v<From, To>) {
          if (src != dst) std::memcpy(dst + i0, src + i0, (i1 - i0) * sizeof(To));
        } else {
          for (std::int64_t i = i0; i < i1; ++i) dst[i] = convert_one<To>(src[i]);
        }
      });
    });
  });
}

Array converted(const Array& a, DType d) {
  if (a.dtype() == d) return a;
  Array out(d, a.shape());
  convert_into(a, out);
  return out;
}

std::int64_t num_elements(const Dims& d) {
  std::int64_t n = 1;
  for (auto x : d) n *= x;
  return n;
}

void broadcast_shapes(ops::TermRef op, std::span<const Dims* const> shapes, Dims& out) {
  std::size_t rank = 0;
  for (const Dims* s : shapes) rank = std::max(rank, s->size());
  out.assign(rank, 1);
  for (const Dims* s : shapes) {
    const std::size_t shift = rank - s->size();
    for (std::size_t i = 0; i < s->size(); ++i) {
      const std::int64_t x = (*s)[i];
      std::int64_t& o = out[shift + i];
      if (x == o || x == 1) continue;
      if (o == 1) {
        o = x;
        continue;
      }
      std::string listed;
      for (const Dims* t : shapes) {
        if (!listed.empty()) listed += " and ";
        listed += ops::dims_to_string(*t);
      }
      fail(op, fmt::format("shapes {} do not broadcast", listed));
    }
  }
}

Dims contiguous_strides(const Dims& d) {
  Dims s(d.size());
  std::int64_t running = 1;
  for (std::size_t i = d.size(); i-- > 0;) {
    s[i] = running;
    running *= d[i];
  }
  return s;
}

namespace {

// Tiles of this many elements a side: a tile's source lines (one per
// column) stay in L1 while its rows are read.
constexpr std::int64_t kTile = 16;

// A copy whose last axis reads the source a cache line or more apart while
// another axis reads it contiguously (a transpose moving the last axis, as
// an attention's keys (seq, heads, dh) -> (heads, dh, seq)): element by
// element, each read would touch its own line; copied in square tiles of
// those two axes, each line is read once per tile. False when the copy is
// not of that kind.
template <class T>
bool tiled_copy(const T* src, std::int64_t offset, const Dims& shape,
                std::span<const std::int64_t> strides, T* dst) {
  const int rank = static_cast<int>(shape.size());
  if (rank < 2 || std::abs(strides.back()) * std::int64_t{sizeof(T)} < 64) return false;
  int row_axis = -1;  // the axis reading the source contiguously
  for (int d = rank - 2; d >= 0 && row_axis < 0; --d)
    if (strides[d] == 1 && shape[d] > 1) row_axis = d;
  if (row_axis < 0) return false;
  const Dims out_strides = contiguous_strides(shape);
  const std::int64_t rows = shape[row_axis], cols = shape.back(), step = strides.back();
  const std::int64_t out_row = out_strides[row_axis];
  absl::InlinedVector<std::int64_t, 6> index(rank, 0);
  for (;;) {
    std::int64_t from = offset, to = 0;
    for (int d = 0; d < rank - 1; ++d)
      if (d != row_axis) {
        from += index[d] * strides[d];
        to += index[d] * out_strides[d];
      }
    for (std::int64_t r0 = 0; r0 < rows; r0 += kTile)
      for (std::int64_t c0 = 0; c0 < cols; c0 += kTile) {
        const std::int64_t r1 = std::min(rows, r0 + kTile), c1 = std::min(cols, c0 + kTile);
        for (std::int64_t r = r0; r < r1; ++r)
          for (std::int64_t c = c0; c < c1; ++c)
            dst[to + r * out_row + c] = src[from + r + c * step];
      }
    // The next index of the other axes, the last of them fastest.
    int d = rank - 2;
    for (; d >= 0; --d) {
      if (d == row_axis) continue;
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
    if (d < 0) return true;
  }
}

template <class T>
void strided_copy_typed(const T* src, std::int64_t offset, const Dims& shape,
                        std::span<const std::int64_t> strides, T* dst) {
  const int rank = static_cast<int>(shape.size());
  if (tiled_copy(src, offset, shape, strides, dst)) return;
  if (rank == 0) {
    dst[0] = src[offset];
    return;
  }
  const std::int64_t n = shape.back();
  const std::int64_t step = strides.back();
  absl::InlinedVector<std::int64_t, 6> index(rank - 1, 0);
  std::int64_t at = offset;
  for (;;) {
    if (step == 1) {
      std::memcpy(dst, src + at, n * sizeof(T));
    } else {
      for (std::int64_t i = 0; i < n; ++i) dst[i] = src[at + i * step];
    }
    dst += n;
    int d = rank - 2;
    for (; d >= 0; --d) {
      at += strides[d];
      if (++index[d] < shape[d]) break;
      at -= strides[d] * shape[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace

void strided_copy(const Array& src, std::int64_t offset, const Dims& shape,
                  std::span<const std::int64_t> strides, Array& dst) {
  ops::visit_dtype(src.dtype(), [&]<class T>(std::type_identity<T>) {
    split_first_long_axis(shape, kCopyGrain, [&](const AxisPart& part) {
      strided_copy_typed(src.data<T>(), offset + part.start(strides), part.shape, strides,
                         dst.data<T>() + part.start_in_result());
    });
  });
}

}  // namespace eqsat::backend::detail
