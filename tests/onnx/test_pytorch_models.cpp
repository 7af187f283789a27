// The PyTorch models of examples/onnx (export_models.py): each imports,
// runs as written and optimized to PyTorch's outputs, and `grad` of a loss
// over an imported model agrees with finite differences.
#include "backend/evaluate_closed.hpp"
#include "backend/program.hpp"
#include "onnx/import.hpp"
#include "ops/npy.hpp"
#include "rules/pipeline/optimize.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

namespace eo = eqsat::onnx;
namespace ops = eqsat::ops;
using ops::OpKind;
using ops::Term;

namespace {

const std::string kDir = EQSAT_SOURCE_DIR "/examples/onnx/";

ops::Graph import(const std::string& name) {
  eo::ImportOptions options;
  options.evaluate = eqsat::backend::evaluate_closed;
  return eo::import_model(kDir + name + ".onnx", options).graph;
}

const eqsat::rules::RuleProgram& rules() {
  static const eqsat::rules::RuleProgram program = eqsat::rules::load_default_rules();
  return program;
}

ops::Array run(const ops::Graph& g, const ops::Array& x) {
  return eqsat::backend::compile(g).run({x}).at(0);
}

void check_close(const ops::Array& got, const ops::Array& want) {
  REQUIRE(got.shape() == want.shape());
  for (std::int64_t i = 0; i < got.size(); ++i)
    CHECK(std::abs(got.element(i) - want.element(i)) <= 1e-5 + 1e-4 * std::abs(want.element(i)));
}

}  // namespace

TEST_CASE(
    "pytorch models: mlp, lstm_lm, transformer run to PyTorch's outputs, as written and "
    "optimized") {
  for (const std::string name : {"mlp", "lstm_lm", "transformer"}) {
    INFO(name);
    const ops::Graph g = import(name);
    const ops::Array x = ops::read_npy(kDir + name + ".input.npy");
    const ops::Array want = ops::read_npy(kDir + name + ".output.npy");
    check_close(run(g, x), want);
    check_close(run(eqsat::rules::optimize(g, rules()), x), want);
  }
}

TEST_CASE("pytorch models: grad of a loss over an imported model equals finite differences") {
  for (const std::string name : {"mlp", "transformer"}) {
    INFO(name);
    const ops::Graph model = import(name);
    const ops::TermRef x = model.inputs.at(0);
    // loss = sum(output²) in float64; its gradient with respect to the input
    const ops::TermRef y64 =
        Term::make(OpKind::Cast, {{ops::AttrKey::Dtype, ops::DType::F64}}, {model.outputs[0].term});
    const ops::TermRef loss = Term::make(OpKind::Sum, {}, {Term::make(OpKind::Square, {}, {y64})});
    ops::Graph g;
    g.inputs = model.inputs;
    g.outputs = {{"loss", loss}, {"dx", Term::make(OpKind::Grad, {}, {loss, x})}};
    const ops::Graph best = eqsat::rules::optimize(g, rules());
    ops::Array in = ops::read_npy(kDir + name + ".input.npy");
    auto program = eqsat::backend::compile(best);
    const auto outs = program.run({in});
    const ops::Array& dx = outs.at(1);
    REQUIRE(dx.shape() == in.shape());
    ops::Graph loss_only;
    loss_only.inputs = model.inputs;
    loss_only.outputs = {{"loss", loss}};
    auto f = eqsat::backend::compile(loss_only);
    for (std::int64_t i : {std::int64_t{0}, in.size() / 3, in.size() - 1}) {
      const float h = 1e-2f, keep = in.data<float>()[i];
      ops::Array plus = in.clone(), minus = in.clone();
      plus.data<float>()[i] = keep + h;
      minus.data<float>()[i] = keep - h;
      const double fd =
          (f.run({plus}).at(0).element(0) - f.run({minus}).at(0).element(0)) / (2.0 * h);
      CHECK(dx.element(i) == Approx(fd).epsilon(2e-2).margin(1e-3));
    }
  }
}
