// The pullback of every Smooth op of the catalogue
// (rules/autodiff/pullback.cpp) against central finite differences of its
// kernel: elementwise ops as sum(op(a, b)) at random points of their domain
// (positive values, else negative ones), the others on their catalogue
// sample (tests/ops/op_samples.hpp). A new op is checked here without a
// line of its own.
#include "tests/rules/gradient_check.hpp"

#include "rules/autodiff/gradient.hpp"

#include "ops/graph_printer.hpp"
#include "tests/ops/op_samples.hpp"

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

// The gradient of `cost` with respect to each float input at `at` equals
// central finite differences.
void check_gradients(const ops::Graph& cost, const std::vector<ops::Array>& at) {
  for (std::size_t wrt = 0; wrt < cost.inputs.size(); ++wrt) {
    if (!ops::is_float(cost.inputs[wrt]->tensor_type().dtype)) continue;
    INFO("with respect to " << cost.inputs[wrt]->attrs().get<std::string>(ops::AttrKey::Name));
    const ops::Graph grad =
        with_output(cost, rules::gradient(cost.outputs[0].term, cost.inputs[wrt]));
    check_close(finite_difference(cost, at, wrt), run1(grad, at), 1e-6);
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
    check_gradients(cost, at);
    ++checked;
  }
  CHECK(checked > 20);
}

namespace {

// The catalogue's sample inputs (tests/ops/op_samples.hpp), all floats f64
// so that finite differences are precise.
const std::string kSampleInputs = R"(
  (input x (f64 3))
  (input m (f64 2 3))
  (input u (f64 2 3))
  (input b (bool 3))
  (input i i64)
  (input k (i32 3))
)";

ops::Array sample_input(ops::TermRef in, std::mt19937_64& rng) {
  const ops::TensorType& type = in->tensor_type();
  if (ops::is_float(type.dtype)) return random_array(type, rng, 0.2, 1.4);
  ops::Array a(type.dtype, type.dims);
  for (std::int64_t j = 0; j < a.size(); ++j) {
    if (type.dtype == ops::DType::Bool)
      a.data<bool>()[j] = j % 2 == 0;
    else if (type.dtype == ops::DType::I64)
      a.data<std::int64_t>()[j] = 1;  // a row of m
    else
      a.data<std::int32_t>()[j] = static_cast<std::int32_t>(j + 1);
  }
  return a;
}

}  // namespace

// The other smooth ops (reductions, softmax, dot, shape, indexing and
// creation ops) on the catalogue's own samples: sum(sin(sample)), so that
// the cotangent differs from element to element.
TEST_CASE("every smooth op's pullback on its catalogue sample matches finite differences",
          "[grad]") {
  std::mt19937_64 rng(17);
  std::size_t checked = 0;
  for (int k = 0; k < ops::kNumOps; ++k) {
    const auto kind = static_cast<ops::OpKind>(k);
    const ops::OpGroup group = ops::op_info(kind).group;
    if (ops::is_elementwise(kind) || group == ops::OpGroup::Control ||
        group == ops::OpGroup::Gradient ||
        ops::differentiability(kind) != ops::Differentiability::Smooth)
      continue;
    const std::string sample = ops::test::op_sample(kind);
    REQUIRE(!sample.empty());
    const ops::Graph probe = graph(kSampleInputs + "(output " + sample + ")");
    if (!ops::is_float(probe.outputs[0].term->tensor_type().dtype)) continue;
    const ops::Graph cost = graph(kSampleInputs + "(output (sum (sin " + sample + ")))");
    INFO(ops::print_graph(cost));
    std::vector<ops::Array> at;
    for (ops::TermRef in : cost.inputs) at.push_back(sample_input(in, rng));
    check_gradients(cost, at);
    ++checked;
  }
  CHECK(checked > 20);
}
