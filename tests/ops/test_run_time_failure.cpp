// Which op applications may fail when the graph runs, from static types and
// constant operands: proven-safe cases are not flagged, and each way an op
// can fail at run time (an index, broadcasting, an empty axis, a loop's
// length, a call's argument) is.
#include "ops/run_time_failure.hpp"

#include <catch2/catch.hpp>

#include <optional>
#include <vector>

using namespace eqsat::ops;

namespace {

constexpr std::int64_t U = kUnknownDim;

TensorType f64(Dims dims) {
  return {DType::F64, std::move(dims)};
}

// may_fail for operands of `types`, constant where `values` says so.
bool fails(OpKind kind, const std::vector<Type>& types,
           const std::vector<std::optional<Array>>& values = {}, const Attrs& attrs = {}) {
  std::vector<const Type*> t;
  std::vector<const Array*> v;
  for (std::size_t i = 0; i < types.size(); ++i) {
    t.push_back(&types[i]);
    v.push_back(i < values.size() && values[i] ? &*values[i] : nullptr);
  }
  return may_fail(kind, attrs, t, v);
}

Array i64(double v) {
  return Array::scalar(DType::I64, v);
}

}  // namespace

TEST_CASE("an index fails unless it is a constant in range of a known length") {
  const std::vector<Type> x3 = {f64({3, 4}), TensorType{DType::I64, {}}};
  CHECK_FALSE(fails(OpKind::Index, x3, {std::nullopt, i64(2)}));
  CHECK_FALSE(fails(OpKind::Index, x3, {std::nullopt, i64(-3)}));
  CHECK(fails(OpKind::Index, x3, {std::nullopt, i64(3)}));
  CHECK(fails(OpKind::Index, x3, {std::nullopt, i64(-4)}));
  CHECK(fails(OpKind::Index, x3));  // a run-time index
  CHECK(fails(OpKind::Index, {f64({U, 4}), TensorType{DType::I64, {}}}, {std::nullopt, i64(0)}));
  // set_index: the value must fit the row too.
  const std::vector<Type> set = {f64({3, 4}), TensorType{DType::I64, {}}, f64({4})};
  CHECK_FALSE(fails(OpKind::SetIndex, set, {std::nullopt, i64(1)}));
  CHECK(fails(OpKind::SetIndex, {f64({3, 4}), TensorType{DType::I64, {}}, f64({U})},
              {std::nullopt, i64(1)}));
}

TEST_CASE("elementwise ops fail only where broadcasting is not proven") {
  CHECK_FALSE(fails(OpKind::Add, {f64({U}), f64({})}));
  CHECK_FALSE(fails(OpKind::Add, {f64({U, 3}), f64({1, 3})}));
  CHECK_FALSE(fails(OpKind::Mul, {f64({2, 3}), f64({3})}));
  CHECK(fails(OpKind::Mul, {f64({U}), f64({3})}));  // 2 elements against 3
  CHECK(fails(OpKind::Mul, {f64({U}), f64({U})}));
  CHECK(fails(OpKind::Where, {TensorType{DType::Bool, {}}, f64({U}), f64({U})}));
  CHECK_FALSE(fails(OpKind::Exp, {f64({U})}));
  // An integer to a negative integer power fails.
  const std::vector<Type> ints = {TensorType{DType::I64, {3}}, TensorType{DType::I64, {}}};
  CHECK_FALSE(fails(OpKind::Pow, ints, {std::nullopt, i64(2)}));
  CHECK(fails(OpKind::Pow, ints, {std::nullopt, i64(-1)}));
  CHECK(fails(OpKind::Pow, ints));
}

TEST_CASE("max and min fail on an axis that may be empty, shapes on unknown lengths") {
  const Attrs axis0{{AttrKey::Axis, IntList{0}}, {AttrKey::Keepdims, false}};
  CHECK_FALSE(fails(OpKind::Max, {f64({3})}, {}, axis0));
  CHECK(fails(OpKind::Max, {f64({U})}, {}, axis0));
  CHECK(fails(OpKind::Min, {f64({0})}, {}, axis0));
  CHECK_FALSE(fails(OpKind::Sum, {f64({U})}, {}, axis0));
  CHECK(fails(OpKind::BroadcastTo, {f64({U})}, {}, Attrs{{AttrKey::Shape, IntList{3}}}));
  CHECK_FALSE(fails(OpKind::BroadcastTo, {f64({1})}, {}, Attrs{{AttrKey::Shape, IntList{2, 3}}}));
  CHECK(fails(OpKind::Dot, {f64({2, U}), f64({3, 4})}));
  CHECK_FALSE(fails(OpKind::Dot, {f64({2, 3}), f64({3, 4})}));
  CHECK(fails(OpKind::Squeeze, {f64({U, 3})}, {}, Attrs{{AttrKey::Axis, IntList{0}}}));
  CHECK(fails(OpKind::ResizeRows, {f64({3}), TensorType{DType::I64, {}}}));
  CHECK_FALSE(
      fails(OpKind::ResizeRows, {f64({3}), TensorType{DType::I64, {}}}, {std::nullopt, i64(5)}));
}

TEST_CASE("a loop fails where its step count may pass its sequences") {
  ScanSpec spec;
  spec.sequence_taps = {{0}};
  spec.num_sitsot = 1;
  spec.has_n_steps = true;
  const Attrs attrs{{AttrKey::Scan, spec}};
  const Type body = TupleType{{f64({})}};
  const Type steps = TensorType{DType::I64, {}};
  const std::vector<Type> six = {body, steps, f64({6}), f64({})};
  CHECK_FALSE(fails(OpKind::Scan, six, {std::nullopt, i64(6)}, attrs));
  CHECK(fails(OpKind::Scan, six, {std::nullopt, i64(10)}, attrs));
  CHECK(fails(OpKind::Scan, six, {}, attrs));  // a run-time count
  CHECK(fails(OpKind::Scan, {body, steps, f64({U}), f64({})}, {std::nullopt, i64(1)}, attrs));
  // Without :n-steps the sequences set the count: nothing to check.
  ScanSpec free = spec;
  free.has_n_steps = false;
  CHECK_FALSE(fails(OpKind::Scan, {body, f64({U}), f64({})}, {}, Attrs{{AttrKey::Scan, free}}));
}
