// The op catalogue (ops/op_list.hpp): each row's facts agree with its group,
// and the one behaviour table of ops/ that the columns call for, the
// pullbacks, covers every op: a Smooth op gives its float operands a
// cotangent, a Zero op gives none (over the samples of op_samples.hpp,
// which tests/ops/test_graph_printer.cpp prints and parses back). (The kernels and the scalar
// evaluation are checked by tests/backend/test_kernels.cpp and tests/rules/test_scalar_eval.cpp,
// gradients by finite differences by tests/rules/test_op_pullbacks.cpp.)
#include "ops/graph_parser.hpp"
#include "ops/pullback.hpp"

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
      CHECK(one_of(info.cost, {CostClass::Flop, CostClass::Flop4, CostClass::Transc}));
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

TEST_CASE("every Smooth op has a pullback and every Zero op passes no cotangent") {
  std::size_t checked = 0;
  for (int k = 0; k < kNumOps; ++k) {
    const auto kind = static_cast<OpKind>(k);
    const OpGroup group = op_info(kind).group;
    // Bodies, loops, calls and grad: rules/gradient.hpp (test_pullback.cpp).
    if (group == OpGroup::Leaf || group == OpGroup::Control || group == OpGroup::Gradient) continue;
    const std::string expr = test::op_sample(kind);
    INFO("op " << op_name(kind) << ": " << expr);
    REQUIRE(!expr.empty());
    const TermRef y = parse_graph(std::string(test::kInputs) + "(output " + expr + ")", "t.eg", ".")
                          .outputs[0]
                          .term;
    REQUIRE(y->kind() == kind);
    const TermRef g = Term::input("g", y->tensor_type());
    const std::vector<TermRef> gs = pullback(y, g);
    REQUIRE(gs.size() == y->arity());
    bool any = false;
    for (std::size_t i = 0; i < gs.size(); ++i) {
      if (!gs[i]) continue;
      any = true;
      CHECK(gs[i]->tensor_type() == y->operand(i)->tensor_type());
    }
    if (differentiability(kind) == Differentiability::Smooth && is_float(y->tensor_type().dtype))
      CHECK(any);
    if (differentiability(kind) == Differentiability::Zero) CHECK_FALSE(any);
    ++checked;
  }
  CHECK(checked > 60);
}
