// A fused group's plan at run time: rows shorter than a block with each
// kind of leaf (whole, per row, a repeated row, bool, a window), and the
// plan kept from one run to the next only while the leaves' shapes stay
// the same.
#include "backend/program.hpp"
#include "backend/runtime_error.hpp"

#include "array_compare.hpp"
#include "array_values.hpp"
#include "graph_builder.hpp"
#include "op_by_op.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

using namespace eqsat;
using namespace eqsat::test;

namespace {

const auto kF64 = DType::F64;
constexpr auto kAny = ops::kUnknownDim;

}  // namespace

TEST_CASE("rows shorter than a block fuse with each kind of leaf, with the op-by-op bits") {
  // where(mask or flag, sigmoid(x - m) * bias, tanh(x)) with m (N 1), bias
  // (C), a bool mask (N C) and a bool flag (N 1), on rows of 64 to 512
  // elements (a block each).
  for (DType d : {DType::F32, DType::F64}) {
    TermRef x = input("x", d, {kAny, kAny});
    TermRef m = input("m", d, {kAny, 1});
    TermRef bias = input("bias", d, {kAny});
    TermRef mask = input("mask", DType::Bool, {kAny, kAny});
    TermRef flag = input("flag", DType::Bool, {kAny, 1});
    TermRef y =
        op(OpKind::Where, {op(OpKind::LogicalOr, {mask, flag}),
                           op(OpKind::Mul, {op(OpKind::Sigmoid, {op(OpKind::Sub, {x, m})}), bias}),
                           op(OpKind::Tanh, {x})});
    const std::vector<TermRef> inputs{x, m, bias, mask, flag};
    backend::Program p = backend::compile(graph(inputs, {y}));
    CHECK(p.num_instructions() == 1);
    backend::Program apart = backend::compile(unfused(inputs, y));
    for (auto [rows, cols] : {std::pair{7, 100}, {9, 64}, {33, 130}, {5, 511}, {4, 512}}) {
      INFO(rows << " x " << cols << " " << ops::dtype_name(d));
      ops::Array xv(d, {rows, cols}), mv(d, {rows, 1}), bv(d, {cols});
      ops::Array maskv(DType::Bool, {rows, cols}), flagv(DType::Bool, {rows, 1});
      for (std::int64_t i = 0; i < xv.size(); ++i) {
        set_element(xv, i, std::sin(i * 0.37) * 3);
        set_element(maskv, i, i % 5 == 0);
      }
      for (std::int64_t i = 0; i < rows; ++i) {
        set_element(mv, i, std::cos(i * 0.9));
        set_element(flagv, i, i % 3 == 1);
      }
      for (std::int64_t i = 0; i < cols; ++i) set_element(bv, i, 1 + std::sin(i * 0.11));
      const std::vector<ops::Array> args{xv, mv, bv, maskv, flagv};
      const ops::Array got = p.run(args)[0];
      CHECK(test::compare_arrays(got, apart.run(args).back(), 0) == "");
      // Element by element: each row's flag and m, each column's bias.
      for (std::int64_t i = 0; i < xv.size(); ++i) {
        const std::int64_t r = i / cols, c = i % cols;
        const bool pick = i % 5 == 0 || r % 3 == 1;
        const double v = xv.element(i);
        const double want = pick ? bv.element(c) / (1 + std::exp(mv.element(r) - v)) : std::tanh(v);
        CHECK(got.element(i) == Approx(want).epsilon(d == DType::F32 ? 1e-5 : 1e-12));
      }
    }
  }
}

TEST_CASE("a fused group plans again when a run's shapes differ from the last run's") {
  // The plan of one run's shapes is kept for the next run (a loop's steps);
  // other shapes, a slice of another width, or leaves that no longer fit
  // one pass are planned anew, with the op-by-op values every time.
  TermRef x = input("x", kF64, {kAny, kAny});
  TermRef m = input("m", kF64, {kAny, 1});
  TermRef bias = input("bias", kF64, {kAny});
  TermRef window =
      op(OpKind::Slice, {x}, {{AttrKey::Axis, std::int64_t{1}}, {AttrKey::Start, std::int64_t{4}}});
  TermRef y = op(OpKind::Mul, {op(OpKind::Tanh, {op(OpKind::Sub, {window, m})}), bias});
  const std::vector<TermRef> inputs{x, m, bias};
  backend::Program p = backend::compile(graph(inputs, {y}));
  CHECK(p.num_instructions() == 1);
  backend::Program apart = backend::compile(unfused(inputs, y));
  const std::vector<std::pair<int, int>> shapes = {{3, 104},  {3, 104}, {5, 104}, {3, 74},
                                                   {70, 204}, {3, 104}, {1, 68}};
  for (auto [rows, cols] : shapes) {
    INFO(rows << " x " << cols);
    const std::vector<ops::Array> args{ramp({rows, cols}, 2.0), ramp({rows, 1}, 1.0),
                                       ramp({cols - 4}, 0.5)};
    CHECK(test::compare_arrays(p.run(args)[0], apart.run(args).back(), 0) == "");
  }
  // A bias of another length: the group runs op by op and reports it, and
  // the next run's plan is made again.
  CHECK_THROWS_AS(p.run({ramp({3, 104}, 2.0), ramp({3, 1}, 1.0), ramp({7}, 0.5)}),
                  backend::RuntimeError);
  const std::vector<ops::Array> args{ramp({3, 104}, 2.0), ramp({3, 1}, 1.0), ramp({100}, 0.5)};
  CHECK(test::compare_arrays(p.run(args)[0], apart.run(args).back(), 0) == "");
}

TEST_CASE("a fused reduction plans again when a run's shapes differ from the last run's") {
  // sum(exp(x - m), axis 1) with m (N 1): rows of other lengths and
  // counts in turn, an empty row, and back; against sums written out (an
  // op-by-op program would hold a fused reduction too).
  TermRef x = input("x", kF64, {kAny, kAny});
  TermRef m = input("m", kF64, {kAny, 1});
  TermRef y = op(OpKind::Sum, {op(OpKind::Exp, {op(OpKind::Sub, {x, m})})},
                 {{AttrKey::Axis, ops::IntList{1}}, {AttrKey::Keepdims, false}});
  backend::Program p = backend::compile(graph({x, m}, {y}));
  CHECK(p.num_instructions() == 1);
  const std::vector<std::pair<int, int>> shapes = {{4, 700}, {4, 700}, {9, 700}, {4, 300},
                                                   {4, 0},   {4, 700}, {1, 5}};
  for (auto [rows, cols] : shapes) {
    INFO(rows << " x " << cols);
    const ops::Array xv = ramp({rows, cols}, 2.0), mv = ramp({rows, 1}, 1.0);
    const ops::Array got = p.run({xv, mv})[0];
    REQUIRE(got.shape() == ops::Dims{rows});
    for (int r = 0; r < rows; ++r) {
      double want = 0;
      for (int j = 0; j < cols; ++j) want += std::exp(xv.element(r * cols + j) - mv.element(r));
      CHECK(got.element(r) == Approx(want).epsilon(1e-12));
    }
  }
}
