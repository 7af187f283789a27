// The cost model's view of fused elementwise chains (backend/cost_model.hpp):
// an op the executor runs inside a one-pass group pays its flops and the
// memory it really moves; pow and where have weights of their own.
#include "backend/cost_model.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using backend::CostModel;
using ops::DType;
using ops::OpKind;

namespace {
ops::Type vec(std::int64_t n, DType d = DType::F64) {
  return ops::TensorType{d, {n}};
}
}  // namespace

TEST_CASE("cost model: which ops run inside a fused group") {
  const CostModel m;
  const auto fuses = [&](OpKind kind, const ops::Type& t) {
    const std::vector<ops::Type> operands(ops::op_info(kind).min_arity, t);
    return m.fused_role(kind, {}, operands, t).has_value();
  };
  CHECK(fuses(OpKind::Mul, vec(1000)));
  CHECK(fuses(OpKind::Pow, vec(ops::kUnknownDim)));  // counts unknown_dim = 64 elements
  CHECK_FALSE(fuses(OpKind::Mul, vec(8)));           // short rows run op by op
  CHECK_FALSE(fuses(OpKind::Exp, vec(1000, DType::I64)));
  CHECK(fuses(OpKind::Square, vec(1000, DType::I64)));
  CHECK(fuses(OpKind::Logaddexp, vec(1000)));   // its exp and log1p a block at a time
  CHECK_FALSE(fuses(OpKind::Cast, vec(1000)));  // NoFuse in the catalogue
  // Comparisons compute in their operands' dtype, `where` in its branches'.
  const ops::Type v = vec(1000), b = vec(1000, DType::Bool);
  const ops::Type pair[] = {v, v}, select[] = {b, v, v};
  const auto lt = m.fused_role(OpKind::Lt, {}, pair, b);
  REQUIRE(lt);
  CHECK(lt->compute == DType::F64);
  const auto where = m.fused_role(OpKind::Where, {}, select, v);
  REQUIRE(where);
  CHECK_FALSE(where->reduction);
  // A where reads its condition's booleans and its branches from registers.
  CHECK(CostModel::reads_fused(*where, 0, b, v));
  CHECK(CostModel::reads_fused(*where, 1, v, v));
  CHECK_FALSE(CostModel::reads_fused(*where, 1, vec(1), v));  // broadcast: read from memory
  // A float reduction over trailing axes absorbs its operand's group; over
  // a leading axis it does not.
  const ops::Type mat = ops::TensorType{DType::F64, {100, 100}};
  const ops::Type rows[] = {mat};
  const auto last = m.fused_role(OpKind::Sum, {{ops::AttrKey::Axis, ops::IntList{1}}}, rows, v);
  REQUIRE(last);
  CHECK(last->reduction);
  CHECK(CostModel::reads_fused(*last, 0, mat, vec(100)));
  CHECK_FALSE(m.fused_role(OpKind::Sum, {{ops::AttrKey::Axis, ops::IntList{0}}}, rows, vec(100)));
  CHECK_FALSE(
      m.fused_role(OpKind::Logsumexp, {{ops::AttrKey::Axis, ops::IntList{1}}}, rows, vec(100)));
}

TEST_CASE("cost model: a fused op pays only the memory it moves") {
  const CostModel m;
  const auto& w = m.weights();
  const ops::Type v = vec(1000);
  const ops::Type two[] = {v, v};
  const double alone = m.op_cost(OpKind::Mul, two, v);
  // Unfused: one call, two operands read, the result written, the flops.
  CHECK(alone == Approx(w.call_overhead_ns + w.ns_per_byte * 3 * 8000 + 1000 * w.ns_per_flop));
  // Both operands in registers, the result not written: the flops alone.
  CHECK(m.fused_op_cost(OpKind::Mul, two, v, 0b11, false) == Approx(1000 * w.ns_per_flop));
  // The group's last op writes its result and pays the group's call.
  CHECK(m.fused_op_cost(OpKind::Mul, two, v, 0b01, true) ==
        Approx(w.call_overhead_ns + w.ns_per_byte * 2 * 8000 + 1000 * w.ns_per_flop));
  CHECK(m.fused_op_cost(OpKind::Mul, two, v, 0b00, true) == Approx(alone));
}

TEST_CASE("cost model: pow and where have their own measured weights") {
  const CostModel m;
  const auto& w = m.weights();
  const ops::Type v = vec(1000);
  const ops::Type two[] = {v, v};
  const ops::Type one[] = {v};
  const double pow = m.op_cost(OpKind::Pow, two, v);
  const double exp = m.op_cost(OpKind::Exp, one, v);
  CHECK(pow - exp ==
        Approx(w.ns_per_byte * 8000 + 1000 * (w.ns_per_pow - w.ns_per_transcendental)));
  // where: a call, its operands and result, and ns_per_select an element.
  const ops::Type select[] = {vec(1000, DType::Bool), v, v};
  CHECK(m.op_cost(OpKind::Where, select, v) ==
        Approx(w.call_overhead_ns + w.ns_per_byte * (1000 + 3 * 8000) + 1000 * w.ns_per_select));
  // zeros_like reads only its operand's shape: it pays what it writes.
  CHECK(m.op_cost(OpKind::ZerosLike, one, vec(1000, DType::Bool)) ==
        Approx(w.call_overhead_ns + w.ns_per_byte * 1000));
  // x¹⁶ as four fused squarings (x read once, the last result written)
  // costs less than pow(x, 16) on its own.
  const double squarings = m.fused_op_cost(OpKind::Square, one, v, 0, false) +
                           2 * m.fused_op_cost(OpKind::Square, one, v, 1, false) +
                           m.fused_op_cost(OpKind::Square, one, v, 1, true);
  const ops::Type operands[] = {v, ops::TensorType{DType::F64, {}}};
  CHECK(squarings < m.fused_op_cost(OpKind::Pow, operands, v, 0, true));
}

TEST_CASE("cost model: broadcast_like reads only the shape of its second operand") {
  const CostModel m;
  const ops::Type x = ops::TensorType{DType::F64, {}}, y = vec(1000), y32 = vec(1000, DType::F32);
  const ops::Type like[] = {x, y}, like32[] = {x, y32}, to[] = {x};
  const double cost = m.op_cost(OpKind::BroadcastLike, like, y);
  // As much as broadcast_to of the same result: y's 8000 bytes are not read.
  CHECK(cost == m.op_cost(OpKind::BroadcastTo, to, y));
  // y's dtype (its element size) does not matter either.
  CHECK(cost == m.op_cost(OpKind::BroadcastLike, like32, y));
  // x is read whole: a wider x costs its bytes.
  const ops::Type wide[] = {y, y32}, wide_to[] = {y};
  CHECK(m.op_cost(OpKind::BroadcastLike, wide, y) == m.op_cost(OpKind::BroadcastTo, wide_to, y));
  CHECK(m.op_cost(OpKind::BroadcastLike, wide, y) > cost);
}
