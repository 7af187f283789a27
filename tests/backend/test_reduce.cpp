// backend/reduce.cpp along a middle axis, where threads take ranges of
// columns (an index of the axes after the reduced one) that may cross from
// one outer index to the next: every reduction folds each column first row
// to last, and softmax and log_softmax of each column equal the column's
// own computed apart (as a row: its sum in another order, so within
// rounding).
#include "backend/kernels.hpp"
#include "backend/program.hpp"

#include "graph_builder.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace eqsat;
using namespace eqsat::test;

TEST_CASE("a reduction over a middle axis, its columns split between threads, folds each column") {
  // 3 x 40 x 1500 reduced over axis 1: 4500 columns, in ranges that cross
  // from one outer index to the next; each column is folded first row to
  // last whatever range holds it.
  const std::int64_t outer = 3, rows = 40, inner = 1500;
  ops::Array x(ops::DType::F64, {outer, rows, inner});
  for (std::int64_t i = 0; i < x.size(); ++i)
    x.data<double>()[i] = 0.5 + static_cast<double>((i * 7919) % 1000) / 997.0;
  ops::TermRef in = ops::Term::input("x", x.type());
  for (OpKind kind : {OpKind::Sum, OpKind::Prod, OpKind::Max, OpKind::Min, OpKind::Mean}) {
    INFO(ops::op_name(kind));
    const auto got = backend::evaluate(
        {ops::Term::make(kind, {{AttrKey::Axis, ops::IntList{1}}}, {in})}, {{in, x}})[0];
    REQUIRE(got.size() == outer * inner);
    std::int64_t wrong = 0;
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t j = 0; j < inner; ++j) {
        double acc = x.data<double>()[o * rows * inner + j];
        for (std::int64_t r = 1; r < rows; ++r) {
          const double v = x.data<double>()[(o * rows + r) * inner + j];
          acc = kind == OpKind::Prod  ? acc * v
                : kind == OpKind::Max ? std::max(acc, v)
                : kind == OpKind::Min ? std::min(acc, v)
                                      : acc + v;
        }
        if (kind == OpKind::Mean) acc /= static_cast<double>(rows);
        wrong += got.data<double>()[o * inner + j] != acc;
      }
    CHECK(wrong == 0);
  }
}

TEST_CASE("a softmax over a middle axis, its columns split between threads, equals each column's") {
  // 3 x 40 x 1500 along axis 1 (columns cross outer indices) and 2000 x 700
  // along axis 0; each column against softmax / log_softmax of that column
  // alone, a 1-D array, which runs as one row.
  for (const ops::Dims& dims : {ops::Dims{3, 40, 1500}, ops::Dims{2000, 700}}) {
    const std::int64_t axis = dims.size() == 3 ? 1 : 0;
    const std::int64_t outer = dims.size() == 3 ? dims[0] : 1, rows = dims[axis],
                       inner = dims.back();
    ops::Array x(ops::DType::F64, dims);
    for (std::int64_t i = 0; i < x.size(); ++i)
      x.data<double>()[i] = static_cast<double>((i * 7919) % 2000) / 97.0 - 10.0;
    for (OpKind kind : {OpKind::Softmax, OpKind::LogSoftmax}) {
      INFO(ops::op_name(kind) << " " << ops::dims_to_string(dims));
      ops::TermRef in = ops::Term::input("x", x.type());
      const auto got =
          backend::evaluate({ops::Term::make(kind, {{AttrKey::Axis, axis}}, {in})}, {{in, x}})[0];
      ops::Array column(ops::DType::F64, {rows});
      ops::TermRef cin = ops::Term::input("c", column.type());
      backend::Program one =
          backend::compile(graph({cin}, {op(kind, {cin}, {{AttrKey::Axis, std::int64_t{0}}})}));
      std::int64_t wrong = 0;
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t j = 0; j < inner; j += 37) {
          for (std::int64_t r = 0; r < rows; ++r)
            column.data<double>()[r] = x.data<double>()[(o * rows + r) * inner + j];
          const ops::Array want = one.run({column})[0];
          for (std::int64_t r = 0; r < rows; ++r)
            wrong +=
                std::abs(got.data<double>()[(o * rows + r) * inner + j] - want.data<double>()[r]) >
                1e-13 * (1 + std::abs(want.data<double>()[r]));
        }
      CHECK(wrong == 0);
    }
  }
}
