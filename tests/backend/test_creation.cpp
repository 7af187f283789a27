// backend/creation.cpp: fills (zeros, ones, full, their _like forms) and
// arange, split between threads by ranges of elements, write every element
// of results too small and large enough to split, in every dtype.
#include "backend/program.hpp"

#include "graph_builder.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace eqsat;
using namespace eqsat::test;

namespace {

// The elements of `a` that differ from expected(i).
template <class F>
std::int64_t mismatches(const ops::Array& a, const F& expected) {
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < a.size(); ++i) wrong += a.element(i) != expected(i);
  return wrong;
}

}  // namespace

TEST_CASE("fills and arange write every element, split between threads or not") {
  for (DType d : {DType::F64, DType::F32, DType::I32, DType::I64, DType::Bool}) {
    for (std::int64_t n : {std::int64_t{1}, std::int64_t{37}, std::int64_t{100003}}) {
      INFO(std::string(ops::dtype_name(d)) << " x " << n);
      TermRef x = input("x", d, {n});
      TermRef v = input("v", DType::F64);
      TermRef len = input("len", DType::I64);
      TermRef zeros = op(OpKind::ZerosLike, {x});
      TermRef ones = op(OpKind::OnesLike, {x});
      TermRef full =
          op(OpKind::Full, {v}, {{AttrKey::Shape, ops::IntList{n}}, {AttrKey::Dtype, d}});
      TermRef range = op(OpKind::Arange, {len}, {{AttrKey::Dtype, d}});
      backend::Program p = backend::compile(graph({x, v, len}, {zeros, ones, full, range}));
      ops::Array xv(d, {n}), vv(DType::F64, {}), lv(DType::I64, {});
      vv.data<double>()[0] = 3.0;
      lv.data<std::int64_t>()[0] = n;
      const auto out = p.run({xv, vv, lv});
      REQUIRE(out[0].size() == n);
      CHECK(mismatches(out[0], [](std::int64_t) { return 0.0; }) == 0);
      CHECK(mismatches(out[1], [](std::int64_t) { return 1.0; }) == 0);
      const double three = d == DType::Bool ? 1.0 : 3.0;
      CHECK(mismatches(out[2], [&](std::int64_t) { return three; }) == 0);
      REQUIRE(out[3].size() == n);
      // bool's arange is 0 then 1s (i != 0); the others count, exactly here.
      CHECK(mismatches(out[3], [&](std::int64_t i) {
              return d == DType::Bool ? double(i != 0) : double(i);
            }) == 0);
    }
  }
}
