// `eqsat import` (tools/cmd_import.cpp) and the commands reading ONNX models
// (tools/read_graph.cpp): side files, names, refusals, every command.
#include "run_eqsat.hpp"

#include "../onnx/model_builder.hpp"
#include "ops/npy.hpp"

#include <catch2/catch.hpp>

using eqsat::testing::ModelBuilder;
using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;
namespace ops = eqsat::ops;

namespace {

// y = tanh(x · W + b) with a 4×3 weight (large: a side file) and a bias of 3.
std::string write_layer(const Scratch& s) {
  ModelBuilder m;
  ops::Array w(ops::DType::F32, {4, 5});
  for (std::int64_t i = 0; i < w.size(); ++i)
    w.data<float>()[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  m.input("x:0", {2, 4})
      .initializer("W", w)
      .initializer("b", ops::Array::filled(ops::DType::F32, {5}, 0.25));
  m.node("MatMul", {"x:0", "W"}, {"xw"});
  m.node("Add", {"xw", "b"}, {"pre"});
  m.node("Tanh", {"pre"}, {"y/out"});
  m.output("y/out");
  return m.write(s.path("layer.onnx"));
}

}  // namespace

TEST_CASE(
    "import -o: large constants go to side files that the graph loads, and it runs as the model") {
  Scratch s;
  write_layer(s);
  auto r = run_eqsat(s, "import layer.onnx -o layer.eg");
  REQUIRE(r.status == 0);
  const std::string text = eqsat::testing::read_file(s.path("layer.eg"));
  CHECK(text.find("(input x_0 (f32 2 4))") != std::string::npos);
  CHECK(text.find("(load \"layer.weights/0.npy\")") != std::string::npos);
  CHECK(text.find("(output y_out ") != std::string::npos);
  CHECK(ops::read_npy(s.path("layer.weights/0.npy")).shape() == ops::Dims{4, 5});
  // the printed graph and the model compute the same
  REQUIRE(run_eqsat(s, "run layer.eg --random 3 --no-opt --out a").status == 0);
  REQUIRE(run_eqsat(s, "run layer.onnx --random 3 --out b").status == 0);
  const ops::Array a = ops::read_npy(s.path("a/y_out.npy")),
                   b = ops::read_npy(s.path("b/y_out.npy"));
  REQUIRE(a.shape() == b.shape());
  for (std::int64_t i = 0; i < a.size(); ++i)
    CHECK(a.element(i) == Approx(b.element(i)).epsilon(1e-6));
  // without -o the graph is printed, every constant inline
  r = run_eqsat(s, "import layer.onnx");
  CHECK(r.status == 0);
  CHECK(r.out.find("(load") == std::string::npos);
  CHECK(r.out.find("(const (f32 4 5)") != std::string::npos);
}

TEST_CASE("import -o: the model itself is never overwritten") {
  Scratch s;
  write_layer(s);
  const std::string before = eqsat::testing::read_file(s.path("layer.onnx"));
  auto r = run_eqsat(s, "import layer.onnx -o layer.onnx");
  CHECK(r.status == 1);
  CHECK(r.err.find("layer.onnx") != std::string::npos);
  CHECK(eqsat::testing::read_file(s.path("layer.onnx")) == before);
}

TEST_CASE("every command that reads a graph reads an ONNX model") {
  Scratch s;
  write_layer(s);
  for (const std::string cmd :
       {"print layer.onnx", "optimize layer.onnx --quiet", "dot layer.onnx -o g.dot",
        "html layer.onnx -o g.html", "explore layer.onnx --top 2 --out alt",
        "profile layer.onnx --random 0 --repeat 2", "run layer.onnx --random 0",
        "explain layer.onnx '(neg (neg x_0))' x_0"}) {
    INFO(cmd);
    const auto r = run_eqsat(s, cmd);
    CHECK(r.err == "");
    CHECK(r.status == 0);
  }
}

TEST_CASE("a model eqsat cannot run exactly is refused with exit 1 by every command") {
  Scratch s;
  ModelBuilder m;
  m.input("x", {1, 1, 4, 4}).input("w", {1, 1, 3, 3}).output("y");
  m.node("Conv", {"x", "w"}, {"y"}, "conv1");
  m.write(s.path("conv.onnx"));
  for (const std::string cmd : {"print", "optimize", "run", "import"}) {
    const auto r = run_eqsat(s, cmd + " conv.onnx");
    CHECK(r.status == 1);
    CHECK(r.err ==
          "conv.onnx: node 'conv1' (Conv): not supported: eqsat has no translation of this op\n");
  }
}
