// ONNX names as names of ours (onnx/value_names.cpp).
#include "onnx/value_names.hpp"

#include <catch2/catch.hpp>

TEST_CASE("value names: symbols and file names stay, others are made safe and unique") {
  eqsat::onnx::ValueNames names;
  CHECK(names.make("x") == "x");
  CHECK(names.make("input.1") == "input.1");
  CHECK(names.make("onnx::Gemm_0") == "onnx__Gemm_0");
  CHECK(names.make("/layer/MatMul_output_0") == "_layer_MatMul_output_0");
  CHECK(names.make("23") == "_23");
  CHECK(names.make("") == "_");
  CHECK(names.make("true") == "_true");
  CHECK(names.make("../escape") == "_.._escape");
  CHECK(names.make("x") == "x_2");  // taken
  CHECK(names.make("onnx:;Gemm_0") == "onnx__Gemm_0_2");
}
