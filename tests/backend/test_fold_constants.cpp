// Function::fold_constants (backend/fold_constants.cpp): what a graph
// computes from constants alone runs once when the Program is made (no
// instruction is left for it), unless its result is larger than its
// operands or it fails, which then happens at run time, as without folding.
#include "backend/program.hpp"
#include "backend/runtime_error.hpp"

#include "graph_builder.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using namespace eqsat::test;

namespace {

ops::Array counting(const ops::Dims& dims) {
  ops::Array a(DType::F64, dims);
  for (std::int64_t i = 0; i < a.size(); ++i) a.data<double>()[i] = 0.5 * static_cast<double>(i);
  return a;
}

std::vector<std::string> labels(backend::Program& p, const std::vector<ops::Array>& in) {
  p.set_profiling(true);
  p.run(in);
  std::vector<std::string> out;
  for (const auto& t : p.op_timings()) out.push_back(t.op);
  return out;
}

}  // namespace

TEST_CASE("a weight's transpose and a bias's sum are made once, with the values of each run") {
  // y = x · transpose(reshape(w)) + (b[0:3] + b[3:6]), w and b constants
  TermRef x = input("x", DType::F64, {2, 4});
  TermRef w = ops::Term::constant(counting({12}));
  TermRef b = ops::Term::constant(counting({6}));
  TermRef wt =
      op(OpKind::Transpose, {op(OpKind::Reshape, {w}, {{AttrKey::Shape, ops::IntList{3, 4}}})});
  auto half = [&](std::int64_t start) {
    return op(OpKind::Slice, {b},
              {{AttrKey::Axis, std::int64_t{0}},
               {AttrKey::Start, start},
               {AttrKey::Stop, start + 3},
               {AttrKey::Step, std::int64_t{1}}});
  };
  TermRef bias = op(OpKind::Add, {half(0), half(3)});
  TermRef y = op(OpKind::Add, {op(OpKind::Dot, {x, wt}), bias});
  backend::Program p = backend::compile(graph({x}, {y, wt}));
  const ops::Array xv = counting({2, 4});
  CHECK(labels(p, {xv}) == std::vector<std::string>{"dot(epilogue: add)"});
  for (int run = 0; run < 2; ++run) {
    std::vector<ops::Array> out = p.run({xv});
    REQUIRE(out[1].shape() == ops::Dims{4, 3});
    for (std::int64_t r = 0; r < 2; ++r)
      for (std::int64_t c = 0; c < 3; ++c) {
        double want = 0.5 * static_cast<double>(c) + 0.5 * static_cast<double>(c + 3);
        for (std::int64_t k = 0; k < 4; ++k)
          want += xv.element(r * 4 + k) * 0.5 * static_cast<double>(c * 4 + k);
        CHECK(out[0].element(r * 3 + c) == want);
        CHECK(out[1].element(c) == 0.5 * static_cast<double>(c * 4));
      }
    // The output that is a folded constant is the caller's own copy.
    out[1].data<double>()[0] = -1;
  }
}

TEST_CASE("a closed value larger than its operands, or one that fails, is left to run") {
  TermRef x = input("x", DType::F64, {3});
  TermRef c = ops::Term::constant(counting({3}));
  TermRef wide = op(OpKind::BroadcastTo, {c}, {{AttrKey::Shape, ops::IntList{1000, 3}}});
  backend::Program p = backend::compile(graph({x}, {op(OpKind::Add, {wide, x})}));
  const std::vector<std::string> rows = labels(p, {counting({3})});
  CHECK(std::ranges::count_if(
            rows, [](const std::string& r) { return r.starts_with("broadcast_to"); }) == 1);

  TermRef out_of_range = op(OpKind::Index, {c, i64(7)});
  backend::Program bad = backend::compile(graph({x}, {op(OpKind::Add, {out_of_range, x})}));
  CHECK_THROWS_AS(bad.run({counting({3})}), backend::RuntimeError);
}
