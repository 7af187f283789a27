// Catalogue facts the executor can check by running the kernels, over the
// op samples of tests/ops/op_samples.hpp: which ops are linear (the loop
// rewrites push sums over steps through them) and which ops the executor
// lets write their result over an operand's buffer.
#include "backend/kernels.hpp"
#include "backend/program.hpp"
#include "ops/graph_parser.hpp"

#include "tests/ops/op_samples.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <random>
#include <set>

using namespace eqsat;
using ops::DType;
using ops::OpGroup;
using ops::OpKind;
using ops::TermRef;

namespace {

using Bindings = std::vector<std::pair<TermRef, ops::Array>>;

// Samples without literal constants for the ops whose shared sample has
// one, so that they can be tested for linearity.
const std::map<std::string_view, std::string> kConstantFree = {
    {"concat", "(concat m m :axis 0)"},
    {"inc_slice", "(inc_slice m x :axis 0 :start 1)"},
};

// The term of `kind`'s sample; nullptr for ops without one.
TermRef sample_term(OpKind kind) {
  const OpGroup group = ops::op_info(kind).group;
  if (group == OpGroup::Leaf || group == OpGroup::Control || group == OpGroup::Gradient)
    return nullptr;
  const auto own = kConstantFree.find(ops::op_name(kind));
  const std::string expr = own != kConstantFree.end() ? own->second : ops::test::op_sample(kind);
  if (expr.empty()) return nullptr;
  return ops::parse_graph(std::string(ops::test::kInputs) + "(output " + expr + ")", "t.eg", ".")
      .outputs[0]
      .term;
}

// The distinct input leaves under t, and whether a constant is among its
// leaves.
std::vector<TermRef> leaves_of(TermRef t, bool& constant) {
  std::vector<TermRef> leaves, stack{t};
  std::set<TermRef> seen;
  while (!stack.empty()) {
    const TermRef u = stack.back();
    stack.pop_back();
    if (!seen.insert(u).second) continue;
    if (u->kind() == OpKind::Input) leaves.push_back(u);
    constant |= u->kind() == OpKind::Const;
    for (TermRef o : u->operands()) stack.push_back(o);
  }
  std::ranges::sort(leaves, {},
                    [](TermRef l) { return l->attrs().get<std::string>(ops::AttrKey::Name); });
  return leaves;
}

// Random values for an input leaf (unknown dimensions are 4; the i64
// scalar is a valid row of m).
ops::Array random_value(TermRef leaf, std::mt19937_64& rng) {
  ops::Dims dims = leaf->tensor_type().dims;
  for (auto& d : dims)
    if (d == ops::kUnknownDim) d = 4;
  ops::Array a(leaf->tensor_type().dtype, dims);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::int64_t i = 0; i < a.size(); ++i) {
    const double v = u(rng);
    switch (a.dtype()) {
      case DType::F64:
        a.data<double>()[i] = v;
        break;
      case DType::F32:
        a.data<float>()[i] = static_cast<float>(v);
        break;
      case DType::I64:
        a.data<std::int64_t>()[i] = 1;
        break;
      case DType::I32:
        a.data<std::int32_t>()[i] = static_cast<std::int32_t>(std::lround(3 * v));
        break;
      case DType::Bool:
        a.data<bool>()[i] = v > 0;
        break;
    }
  }
  return a;
}

// a * x + b * y elementwise, in x's dtype (a float array).
ops::Array combine(double a, const ops::Array& x, double b, const ops::Array& y) {
  ops::Array out(x.dtype(), x.shape());
  for (std::int64_t i = 0; i < x.size(); ++i) {
    const double v = a * x.element(i) + b * y.element(i);
    if (x.dtype() == DType::F32)
      out.data<float>()[i] = static_cast<float>(v);
    else
      out.data<double>()[i] = v;
  }
  return out;
}

ops::Array run(TermRef t, const std::vector<TermRef>& leaves,
               const std::vector<ops::Array>& values) {
  Bindings b;
  for (std::size_t k = 0; k < leaves.size(); ++k) b.emplace_back(leaves[k], values[k]);
  return backend::evaluate({t}, b)[0];
}

