// Central finite differences (rules/pipeline/finite_difference.hpp): the
// derivative of a smooth cost within the step's error, in f64 and f32, and
// one-sided differences that disagree at a kink.
#include "rules/pipeline/finite_difference.hpp"

#include "ops/graph_parser.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>

using namespace eqsat;

TEST_CASE("finite differences: the derivative of a smooth cost in f64 and f32") {
  for (const char* dtype : {"f64", "f32"}) {
    INFO(dtype);
    const ops::Graph g = ops::parse_graph(
        fmt::format("(input x ({} 3)) (output (sum (mul (sin x) 3.0)))", dtype), "g.eg", ".");
    const bool f32 = std::string_view(dtype) == "f32";
    ops::Array x = ops::Array::filled(f32 ? ops::DType::F32 : ops::DType::F64, {3}, 0.0);
    for (std::int64_t i = 0; i < 3; ++i) {
      const double v = 0.5 * static_cast<double>(i) - 0.7;
      if (f32)
        x.data<float>()[i] = static_cast<float>(v);
      else
        x.data<double>()[i] = v;
    }
    const ops::Array d = rules::finite_difference(g, {x}, 0, f32 ? 1e-2 : 1e-6);
    for (std::int64_t i = 0; i < 3; ++i)
      CHECK(d.element(i) == Approx(3 * std::cos(x.element(i))).epsilon(f32 ? 1e-3 : 1e-8));
    CHECK(x.element(0) == Approx(-0.7));  // the caller's input is left alone
  }
}

TEST_CASE("finite differences: one-sided differences disagree at a kink") {
  const ops::Graph g = ops::parse_graph("(input x (f64 2)) (output (sum (abs x)))", "g.eg", ".");
  ops::Array x = ops::Array::filled(ops::DType::F64, {2}, 0.0);
  x.data<double>()[1] = 2.0;
  rules::FiniteDifferences fd(g, {x}, 0);
  const rules::Difference kink = fd.at(0, 1e-6), smooth = fd.at(1, 1e-6);
  CHECK(kink.forward == Approx(1.0));
  CHECK(kink.backward == Approx(-1.0));
  CHECK(kink.central == Approx(0.0).margin(1e-9));
  CHECK(smooth.forward == Approx(smooth.backward));
  CHECK(smooth.central == Approx(1.0));
  CHECK(smooth.step == Approx(2e-6));  // relative to |x| = 2
  CHECK(fd.size() == 2);
}
