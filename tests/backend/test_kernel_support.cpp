// backend/kernel_support.cpp: the strided copy behind transposes, flips and
// broadcasts, in particular the tiled path of a transpose that moves the
// last axis, against index arithmetic, for every permutation of shapes
// around the tile size and every dtype, and copies long enough to be split
// between threads (along their first axis longer than 1), and the split
// itself: every element of a walk in exactly one part.
#include "backend/kernel_support.hpp"
#include "backend/program.hpp"

#include "graph_builder.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <mutex>
#include <numeric>

using namespace eqsat;
using namespace eqsat::test;

namespace {

// The element of `in` (shape `dims`) that transpose(in, perm) holds at
// flat position `flat`.
std::int64_t source_of(std::int64_t flat, const ops::Dims& dims, const std::vector<int>& perm) {
  const std::size_t rank = dims.size();
  ops::Dims out(rank), index(rank);
  for (std::size_t i = 0; i < rank; ++i) out[i] = dims[perm[i]];
  for (std::size_t i = rank; i-- > 0;) {
    index[i] = flat % out[i];
    flat /= out[i];
  }
  std::int64_t at = 0;
  ops::Dims in_index(rank);
  for (std::size_t i = 0; i < rank; ++i) in_index[perm[i]] = index[i];
  for (std::size_t i = 0; i < rank; ++i) at = at * dims[i] + in_index[i];
  return at;
}

}  // namespace

TEST_CASE("a transpose equals index arithmetic for every permutation and dtype") {
  const std::vector<ops::Dims> shapes = {{33, 17},
                                         {16, 16},
                                         {1, 40},
                                         {40, 1},
                                         {5, 3, 70},
                                         {70, 4, 64},
                                         {2, 17, 33, 3},
                                         {3, 1, 130},
                                         {128, 4, 8},
                                         // 2^15 elements and more: split between threads.
                                         {128, 4, 64},
                                         {1, 300, 130},
                                         {3, 130, 90}};
  for (DType d : {DType::F64, DType::F32, DType::I32, DType::Bool}) {
    for (const ops::Dims& dims : shapes) {
      std::vector<int> perm(dims.size());
      std::iota(perm.begin(), perm.end(), 0);
      do {
        INFO(ops::dtype_name(d) << " " << ops::dims_to_string(dims) << " perm "
                                << fmt::format("{}", fmt::join(perm, " ")));
        TermRef x = input("x", d, dims);
        TermRef y =
            op(OpKind::Transpose, {x}, {{AttrKey::Perm, ops::IntList(perm.begin(), perm.end())}});
        backend::Program p = backend::compile(graph({x}, {y}));
        ops::Array xv(d, dims);
        for (std::int64_t i = 0; i < xv.size(); ++i)
          ops::visit_dtype(d, [&]<class T>(std::type_identity<T>) {
            xv.data<T>()[i] = static_cast<T>(d == DType::Bool ? (i * 7 % 3 == 0) : i % 1000 - 500);
          });
        const ops::Array out = p.run({xv})[0];
        REQUIRE(out.size() == xv.size());
        std::int64_t wrong = 0;
        for (std::int64_t i = 0; i < out.size(); ++i)
          wrong += out.element(i) != xv.element(source_of(i, dims, perm));
        CHECK(wrong == 0);
      } while (std::next_permutation(perm.begin(), perm.end()));
    }
  }
}

TEST_CASE("a flip and a broadcast along a strided last axis copy every element") {
  // A flip of the first axis of a transposed array: strides -1 and a
  // line apart, not the tiled kind; a broadcast's stride 0. The larger
  // shape's copies are split between threads.
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{20, 30}, {200, 300}}) {
    INFO(rows << " x " << cols);
    TermRef x = input("x", DType::F64, {rows, cols});
    TermRef t = op(OpKind::Transpose, {x}, {{AttrKey::Perm, ops::IntList{1, 0}}});
    TermRef f = op(OpKind::Flip, {t}, {{AttrKey::Axis, ops::IntList{0}}});
    TermRef b =
        op(OpKind::BroadcastTo, {op(OpKind::ExpandDims, {x}, {{AttrKey::Axis, std::int64_t{2}}})},
           {{AttrKey::Shape, ops::IntList{rows, cols, 9}}});
    backend::Program p = backend::compile(graph({x}, {f, b}));
    ops::Array xv(DType::F64, {rows, cols});
    for (std::int64_t i = 0; i < xv.size(); ++i) xv.data<double>()[i] = static_cast<double>(i);
    const auto out = p.run({xv});
    std::int64_t wrong = 0;  // f[r][c] = t[cols - 1 - r][c] = x[c][cols - 1 - r]
    for (std::int64_t r = 0; r < cols; ++r)
      for (std::int64_t c = 0; c < rows; ++c)
        wrong += out[0].element(r * rows + c) != xv.element(c * cols + (cols - 1 - r));
    CHECK(wrong == 0);
    wrong = 0;
    for (std::int64_t i = 0; i < rows * cols * 9; ++i)
      wrong += out[1].element(i) != xv.element(i / 9);
    CHECK(wrong == 0);
  }
}

TEST_CASE("a walk split along its first long axis covers each element once") {
  using backend::detail::AxisPart;
  for (const ops::Dims& shape : std::vector<ops::Dims>{
           {}, {1}, {1, 1}, {7}, {1, 9, 4}, {1, 1, 300, 5}, {3, 0, 2}, {1000, 3}}) {
    INFO(ops::dims_to_string(shape));
    const std::int64_t n = backend::detail::num_elements(shape);
    const ops::Dims strides = backend::detail::contiguous_strides(shape);
    std::vector<int> seen(static_cast<std::size_t>(n), 0);
    std::mutex m;
    int parts = 0, misplaced = 0;
    backend::detail::split_first_long_axis(shape, 1, [&](const AxisPart& part) {
      // The part's own walk, placed where it starts in the result and in
      // the source: both are the row-major order here. (Catch's checks
      // run on the calling thread, after the split.)
      const std::int64_t at = part.start_in_result(),
                         size = backend::detail::num_elements(part.shape);
      const std::lock_guard lock(m);
      ++parts;
      misplaced += at != part.start(strides) || part.shape.size() != shape.size();
      for (std::int64_t i = 0; i < size; ++i) ++seen[static_cast<std::size_t>(at + i)];
    });
    CHECK(misplaced == 0);
    CHECK(std::count(seen.begin(), seen.end(), 1) == n);
    const bool long_axis = std::any_of(shape.begin(), shape.end(), [](auto d) { return d > 1; });
    if (n == 0)
      CHECK(parts == 0);
    else if (!long_axis)
      CHECK(parts == 1);
    else
      CHECK(parts >= 1);
  }
}
