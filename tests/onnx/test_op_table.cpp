// The translation table (onnx/op_table.cpp and the families' entries),
// property-tested: random ONNX models of activations, arithmetic,
// reductions and the softmax family run to the same values as written and
// optimized; every entry is found by its op type.
#include "../tools/run_eqsat.hpp"
#include "model_builder.hpp"

#include "backend/evaluate_closed.hpp"
#include "backend/program.hpp"
#include "onnx/import.hpp"
#include "onnx/op_table.hpp"
#include "rules/pipeline/optimize.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <random>

using eqsat::testing::ModelBuilder;
using eqsat::testing::Scratch;
namespace eo = eqsat::onnx;
namespace ops = eqsat::ops;

TEST_CASE("op table: every entry is found by its op type, in sorted order") {
  const auto all = eo::all_onnx_ops();
  REQUIRE(all.size() >= 100);  // docs/onnx.md lists them
  for (std::size_t i = 0; i < all.size(); ++i) {
    CHECK(eo::find_onnx_op(all[i]->op_type) == all[i]);
    if (i > 0) CHECK(all[i - 1]->op_type < all[i]->op_type);
  }
  CHECK(eo::find_onnx_op("Conv") == nullptr);
}

TEST_CASE("op table: random ONNX models compute the same as written and optimized") {
  const std::vector<std::string> unary = {
      "Abs",  "Neg",      "Tanh",      "Sigmoid",     "Relu",      "LeakyRelu", "Elu",
      "Selu", "Softsign", "Softplus",  "HardSigmoid", "HardSwish", "Celu",      "ThresholdedRelu",
      "Exp",  "Softmax",  "LogSoftmax", "Erf"};
  const std::vector<std::string> binary = {"Add", "Sub", "Mul", "Div", "Max", "Min", "PRelu"};
  const std::vector<std::string> reduce = {"ReduceSum", "ReduceMax", "ReduceLogSumExp", "ReduceL2",
                                           "ReduceMean"};
  const auto& rules = []() -> const eqsat::rules::RuleProgram& {
    static const auto program = eqsat::rules::load_default_rules();
    return program;
  }();
  Scratch s;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    std::mt19937_64 rng(seed);
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    ModelBuilder m;
    m.input("a", {3, 4}, eo::pb::TensorProto::DOUBLE)
        .input("b", {3, 4}, eo::pb::TensorProto::DOUBLE);
    std::vector<std::string> values = {"a", "b"};
    for (int k = 0; k < 8; ++k) {
      const std::string out = fmt::format("v{}", k);
      const std::string x = values[pick(values.size())], y = values[pick(values.size())];
      switch (pick(3)) {
        case 0:
          m.node(unary[pick(unary.size())], {x}, {out});
          break;
        case 1:
          m.node(binary[pick(binary.size())], {x, y}, {out});
          break;
        default: {
          auto& n = m.node(reduce[pick(reduce.size())], {x}, {out});
          auto* a = n.add_attribute();
          a->set_name("axes");
          a->set_type(eo::pb::AttributeProto::INTS);
          a->add_ints(pick(2) ? 1 : -1);
        }
      }
      values.push_back(out);
    }
    m.output(values.back()).output(values[values.size() - 2]);
    INFO("seed " << seed);
    eo::ImportOptions options;
    options.evaluate = eqsat::backend::evaluate_closed;
    const ops::Graph g = eo::import_model(m.write(s.path("m.onnx")), options).graph;
    std::vector<ops::Array> inputs;
    std::uniform_real_distribution<double> u(-4, 4);
    for (int i = 0; i < 2; ++i) {
      ops::Array a(ops::DType::F64, {3, 4});
      for (auto& v : a.span<double>()) v = pick(6) == 0 ? 0.0 : u(rng);
      inputs.push_back(a);
    }
    const auto want = eqsat::backend::compile(g).run(inputs);
    const auto got = eqsat::backend::compile(eqsat::rules::optimize(g, rules)).run(inputs);
    REQUIRE(got.size() == want.size());
    for (std::size_t o = 0; o < got.size(); ++o) {
      REQUIRE(got[o].shape() == want[o].shape());
      for (std::int64_t i = 0; i < got[o].size(); ++i) {
        const double x = got[o].element(i), y = want[o].element(i);
        if (std::isnan(x) || std::isnan(y) || std::isinf(y)) {
          CHECK((std::isnan(x) == std::isnan(y) && (std::isnan(x) || x == y)));
        } else {
          CHECK(std::abs(x - y) <= 1e-9 + 1e-9 * std::abs(y));
        }
      }
    }
  }
}
