// The passes over a fused group's program (backend/kernel_groups.hpp):
// pair_sin_cos, which lets a sin and a cos of one source share a call,
// allocate_registers, which reuses a register once its value is dead, and
// without_added_leaf, which takes out of a product's epilogue a leaf the
// product can be added into.
#include "backend/kernel_groups.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

using namespace eqsat;
using backend::detail::FusedOp;
using backend::detail::FusedSource;
using ops::OpKind;

namespace {

FusedSource leaf(int k) {
  return {true, k};
}

FusedSource value(int k) {
  return {false, k};
}

FusedOp unary(OpKind kind, FusedSource a) {
  return {kind, 1, {a, {}, {}}};
}

FusedOp binary(OpKind kind, FusedSource a, FusedSource b) {
  return {kind, 2, {a, b, {}}};
}

// No op writes a register one of its sources is held in, no live value's
// register is written before its last reader ran, and the last op has none.
void check_registers(const std::vector<FusedOp>& program) {
  REQUIRE(program.back().reg == -1);
  for (std::size_t k = 0; k + 1 < program.size(); ++k) REQUIRE(program[k].reg >= 0);
  // When op k's value is written (at k, or at its partner's index)...
  auto written_at = [&](std::size_t k) {
    for (std::size_t j = 0; j < k; ++j)
      if (program[j].partner == static_cast<int>(k)) return j;
    return k;
  };
  for (std::size_t k = 0; k + 1 < program.size(); ++k) {
    std::size_t last = k;
    for (std::size_t j = k + 1; j < program.size(); ++j)
      for (int i = 0; i < program[j].arity; ++i)
        if (!program[j].src[i].leaf && program[j].src[i].index == static_cast<int>(k)) last = j;
    // ... no other value takes its register until its last reader has run.
    for (std::size_t j = 0; j + 1 < program.size(); ++j) {
      if (j == k || program[j].reg != program[k].reg) continue;
      const std::size_t w = written_at(j);
      INFO("values " << k << " and " << j << " share register " << program[k].reg);
      CHECK((w < written_at(k) || w >= last));
    }
  }
}

}  // namespace

TEST_CASE("a chain of fused ops holds two registers") {
  std::vector<FusedOp> program{binary(OpKind::Mul, leaf(0), leaf(1))};
  for (int k = 0; k < 12; ++k)
    program.push_back(binary(k % 2 ? OpKind::Add : OpKind::Mul, value(k), leaf(1)));
  backend::detail::allocate_registers(program);
  check_registers(program);
  std::set<int> used;
  for (const FusedOp& op : program)
    if (op.reg >= 0) used.insert(op.reg);
  CHECK(used == std::set<int>{0, 1});
}

TEST_CASE("a tree of fused ops keeps each value's register until its last reader") {
  // ((a * b) + exp(c)) * (sin(a) - (b * c)): values live side by side.
  std::vector<FusedOp> program{binary(OpKind::Mul, leaf(0), leaf(1)),     // 0
                               unary(OpKind::Exp, leaf(2)),               // 1
                               binary(OpKind::Add, value(0), value(1)),   // 2
                               unary(OpKind::Sin, leaf(0)),               // 3
                               binary(OpKind::Mul, leaf(1), leaf(2)),     // 4
                               binary(OpKind::Sub, value(3), value(4)),   // 5
                               binary(OpKind::Mul, value(2), value(5))};  // 6
  backend::detail::allocate_registers(program);
  check_registers(program);
  CHECK(program[0].reg != program[1].reg);
  CHECK(program[3].reg != program[2].reg);
  CHECK(program[4].reg != program[2].reg);
}

TEST_CASE("a sin and a cos of one source pair up, and the pair's registers are both live") {
  // sin(x) * cos(x) + cos(y) - sin(y + 1)... : x's pair, a lone cos(y) and
  // a sin of another source do not pair.
  std::vector<FusedOp> program{unary(OpKind::Cos, leaf(0)),               // 0
                               binary(OpKind::Add, leaf(1), leaf(2)),     // 1
                               unary(OpKind::Sin, leaf(0)),               // 2: x's pair with 0
                               unary(OpKind::Sin, value(1)),              // 3
                               unary(OpKind::Cos, leaf(1)),               // 4
                               binary(OpKind::Mul, value(2), value(0)),   // 5
                               binary(OpKind::Sub, value(4), value(3)),   // 6
                               binary(OpKind::Add, value(5), value(6))};  // 7
  backend::detail::pair_sin_cos(program);
  CHECK(program[0].partner == 2);
  CHECK(program[2].by_partner);
  CHECK(program[3].partner == -1);
  CHECK_FALSE(program[3].by_partner);
  CHECK(program[4].partner == -1);
  backend::detail::allocate_registers(program);
  check_registers(program);
  CHECK(program[0].reg != program[2].reg);  // written together
}

