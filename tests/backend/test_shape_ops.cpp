// backend/shape_ops.cpp: concat and stack, whose copies threads share by
// ranges of the result's bytes (ranges that start and end inside an
// operand's block, skip empty operands and wrap to the next row), against
// index arithmetic; operands of another dtype are converted first.
#include "backend/program.hpp"

#include "graph_builder.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using namespace eqsat::test;

namespace {

// An array of `dims` whose element i is `base + i` (in its dtype).
ops::Array counting(DType d, const ops::Dims& dims, double base) {
  ops::Array a(d, dims);
  ops::visit_dtype(d, [&]<class T>(std::type_identity<T>) {
    for (std::int64_t i = 0; i < a.size(); ++i) a.data<T>()[i] = static_cast<T>(base + i);
  });
  return a;
}

// Runs `kind` along `axis` of the operands; returns the result.
ops::Array join(OpKind kind, std::int64_t axis, const std::vector<ops::Array>& values) {
  std::vector<TermRef> ins;
  for (std::size_t i = 0; i < values.size(); ++i)
    ins.push_back(input(fmt::format("x{}", i), values[i].dtype(), values[i].shape()));
  backend::Program p =
      backend::compile(graph(ins, {op(kind, ins, {{AttrKey::Axis, std::int64_t{axis}}})}));
  return p.run(values)[0];
}

}  // namespace

TEST_CASE("a concat split between threads places every element of every operand") {
  SECTION("along the first axis, an empty operand between two") {
    const std::vector<ops::Array> v{counting(DType::F64, {300, 70}, 0),
                                    counting(DType::F64, {0, 70}, 0),
                                    counting(DType::F64, {500, 70}, 1e6)};
    const ops::Array out = join(OpKind::Concat, 0, v);
    REQUIRE(out.shape() == ops::Dims{800, 70});
    std::int64_t wrong = 0;
    for (std::int64_t r = 0; r < 800; ++r)
      for (std::int64_t c = 0; c < 70; ++c)
        wrong += out.element(r * 70 + c) !=
                 (r < 300 ? v[0].element(r * 70 + c) : v[2].element((r - 300) * 70 + c));
    CHECK(wrong == 0);
  }
  SECTION("along the last axis: blocks of 12, 0 and 1000 bytes a row, one operand converted") {
    const std::vector<ops::Array> v{counting(DType::F32, {401, 3}, 0),
                                    counting(DType::F32, {401, 0}, 0),
                                    counting(DType::I32, {401, 250}, 5000)};
    const ops::Array out = join(OpKind::Concat, 1, v);
    REQUIRE(out.dtype() == DType::F32);
    REQUIRE(out.shape() == ops::Dims{401, 253});
    std::int64_t wrong = 0;
    for (std::int64_t r = 0; r < 401; ++r)
      for (std::int64_t c = 0; c < 253; ++c)
        wrong += out.element(r * 253 + c) !=
                 (c < 3 ? v[0].element(r * 3 + c) : v[2].element(r * 250 + c - 3));
    CHECK(wrong == 0);
  }
}

TEST_CASE("a stack split between threads places every element of every operand") {
  for (std::int64_t axis : {0, 1, 2}) {
    INFO("axis " << axis);
    const std::vector<ops::Array> v{counting(DType::F64, {300, 200}, 0),
                                    counting(DType::F64, {300, 200}, 1e6),
                                    counting(DType::F64, {300, 200}, 2e6)};
    const ops::Array out = join(OpKind::Stack, axis, v);
    std::int64_t wrong = 0;
    for (std::int64_t k = 0; k < 3; ++k)
      for (std::int64_t r = 0; r < 300; ++r)
        for (std::int64_t c = 0; c < 200; ++c) {
          const std::int64_t at = axis == 0   ? (k * 300 + r) * 200 + c
                                  : axis == 1 ? (r * 3 + k) * 200 + c
                                              : (r * 200 + c) * 3 + k;
          wrong += out.element(at) != v[k].element(r * 200 + c);
        }
    CHECK(wrong == 0);
  }
}
