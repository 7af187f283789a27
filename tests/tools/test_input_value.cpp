// Values written on the command line (tools/input_value.hpp): the shape
// from the brackets, the dtype from the graph, refusals for what does not
// fit exactly; and `eqsat run --input x=VALUE` end to end.
#include "run_eqsat.hpp"

#include "tools/input_value.hpp"

#include "ops/diagnostic.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using eqsat::ops::DType;
using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;
using eqsat::tools::looks_like_value;
using eqsat::tools::parse_input_value;

TEST_CASE("input values: what is a value and what is a file name") {
  for (const char* v : {"0.5", "-3", "+2", ".5", "[1,2]", "inf", "nan", "true", "false"})
    CHECK(looks_like_value(v));
  for (const char* f : {"x.npy", "./0.5", "data/x.npy", "", "infinity.npy"})
    CHECK_FALSE(looks_like_value(f));
}

TEST_CASE("input values: scalars, nested lists and their shapes") {
  auto a = parse_input_value("x", "0.25", DType::F64);
  CHECK(a.shape().empty());
  CHECK(a.element(0) == 0.25);
  a = parse_input_value("x", "[[1, 2, 3], [4, 5, 6]]", DType::F32);
  CHECK(a.shape() == eqsat::ops::Dims{2, 3});
  CHECK(a.element(5) == 6);
  a = parse_input_value("x", "[]", DType::I64);
  CHECK(a.shape() == eqsat::ops::Dims{0});
  a = parse_input_value("x", "[[],[]]", DType::F64);
  CHECK(a.shape() == eqsat::ops::Dims{2, 0});
  a = parse_input_value("x", "[-inf, inf, nan, -0]", DType::F64);
  CHECK(std::isinf(a.element(0)));
  CHECK(std::isnan(a.element(2)));
  CHECK(std::signbit(a.element(3)));
  a = parse_input_value("b", "[true, false, 1]", DType::Bool);
  CHECK(a.element(0) == 1);
  CHECK(a.element(1) == 0);
  a = parse_input_value("k", "-9223372036854775808", DType::I64);
  CHECK(a.integer_element(0) == std::numeric_limits<std::int64_t>::min());
}

TEST_CASE("input values: what does not fit exactly or is malformed is refused") {
  auto message = [](const char* text, DType d) -> std::string {
    try {
      parse_input_value("x", text, d);
    } catch (const eqsat::ops::DiagnosticError& e) {
      return e.what();
    }
    return "accepted";
  };
  CHECK(message("1.5", DType::I32) == "--input x: error: 1.5 is not a value of i32");
  CHECK(
      message("[1, 2147483648]", DType::I32).find("element 1 (2147483648) is not a value of i32") !=
      std::string::npos);
  CHECK(message("2", DType::Bool).find("is not a value of bool") != std::string::npos);
  CHECK(message("1e39", DType::F32).find("is not a value of f32") != std::string::npos);
  CHECK(message("[[1,2],[3]]", DType::F64).find("a list of 1 elements where the first") !=
        std::string::npos);
  CHECK(message("[[1,2],3]", DType::F64).find("nested unevenly") != std::string::npos);
  CHECK(message("[1,2", DType::F64).find("expected ',' or ']'") != std::string::npos);
  CHECK(message("[1,,2]", DType::F64).find("expected a number") != std::string::npos);
  CHECK(message("1 2", DType::F64).find("unexpected text after the value") != std::string::npos);
  CHECK(message(std::string(100, '[').c_str(), DType::F64).find("nested too deep") !=
        std::string::npos);
}

TEST_CASE("run: --input NAME=VALUE gives an input on the command line") {
  Scratch s;
  s.write("g.eg", "(input x f64)\n(input v (f64 ?))\n(output y (mul v x))\n");
  auto r = run_eqsat(s, "run g.eg --input x=0.5 --input v=[2,4,6] --out out");
  CHECK(r.status == 0);
  CHECK(r.out.find("y: (f64 3)  min 1  mean 2  max 3") != std::string::npos);
  r = run_eqsat(s, "run g.eg --input x=0.5 --input v=[[1],[2]]");
  CHECK(r.status == 1);
  CHECK(r.err.find("input v") != std::string::npos);
  r = run_eqsat(s, "run g.eg --input x=1.5 --input v=abc");
  CHECK(r.status == 1);
  CHECK(r.err == "abc: error: cannot read file: No such file or directory\n");
}
