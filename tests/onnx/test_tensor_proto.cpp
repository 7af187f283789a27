// ONNX tensors and our arrays (onnx/tensor_proto.cpp).
#include "onnx/import_error.hpp"
#include "onnx/tensor_proto.hpp"

#include <catch2/catch.hpp>

namespace eo = eqsat::onnx;
namespace ops = eqsat::ops;

TEST_CASE("tensor proto: every dtype round-trips through raw data") {
  for (auto d :
       {ops::DType::Bool, ops::DType::I32, ops::DType::I64, ops::DType::F32, ops::DType::F64}) {
    ops::Array a(d, {2, 3});
    ops::visit_dtype(d, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (std::int64_t i = 0; i < a.size(); ++i)
        a.data<T>()[i] = static_cast<T>(i % 2 == 0 ? i : -i);
    });
    const ops::Array b = eo::read_tensor(eo::write_tensor(a, "t"));
    CHECK(b.same_value(a));
  }
}

TEST_CASE("tensor proto: typed fields are read, other dtypes and bad sizes refused") {
  eo::pb::TensorProto t;
  t.set_data_type(eo::pb::TensorProto::FLOAT);
  t.add_dims(2);
  t.add_float_data(1.5f);
  t.add_float_data(-2.0f);
  const ops::Array a = eo::read_tensor(t);
  CHECK(a.element(0) == 1.5);
  CHECK(a.element(1) == -2.0);
  t.add_float_data(3.0f);
  CHECK_THROWS_WITH(eo::read_tensor(t), "tensor '' holds 3 values for 2 elements");
  t.set_data_type(eo::pb::TensorProto::FLOAT16);
  CHECK_THROWS_WITH(eo::read_tensor(t),
                    "the dtype float16 (eqsat has bool, int32, int64, float, double)");
}
