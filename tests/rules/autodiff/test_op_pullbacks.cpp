// The pullback of every Smooth elementwise op of the catalogue
// (rules/autodiff/pullback.cpp) against central finite differences of its kernel:
// the gradient of sum(op(a, b)) with respect to each operand, at random
// points of the op's domain (positive values, else negative ones). A new
// op is checked here without a line of its own.
#include "tests/rules/gradient_check.hpp"

#include "rules/autodiff/gradient.hpp"

#include "ops/graph_printer.hpp"

#include <cmath>
#include <random>

using namespace eqsat;
using namespace eqsat::test;

namespace {

const std::string kInputs = "(input a (f64 6)) (input b (f64 6))\n";

// sum(op(a, b)) for `kind`; a where selects between a and b on b > 0.5.
std::string cost_of(ops::OpKind kind) {
  const ops::OpInfo& info = ops::op_info(kind);
  const std::string name(info.name);
  switch (info.group) {
    case ops::OpGroup::Unary:
      return "(sum (" + name + " a" + (info.accepts(ops::AttrKey::Dtype) ? " :dtype f64" : "") +
             "))";
    case ops::OpGroup::Binary:
      return "(sum (" + name + " a b))";
    default:
      return "(sum (" + name + " (gt b 0.5) a b))";
  }
}

bool all_finite(const ops::Array& x) {
  for (std::int64_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x.element(i))) return false;
  return true;
}

}  // namespace

TEST_CASE("every smooth elementwise op's pullback matches finite differences", "[grad]") {
  std::mt19937_64 rng(16);
  std::size_t checked = 0;
  for (int k = 0; k < ops::kNumOps; ++k) {
    const auto kind = static_cast<ops::OpKind>(k);
    if (!ops::is_elementwise(kind) ||
        ops::differentiability(kind) != ops::Differentiability::Smooth)
      continue;
    const ops::Graph cost = graph(kInputs + "(output " + cost_of(kind) + ")");
    INFO(ops::print_graph(cost));
    // Points where the op is finite: in (0.2, 1.4), else in (-1.4, -0.2).
    std::vector<ops::Array> at;
    for (const double sign : {1.0, -1.0}) {
      at.clear();
      for (ops::TermRef in : cost.inputs)
        at.push_back(sign > 0 ? random_array(in->tensor_type(), rng, 0.2, 1.4)
                              : random_array(in->tensor_type(), rng, -1.4, -0.2));
      if (all_finite(run1(cost, at))) break;
    }
    REQUIRE(all_finite(run1(cost, at)));
    for (std::size_t wrt = 0; wrt < cost.inputs.size(); ++wrt) {
      INFO("with respect to " << cost.inputs[wrt]->attrs().get<std::string>(ops::AttrKey::Name));
      const ops::Graph grad =
          with_output(cost, rules::gradient(cost.outputs[0].term, cost.inputs[wrt]));
      check_close(finite_difference(cost, at, wrt), run1(grad, at), 1e-6);
    }
    ++checked;
  }
  CHECK(checked > 20);
}
