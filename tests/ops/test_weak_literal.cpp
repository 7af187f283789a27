// Weak literals: the dtype a literal takes from the operands it meets, and
// the typed constant it becomes.
#include "ops/weak_literal.hpp"

#include <catch2/catch.hpp>

using namespace eqsat::ops;

namespace {
TermRef input(DType d) {
  return Term::input("w", {d, {3}});
}
const PendingOperand kInt{nullptr, false};
const PendingOperand kFloat{nullptr, true};
}  // namespace

TEST_CASE("a literal meeting a strong operand: promote(strong, weak)") {
  for (DType d : {DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64}) {
    const PendingOperand x{input(d), false};
    const std::vector<PendingOperand> int_lit{x, kInt}, float_lit{kFloat, x};
    INFO(dtype_name(d));
    CHECK(weak_literal_dtype(OpKind::Add, {}, int_lit, 1) == (d == DType::Bool ? DType::I64 : d));
    CHECK(weak_literal_dtype(OpKind::Mul, {}, float_lit, 0) == (is_float(d) ? d : DType::F64));
  }
}

TEST_CASE("literals meeting only literals, and positions that meet nothing") {
  const std::vector<PendingOperand> two_ints{kInt, kInt}, mixed{kInt, kFloat};
  CHECK(weak_literal_dtype(OpKind::Add, {}, two_ints, 0) == DType::I64);
  CHECK(weak_literal_dtype(OpKind::Add, {}, mixed, 0) == DType::F64);
  // An index meets nothing: it keeps its default dtype.
  const std::vector<PendingOperand> index{{input(DType::F32), false}, kInt};
  CHECK(weak_literal_dtype(OpKind::Index, {}, index, 1) == DType::I64);
  // The condition of where does not promote the values.
  const std::vector<PendingOperand> where{
      {input(DType::Bool), false}, kInt, {input(DType::F32), false}};
  CHECK(weak_literal_dtype(OpKind::Where, {}, where, 1) == DType::F32);
  // set_index: the value meets the target, the index meets nothing.
  const std::vector<PendingOperand> set{{input(DType::F32), false}, kInt, kInt};
  CHECK(weak_literal_dtype(OpKind::SetIndex, {}, set, 1) == DType::I64);
  CHECK(weak_literal_dtype(OpKind::SetIndex, {}, set, 2) == DType::F32);
}

TEST_CASE("dot concat and stack promote their operands - set_slice its target and value") {
  const PendingOperand f32{input(DType::F32), false};
  for (OpKind k : {OpKind::Dot, OpKind::Concat, OpKind::Stack, OpKind::SetSlice}) {
    INFO(op_name(k));
    const std::vector<PendingOperand> ops{f32, kInt};
    CHECK(weak_literal_dtype(k, {}, ops, 1) == DType::F32);
  }
  // Reductions, shape ops and indices meet no other operand.
  const std::vector<PendingOperand> resize{f32, kInt};
  CHECK(weak_literal_dtype(OpKind::ResizeRows, {}, resize, 1) == DType::I64);
}

TEST_CASE("call arguments take the parameter's dtype - full takes :dtype") {
  const TensorType p{DType::F32, {}};
  const TermRef fn = Term::fn({p}, {Term::nominal(0, p)});
  const std::vector<PendingOperand> call{{fn, false}, kInt};
  CHECK(weak_literal_dtype(OpKind::Call, {}, call, 1) == DType::F32);
  const std::vector<PendingOperand> full{kInt};
  CHECK(weak_literal_dtype(OpKind::Full, {{AttrKey::Dtype, DType::F32}}, full, 0) == DType::F32);
  CHECK(weak_literal_dtype(OpKind::Full, {}, full, 0) == DType::I64);
}

TEST_CASE("a literal becomes the scalar constant of its dtype") {
  CHECK(WeakLiteral{false, 3, 3.0}.to_term(DType::F32) == Term::scalar(DType::F32, 3));
  CHECK(WeakLiteral{true, 0, 0.5}.to_term(DType::F64) == Term::scalar(DType::F64, 0.5));
  // Integers beyond 2^53 keep every digit.
  const std::int64_t big = (std::int64_t{1} << 53) + 1;
  const TermRef t = WeakLiteral{false, big, 0}.to_term(DType::I64);
  CHECK(t->const_value()->data<std::int64_t>()[0] == big);
}
