// backend/indexing.cpp: set_slice, inc_slice and inc_index on regions
// large enough to be split between threads (along the region's first axis
// longer than 1), with a value broadcast along the split axis, strided
// slices, a region whose first axis has length 1, and booleans (an
// increment is a logical or), against index arithmetic.
#include "backend/program.hpp"

#include "graph_builder.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using namespace eqsat::test;

namespace {

// An array of `dims` whose element i is f(i) (in its dtype).
template <class F>
ops::Array filled_by(DType d, const ops::Dims& dims, F f) {
  ops::Array a(d, dims);
  ops::visit_dtype(d, [&]<class T>(std::type_identity<T>) {
    for (std::int64_t i = 0; i < a.size(); ++i) a.data<T>()[i] = static_cast<T>(f(i));
  });
  return a;
}

ops::Array run_update(OpKind kind, const ops::Array& x, const ops::Array& v, ops::Attrs attrs,
                      std::optional<std::int64_t> index = {}) {
  TermRef xi = input("x", x.dtype(), x.shape());
  TermRef vi = input("v", v.dtype(), v.shape());
  std::vector<TermRef> operands{xi, vi};
  if (index) operands = {xi, i64(*index), vi};
  backend::Program p = backend::compile(graph({xi, vi}, {op(kind, operands, std::move(attrs))}));
  return p.run({x, v})[0];
}

}  // namespace

TEST_CASE("a slice update split between threads writes each element of the region once") {
  SECTION("inc_slice of every third row by one row, broadcast along the split axis") {
    const ops::Array x = filled_by(DType::F64, {900, 700}, [](auto i) { return i % 1000; });
    const ops::Array v = filled_by(DType::F64, {1, 700}, [](auto i) { return 0.5 + i; });
    const ops::Array out = run_update(OpKind::IncSlice, x, v,
                                      {{AttrKey::Axis, std::int64_t{0}},
                                       {AttrKey::Start, std::int64_t{1}},
                                       {AttrKey::Step, std::int64_t{3}}});
    std::int64_t wrong = 0;
    for (std::int64_t r = 0; r < 900; ++r)
      for (std::int64_t c = 0; c < 700; ++c) {
        const double want = x.element(r * 700 + c) + (r % 3 == 1 ? v.element(c) : 0.0);
        wrong += out.element(r * 700 + c) != want;
      }
    CHECK(wrong == 0);
  }
  SECTION("set_slice of every other column (f32)") {
    const ops::Array x = filled_by(DType::F32, {400, 300}, [](auto i) { return -(i % 977); });
    const ops::Array v = filled_by(DType::F32, {400, 150}, [](auto i) { return i % 313; });
    const ops::Array out =
        run_update(OpKind::SetSlice, x, v,
                   {{AttrKey::Axis, std::int64_t{1}}, {AttrKey::Step, std::int64_t{2}}});
    std::int64_t wrong = 0;
    for (std::int64_t r = 0; r < 400; ++r)
      for (std::int64_t c = 0; c < 300; ++c)
        wrong += out.element(r * 300 + c) !=
                 (c % 2 == 0 ? v.element(r * 150 + c / 2) : x.element(r * 300 + c));
    CHECK(wrong == 0);
  }
  SECTION("inc_index of one block: the region's first axis has length 1") {
    const ops::Array x = filled_by(DType::I32, {5, 200, 100}, [](auto i) { return i % 101; });
    const ops::Array v = filled_by(DType::I32, {200, 100}, [](auto i) { return i % 7; });
    const ops::Array out = run_update(OpKind::IncIndex, x, v, {}, 2);
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < x.size(); ++i)
      wrong += out.element(i) != x.element(i) + (i / 20000 == 2 ? v.element(i % 20000) : 0);
    CHECK(wrong == 0);
  }
  SECTION("inc_slice of booleans is a logical or") {
    const ops::Array x = filled_by(DType::Bool, {300, 400}, [](auto i) { return i % 3 == 0; });
    const ops::Array v = filled_by(DType::Bool, {300, 400}, [](auto i) { return i % 5 == 0; });
    const ops::Array out = run_update(OpKind::IncSlice, x, v, {{AttrKey::Axis, std::int64_t{0}}});
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < x.size(); ++i)
      wrong += out.element(i) != ((i % 3 == 0 || i % 5 == 0) ? 1 : 0);
    CHECK(wrong == 0);
  }
}
