// The cost model's view of fused elementwise chains (backend/cost_model.hpp):
// an op the executor runs inside a one-pass group pays its flops and the
// memory it really moves, and pow costs more than one transcendental.
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
  CHECK(m.fuses(OpKind::Mul, vec(1000)));
  CHECK(m.fuses(OpKind::Pow, vec(ops::kUnknownDim)));  // counts unknown_dim = 64 elements
  CHECK_FALSE(m.fuses(OpKind::Mul, vec(8)));           // short rows run op by op
  CHECK_FALSE(m.fuses(OpKind::Exp, vec(1000, DType::I64)));
  CHECK(m.fuses(OpKind::Square, vec(1000, DType::I64)));
  CHECK_FALSE(m.fuses(OpKind::Sum, vec(1000)));
  CHECK_FALSE(m.fuses(OpKind::Logaddexp, vec(1000)));  // NoFuse in the catalogue
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

TEST_CASE("cost model: pow costs two transcendentals and a flop") {
  const CostModel m;
  const auto& w = m.weights();
  const ops::Type v = vec(1000);
  const ops::Type two[] = {v, v};
  const ops::Type one[] = {v};
  const double pow = m.op_cost(OpKind::Pow, two, v);
  const double exp = m.op_cost(OpKind::Exp, one, v);
  CHECK(pow - exp ==
        Approx(w.ns_per_byte * 8000 + 1000 * (w.ns_per_transcendental + w.ns_per_flop)));
  // x¹⁶ as four fused squarings (x read once, the last result written)
  // costs less than pow(x, 16) on its own.
  const double squarings = m.fused_op_cost(OpKind::Square, one, v, 0, false) +
                           2 * m.fused_op_cost(OpKind::Square, one, v, 1, false) +
                           m.fused_op_cost(OpKind::Square, one, v, 1, true);
  const ops::Type operands[] = {v, ops::TensorType{DType::F64, {}}};
  CHECK(squarings < m.fused_op_cost(OpKind::Pow, operands, v, 0, true));
}