namespace {

std::function<bool(int)> leaves_except(std::set<int> not_eligible) {
  return [not_eligible](int k) { return !not_eligible.contains(k); };
}

bool same_source(FusedSource a, FusedSource b) {
  return a.leaf == b.leaf && a.index == b.index;
}

}  // namespace

TEST_CASE("a leaf added to a product alone leaves nothing of the epilogue") {
  // P + L, and L + P: the product is leaf 0.
  for (bool product_first : {true, false}) {
    const std::vector<FusedOp> program{product_first ? binary(OpKind::Add, leaf(0), leaf(1))
                                                     : binary(OpKind::Add, leaf(1), leaf(0))};
    const auto added = backend::detail::without_added_leaf(program, 0, leaves_except({}));
    REQUIRE(added);
    CHECK(added->leaf == 1);
    CHECK(added->rest.empty());
  }
}

TEST_CASE("a leaf added to a sum with the product comes out, its readers reading the sum") {
  // tanh(L + (b + P)) * L2 (an LSTM step's input rows, bias, product):
  // b (leaf 1) is not eligible (a broadcast bias), L (leaf 2) is.
  const std::vector<FusedOp> program{binary(OpKind::Add, leaf(1), leaf(0)),    // 0: b + P
                                     binary(OpKind::Add, leaf(2), value(0)),   // 1: L + ...
                                     unary(OpKind::Tanh, value(1)),            // 2
                                     binary(OpKind::Mul, value(2), leaf(3))};  // 3
  const auto added = backend::detail::without_added_leaf(program, 0, leaves_except({1}));
  REQUIRE(added);
  CHECK(added->leaf == 2);
  REQUIRE(added->rest.size() == 3);
  CHECK(added->rest[0].kind == OpKind::Add);
  CHECK(same_source(added->rest[1].src[0], value(0)));  // tanh reads b + (P + L)
  CHECK(added->rest[1].kind == OpKind::Tanh);
  CHECK(same_source(added->rest[2].src[0], value(1)));
  CHECK(same_source(added->rest[2].src[1], leaf(3)));
  check_registers(added->rest);
  // With b eligible, the add next to the product takes it.
  const auto first = backend::detail::without_added_leaf(program, 0, leaves_except({}));
  REQUIRE(first);
  CHECK(first->leaf == 1);
  CHECK(same_source(first->rest[0].src[1], leaf(0)));  // L + P, P holding P + b
}

TEST_CASE("no leaf comes out where the product is not only summed, or is read twice") {
  using backend::detail::without_added_leaf;
  const auto any = leaves_except({});
  // exp(P) + L: the product is not summed.
  CHECK_FALSE(without_added_leaf(
      {unary(OpKind::Exp, leaf(0)), binary(OpKind::Add, value(0), leaf(1))}, 0, any));
  // P * L.
  CHECK_FALSE(without_added_leaf({binary(OpKind::Mul, leaf(0), leaf(1))}, 0, any));
  // (P + L) * P: the product is read twice.
  CHECK_FALSE(without_added_leaf(
      {binary(OpKind::Add, leaf(0), leaf(1)), binary(OpKind::Mul, value(0), leaf(0))}, 0, any));
  // (P + L) * L: L is read twice.
  CHECK_FALSE(without_added_leaf(
      {binary(OpKind::Add, leaf(0), leaf(1)), binary(OpKind::Mul, value(0), leaf(1))}, 0, any));
  // (P + b) read twice, then + L: the sum's other reader would see L too.
  CHECK_FALSE(without_added_leaf(
      {binary(OpKind::Add, leaf(0), leaf(1)), binary(OpKind::Add, value(0), leaf(2)),
       binary(OpKind::Mul, value(1), value(0))},
      0, leaves_except({1})));
  // No eligible leaf.
  CHECK_FALSE(without_added_leaf({binary(OpKind::Add, leaf(0), leaf(1))}, 0, leaves_except({1})));
}
