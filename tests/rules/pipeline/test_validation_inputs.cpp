// The input sets of `--validate` (rules/pipeline/validation_inputs.hpp):
// set 0 ordinary, later sets with edge values of every kind the dtype has
// and unknown dimensions of 1 and 0; integers small; given values kept;
// the same sets every time.
#include "rules/pipeline/validation_inputs.hpp"

#include "ops/graph_parser.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <set>

using namespace eqsat;

namespace {

ops::Graph parse(const std::string& text) {
  return ops::parse_graph(text, "g.eg", ".");
}

}  // namespace

TEST_CASE("validation inputs: set 0 is ordinary, unknown dimensions 3") {
  const ops::Graph g = parse("(input x (f64 ? 2)) (input k i64) (output (add x 1.0))");
  const auto set = rules::ValidationInputs(g, {}, 1).input_set(0);
  REQUIRE(set.size() == 2);
  CHECK(set[0].shape() == ops::Dims{3, 2});
  for (std::int64_t i = 0; i < set[0].size(); ++i) {
    CHECK(std::abs(set[0].element(i)) <= 2);
  }
  CHECK(std::abs(set[1].element(0)) <= 3);
}

TEST_CASE("validation inputs: later sets give unknown dimensions 1 and 0, known ones stay") {
  const ops::Graph g = parse("(input x (f64 ? 2)) (output (sum x))");
  const rules::ValidationInputs draw(g, {}, 7);
  CHECK(draw.input_set(1)[0].shape() == ops::Dims{1, 2});
  CHECK(draw.input_set(2)[0].shape() == ops::Dims{0, 2});
  std::set<std::int64_t> lengths;
  for (std::size_t k = 3; k < 40; ++k) {
    const ops::Array a = draw.input_set(k)[0];
    CHECK(a.shape()[1] == 2);
    lengths.insert(a.shape()[0]);
  }
  CHECK(lengths == std::set<std::int64_t>{0, 1, 3});
  CHECK(draw.largest_types()[0] == ops::TensorType{ops::DType::F64, {3, 2}});
}

TEST_CASE("validation inputs: floats meet 0, -0, 1, -1, large, inf and NaN - integers stay small") {
  const ops::Graph g =
      parse("(input x (f32 50)) (input y (f64 50)) (input k (i64 50)) (output (sum x))");
  const rules::ValidationInputs draw(g, {}, 3);
  bool nan = false, inf = false, neg_inf = false, neg_zero = false, one = false, huge = false;
  for (std::size_t s = 1; s < 6; ++s) {
    const auto set = draw.input_set(s);
    for (int in = 0; in < 2; ++in)
      for (std::int64_t i = 0; i < 50; ++i) {
        const double v = set[static_cast<std::size_t>(in)].element(i);
        nan = nan || std::isnan(v);
        inf = inf || v == INFINITY;
        neg_inf = neg_inf || v == -INFINITY;
        neg_zero = neg_zero || (v == 0 && std::signbit(v));
        one = one || v == -1;
        huge = huge || (std::isfinite(v) && std::abs(v) >= std::numeric_limits<float>::max());
      }
    for (std::int64_t i = 0; i < 50; ++i) CHECK(std::abs(set[2].element(i)) <= 1000);
  }
  CHECK(nan);
  CHECK(inf);
  CHECK(neg_inf);
  CHECK(neg_zero);
  CHECK(one);
  CHECK(huge);
}

TEST_CASE("validation inputs: given values are kept, the others drawn the same each time") {
  const ops::Graph g = parse("(input x (f64 3)) (input y (f64 3)) (output (add x y))");
  const ops::Array given = ops::Array::filled(ops::DType::F64, {3}, 42);
  const rules::ValidationInputs draw(g, {given, std::nullopt}, 5);
  CHECK(draw.random());
  for (std::size_t s = 0; s < 4; ++s) {
    const auto a = draw.input_set(s), b = draw.input_set(s);
    CHECK(a[0].same_value(given));
    CHECK(a[1].same_value(b[1]));
  }
  CHECK_FALSE(draw.input_set(1)[1].same_value(draw.input_set(2)[1]));
  CHECK(draw.describe(draw.input_set(0))
            .starts_with("x = (f64 3) [42 42 42] (given); y = (f64 3) ["));
  CHECK_FALSE(rules::ValidationInputs(g, {given, given}, 5).random());
}
