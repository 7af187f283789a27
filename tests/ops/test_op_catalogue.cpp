// The op catalogue (ops/op_list.hpp): each row's facts agree with its group,
// every op prints and parses back, and the one behaviour table of ops/
// that the columns call for, the pullbacks, covers every op: a Smooth op
// gives its float operands a cotangent, a Zero op gives none. (The kernels and the scalar
// evaluation are checked by tests/backend/test_kernels.cpp and tests/rules/test_scalar_eval.cpp,
// gradients by finite differences by tests/rules/test_op_pullbacks.cpp.)
#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"
#include "ops/pullback.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <set>
#include <string>

using namespace eqsat::ops;

namespace {

bool one_of(CostClass c, std::initializer_list<CostClass> cs) {
  return std::ranges::find(cs, c) != cs.end();
}

// One application of every op that is not elementwise, a reduction or a
// softmax (those are built from their group), over the inputs of
// kSampleInputs. A new op of another group needs a line here.
const char* kSampleInputs =
    "(input a (f64 2 3)) (input b (f64 3)) (input m (f64 3 4)) (input i i64)\n";
const std::map<std::string, std::string> kSamples = {
    {"dot", "(dot a m)"},
    {"reshape", "(reshape a :shape (3 2))"},
    {"transpose", "(transpose a :perm (1 0))"},
    {"expand_dims", "(expand_dims a :axis 1)"},
    {"squeeze", "(squeeze (expand_dims a :axis 0) :axis 0)"},
    {"broadcast_to", "(broadcast_to b :shape (2 3))"},
    {"flip", "(flip a :axis 0)"},
    {"concat", "(concat a a :axis 0)"},
    {"stack", "(stack a a :axis 0)"},
    {"dim", "(dim a :axis 1)"},
    {"index", "(index a i)"},
    {"slice", "(slice a :axis 1 :start 1)"},
    {"set_index", "(set_index a i b)"},
    {"inc_index", "(inc_index a i b)"},
    {"set_slice", "(set_slice a b :axis 0 :start 1 :stop 2)"},
    {"inc_slice", "(inc_slice a b :axis 0 :start 1 :stop 2)"},
    {"zeros", "(zeros :shape (2 3) :dtype f64)"},
    {"ones", "(ones :shape (2 3) :dtype f64)"},
    {"full", "(full (sum b) :shape (2 3) :dtype f64)"},
    {"zeros_like", "(zeros_like a)"},
    {"ones_like", "(ones_like a)"},
    {"arange", "(arange 4)"},
};

// An application of `kind` over float operands, or "" for leaves, control
// ops and grad (whose pullbacks are not the catalogue's: see
// tests/ops/test_pullback.cpp and rules/gradient.hpp).
std::string sample(OpKind kind) {
  const OpInfo& info = op_info(kind);
  const std::string name(info.name);
  const std::string dtype = info.accepts(AttrKey::Dtype) ? " :dtype f32" : "";
  switch (info.group) {
    case OpGroup::Unary:
      return "(" + name + " a" + dtype + ")";
    case OpGroup::Binary:
      return "(" + name + " a b)";
    case OpGroup::Select:
      return "(" + name + " (gt a 0.0) a b)";
    case OpGroup::Reduction:
    case OpGroup::Softmax:
      return "(" + name + " a :axis 1)";
    case OpGroup::Leaf:
    case OpGroup::Control:
    case OpGroup::Gradient:
      return "";
    default: {
      const auto it = kSamples.find(name);
      return it == kSamples.end() ? "missing" : it->second;
    }
  }
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
  std::set<OpKind> checked;
  for (int k = 0; k < kNumOps; ++k) {
    const auto kind = static_cast<OpKind>(k);
    const std::string expr = sample(kind);
    INFO("op " << op_name(kind) << ": " << expr);
    if (expr.empty()) continue;
    REQUIRE(expr != "missing");
    const TermRef y = parse_graph(std::string(kSampleInputs) + "(output " + expr + ")", "t.eg", ".")
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
    checked.insert(kind);
  }
  CHECK(checked.size() > 60);
}

TEST_CASE("every op prints and parses back to the same term") {
  for (int k = 0; k < kNumOps; ++k) {
    const auto kind = static_cast<OpKind>(k);
    const std::string expr = sample(kind);
    INFO("op " << op_name(kind) << ": " << expr);
    if (expr.empty()) continue;
    REQUIRE(expr != "missing");
    const Graph g = parse_graph(std::string(kSampleInputs) + "(output " + expr + ")", "t.eg", ".");
    const std::string text = print_graph(g);
    INFO(text);
    CHECK(parse_graph(text, "printed.eg", ".").outputs[0].term == g.outputs[0].term);
    const std::string name(op_name(kind));
    CHECK(text.find("(" + name) != std::string::npos);
  }
}
