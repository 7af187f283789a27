// tools/onnx_module.cpp: the program opens the ONNX module only for an ONNX
// file. A copy of the program without its module still reads graph text;
// given a model, it names each place it looked and exits 3 (an incomplete
// installation, not the user's input).
#include "run_eqsat.hpp"

#include "../onnx/model_builder.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using eqsat::testing::ModelBuilder;
using eqsat::testing::read_file;
using eqsat::testing::Scratch;

namespace {

// Runs `./eqsat ARGS` in the scratch directory: the copy there.
eqsat::testing::RunResult run_copy(const Scratch& s, const std::string& args) {
  const std::string command =
      "cd '" + s.dir().string() + "' && ./eqsat " + args + " >.stdout 2>.stderr";
  const int raw = std::system(command.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw), read_file(s.path(".stdout")),
          read_file(s.path(".stderr"))};
}

}  // namespace

TEST_CASE("a program without its ONNX module reads graph text and names the module it lacks") {
  Scratch s;
  std::filesystem::copy_file(EQSAT_BINARY, s.path("eqsat"));
  s.write("g.eg", "(input x (f64 3))\n(output (mul x 1))\n");
  const auto text = run_copy(s, "optimize g.eg");
  CHECK(text.status == 0);
  CHECK(text.out == "(input x (f64 3))\n(output x)\n");

  ModelBuilder m;
  m.input("x", {3});
  m.node("Exp", {"x"}, {"y"});
  m.output("y");
  m.write(s.path("m.onnx"));
  for (const char* args : {"import m.onnx", "run m.onnx --random 0", "optimize g.eg -o g.onnx"}) {
    INFO(args);
    const auto r = run_copy(s, args);
    CHECK(r.status == 3);
    CHECK(r.err.rfind("eqsat: internal error: cannot open the ONNX module (eqsat ", 0) == 0);
    CHECK(r.err.find(s.path("eqsat_onnx.so")) != std::string::npos);
    CHECK(r.err.find("eqsat/eqsat_onnx.so") != std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(s.path("g.onnx")));
}