// True when t(-1.5 X + Y) = -1.5 t(X) + t(Y) at random X and Y, three
// times, where only the leaves selected by `varied` change (the others
// keep X's values). NaN counts as a difference.
bool linear_in(TermRef t, const std::vector<TermRef>& leaves, const std::vector<bool>& varied,
               std::mt19937_64& rng) {
  const double a = -1.5;
  const double tol = t->tensor_type().dtype == DType::F32 ? 1e-4 : 1e-10;
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<ops::Array> xs, ys, mixed;
    for (std::size_t k = 0; k < leaves.size(); ++k) {
      xs.push_back(random_value(leaves[k], rng));
      ys.push_back(varied[k] ? random_value(leaves[k], rng) : xs.back());
      mixed.push_back(varied[k] ? combine(a, xs.back(), 1, ys.back()) : xs.back());
    }
    const ops::Array at_x = run(t, leaves, xs), at_y = run(t, leaves, ys);
    const ops::Array at_mixed = run(t, leaves, mixed);
    for (std::int64_t i = 0; i < at_x.size(); ++i) {
      const double want = a * at_x.element(i) + at_y.element(i);
      if (!(std::abs(at_mixed.element(i) - want) <= tol * (1 + std::abs(want)))) return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("the Linear and Bilinear flags are exactly the ops that are linear") {
  std::mt19937_64 rng(7);
  std::size_t checked = 0;
  for (int k = 0; k < ops::kNumOps; ++k) {
    const auto kind = static_cast<OpKind>(k);
    const TermRef t = sample_term(kind);
    if (!t) continue;
    INFO("op " << ops::op_name(kind));
    bool constant = false;
    const std::vector<TermRef> leaves = leaves_of(t, constant);
    const bool all_float = std::ranges::all_of(
        leaves, [](TermRef l) { return ops::is_float(l->tensor_type().dtype); });
    // Linear means linear in every operand: an index, a condition or a
    // literal operand rules it out.
    if (!all_float || constant || !ops::is_float(t->tensor_type().dtype) || leaves.empty()) {
      CHECK_FALSE(ops::is_linear(kind));
      CHECK_FALSE(ops::is_bilinear(kind));
      continue;
    }
    const std::vector<bool> every(leaves.size(), true);
    const bool jointly = linear_in(t, leaves, every, rng);
    bool each = leaves.size() > 1;
    for (std::size_t v = 0; v < leaves.size() && each; ++v) {
      std::vector<bool> one(leaves.size(), false);
      one[v] = true;
      each = linear_in(t, leaves, one, rng);
    }
    CHECK(ops::is_linear(kind) == jointly);
    CHECK(ops::is_bilinear(kind) == (each && !jointly));
    ++checked;
  }
  CHECK(checked > 40);
}

TEST_CASE("every op allowed to write over an operand gives the same result in place") {
  std::mt19937_64 rng(11);
  std::size_t in_place = 0, updates = 0;
  for (int k = 0; k < ops::kNumOps; ++k) {
    const auto kind = static_cast<OpKind>(k);
    const TermRef t = sample_term(kind);
    if (!t || !backend::has_kernel(kind)) continue;
    INFO("op " << ops::op_name(kind));
    bool constant = false;
    const std::vector<TermRef> leaves = leaves_of(t, constant);
    Bindings bindings;
    for (TermRef l : leaves) bindings.emplace_back(l, random_value(l, rng));
    std::vector<TermRef> operand_terms(t->operands().begin(), t->operands().end());
    const std::vector<ops::Array> operands = backend::evaluate(operand_terms, bindings);
    std::vector<const ops::Array*> args;
    for (const ops::Array& a : operands) args.push_back(&a);
    ops::Dims shape;
    backend::result_shape(t, args, shape);
    const DType dtype = t->tensor_type().dtype;
    ops::Array want(dtype, shape);
    backend::run_kernel(t, args, want);
    for (std::size_t i = 0; i < operands.size(); ++i) {
      if (!backend::may_write_in_place(t, i, operands[i], dtype, shape)) continue;
      std::vector<ops::Array> copies;
      for (const ops::Array& a : operands) copies.push_back(a.clone());
      std::vector<const ops::Array*> copy_args;
      for (const ops::Array& a : copies) copy_args.push_back(&a);
      ops::Array shared = copies[i];  // the result's buffer is operand i's
      backend::run_kernel(t, copy_args, shared);
      INFO("operand " << i);
      CHECK(shared.same_value(want));
      ++in_place;
      updates += ops::updates_first(kind);
    }
  }
  CHECK(in_place > 30);
  CHECK(updates == 4);
}
