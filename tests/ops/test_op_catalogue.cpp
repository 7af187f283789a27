// The op catalogue (ops/op_list.hpp): each row's facts agree with its group,
// (The pullbacks the columns call for are checked against every op by
// tests/rules/autodiff/test_pullback.cpp, the kernels and the scalar
// evaluation by tests/backend/test_kernels.cpp and
// tests/rules/tensor/test_scalar_eval.cpp, gradients by finite differences by
// tests/rules/autodiff/test_op_pullbacks.cpp.)
#include "ops/graph_parser.hpp"

#include "op_samples.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <initializer_list>
#include <string>

using namespace eqsat::ops;

namespace {

bool one_of(CostClass c, std::initializer_list<CostClass> cs) {
  return std::ranges::find(cs, c) != cs.end();
}

}  // namespace

TEST_CASE("every row's facts agree with its group") {
  for (int k = 0; k < kNumOps; ++k) {
    const auto kind = static_cast<OpKind>(k);
    const OpInfo& info = op_info(kind);
    INFO("op " << info.name);
    const OpGroup g = info.group;
    // The cost class fits the group the cost model prices it by.
    if (is_elementwise(kind))
      CHECK(one_of(info.cost, {CostClass::Flop, CostClass::Flop4, CostClass::Transc,
                               CostClass::Transc2, CostClass::Select}));
    if (g == OpGroup::Reduction || g == OpGroup::Softmax)
      CHECK(one_of(info.cost, {CostClass::Flop, CostClass::Transc}));
    CHECK((g == OpGroup::LinAlg) == (info.cost == CostClass::Gemm));
    if (g == OpGroup::Shape || g == OpGroup::Indexing || g == OpGroup::Creation)
      CHECK(info.cost == CostClass::Move);
    if (g == OpGroup::Leaf) CHECK(info.cost == CostClass::Free);
    if (g == OpGroup::Control)
      CHECK(one_of(info.cost, {CostClass::Free, CostClass::Loop, CostClass::Invoke}));
    CHECK((g == OpGroup::Gradient) == (info.cost == CostClass::Never));
    // Only elementwise ops and reductions fuse; integers only elementwise.
    if (info.fusion != Fusion::NoFuse) CHECK((is_elementwise(kind) || g == OpGroup::Reduction));
    if (info.fusion == Fusion::FuseFI) CHECK(is_elementwise(kind));
    // Bodies, loops, calls and grad are differentiated by rules/gradient.
    CHECK((info.differentiability == Differentiability::Unsupported) ==
          (g == OpGroup::Control || g == OpGroup::Gradient));
    if (info.has(op_flags::UnitGrad)) {
      CHECK(is_elementwise(kind));
      CHECK(info.differentiability == Differentiability::Smooth);
    }
    if (is_commutative(kind)) CHECK((info.min_arity == 2 && info.max_arity == 2));
    if (is_comparison(kind) || is_logical(kind)) {
      CHECK(is_elementwise(kind));
      CHECK(info.differentiability == Differentiability::Zero);
    }
    // An op whose elements are operand 0's has operand 0's sign.
    CHECK(keeps_elements(kind) == (info.sign == SignRule::IfFirst));
    if (keeps_order(kind)) CHECK(keeps_elements(kind));
    if (info.sign == SignRule::IfBranches) CHECK(g == OpGroup::Select);
    if (info.sign == SignRule::IfAny) CHECK(info.min_arity >= 2);
  }
}
