// The passes over a fused group's program (backend/kernel_groups.hpp):
// pair_sin_cos, which lets a sin and a cos of one source share a call, and
// allocate_registers, which reuses a register once its value is dead.
#include "backend/kernel_groups.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
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
