// .npy reading and writing: files written by NumPy, round trips of every
// dtype, and a located error for each unsupported or broken file.
#include "ops/npy.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <random>

using namespace eqsat::ops;

namespace {
std::string data(const std::string& name) {
  return std::string(EQSAT_TESTS_DIR) + "/data/" + name;
}

std::string temp_file(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("eqsat_test_npy_" + name)).string();
}
}  // namespace

TEST_CASE("files written by NumPy are read with their dtype, shape and values") {
  const Array m = read_npy(data("f64_2x3.npy"));
  CHECK(m.type() == TensorType{DType::F64, {2, 3}});
  for (int i = 0; i < 6; ++i) CHECK(m.element(i) == i / 4.0);

  const Array v = read_npy(data("i32_3.npy"));
  CHECK(v.type() == TensorType{DType::I32, {3}});
  CHECK(v.data<std::int32_t>()[0] == -1);
  CHECK(v.data<std::int32_t>()[2] == 2147483647);

  const Array b = read_npy(data("bool_scalar.npy"));
  CHECK(b.type() == TensorType{DType::Bool, {}});
  CHECK(b.data<bool>()[0]);

  const Array w = read_npy(data("i64_v2.npy"));  // format version 2.0
  CHECK(w.type() == TensorType{DType::I64, {2, 2}});
  CHECK(w.element(3) == 4);
  CHECK(read_npy_type(data("i64_v2.npy")) == w.type());
}

TEST_CASE("every dtype and rank survives a write and read") {
  std::mt19937 rng(7);
  const std::vector<Dims> shapes = {{}, {0}, {1}, {7}, {3, 0}, {2, 3, 4}};
  for (DType d : {DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64}) {
    for (const Dims& shape : shapes) {
      Array a(d, shape);
      visit_dtype(d, [&]<class T>(std::type_identity<T>) {
        for (auto& x : a.span<T>()) x = static_cast<T>(rng() % 100) - static_cast<T>(rng() % 2);
      });
      const std::string path = temp_file("roundtrip.npy");
      write_npy(path, a);
      const Array back = read_npy(path);
      CHECK(back.same_value(a));
      std::filesystem::remove(path);
    }
  }
}

TEST_CASE("unsupported and broken files are errors naming the file") {
  const auto message = [](const std::string& name, const std::string& text) {
    return data(name) + ": error: " + text;
  };
  CHECK_THROWS_WITH(
      read_npy(data("f32_fortran.npy")),
      message("f32_fortran.npy", "Fortran-ordered .npy files are not supported; save in C order"));
  CHECK_THROWS_WITH(read_npy(data("f64_big_endian.npy")),
                    message("f64_big_endian.npy", "unsupported .npy dtype '>f8'"));
  CHECK_THROWS_WITH(read_npy(data("u8_unsupported.npy")),
                    message("u8_unsupported.npy", "unsupported .npy dtype '|u1'"));
  CHECK_THROWS_WITH(read_npy(data("truncated.npy")),
                    message("truncated.npy", "truncated .npy data: expected 48 bytes"));
  CHECK_THROWS_WITH(read_npy(data("missing.npy")), message("missing.npy", "cannot read file"));
  CHECK_THROWS_WITH(
      read_npy(std::string(EQSAT_TESTS_DIR) + "/test_npy.cpp"),
      std::string(EQSAT_TESTS_DIR) + "/test_npy.cpp: error: not a .npy file (bad magic string)");
}
