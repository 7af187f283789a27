// .npy reading and writing: files written by NumPy, round trips of every
// dtype, and a located error for each unsupported or broken file.
#include "ops/npy.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
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
  CHECK_THROWS_WITH(
      read_npy(data("truncated.npy")),
      message("truncated.npy",
              fmt::format("truncated .npy data: the header declares 48 bytes, the file holds {}",
                          std::filesystem::file_size(data("truncated.npy")) - 128)));
  CHECK_THROWS_WITH(read_npy(data("missing.npy")),
                    message("missing.npy", "cannot read file: No such file or directory"));
  CHECK_THROWS_WITH(read_npy(EQSAT_TESTS_DIR),
                    std::string(EQSAT_TESTS_DIR) + ": error: cannot read file: it is a directory");
  CHECK_THROWS_WITH(
      read_npy(std::string(EQSAT_TESTS_DIR) + "/test_npy.cpp"),
      std::string(EQSAT_TESTS_DIR) + "/test_npy.cpp: error: not a .npy file (bad magic string)");
}

namespace {
// A version 1.0 file whose header declares `shape` (as NumPy writes it)
// followed by `data_bytes` zero bytes.
std::string npy_with_shape(const std::string& name, const std::string& shape,
                           std::size_t data_bytes = 0) {
  std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }";
  dict.append((10 + dict.size() + 1 + 63) / 64 * 64 - 10 - dict.size() - 1, ' ').push_back('\n');
  const std::string path = temp_file(name);
  std::ofstream out(path, std::ios::binary);
  out << "\x93NUMPY" << '\x01' << '\x00' << static_cast<char>(dict.size() & 0xff)
      << static_cast<char>(dict.size() >> 8) << dict << std::string(data_bytes, '\0');
  return path;
}
}  // namespace

TEST_CASE("shapes whose size overflows are refused at the header before any allocation") {
  // A dimension past int64 used to escape as `internal error: stoll`.
  const std::string too_long = npy_with_shape("dim_2_63.npy", "(9223372036854775808,)");
  CHECK_THROWS_WITH(read_npy(too_long),
                    too_long +
                        ": error: .npy shape dimension 9223372036854775808 does not fit "
                        "in 64 bits");
  // (2**62+1, 4) float64: the byte count overflows; it used to crash.
  const std::string overflow = npy_with_shape("overflow.npy", "(4611686018427387905, 4)");
  CHECK_THROWS_WITH(read_npy(overflow),
                    overflow +
                        ": error: .npy shape (f64 4611686018427387905 4) is too large: its "
                        "size in bytes does not fit in 64 bits");
  CHECK_THROWS_WITH(read_npy_type(overflow), Catch::Contains("does not fit in 64 bits"));
  // Representable but far more than the file holds: refused by size, not
  // by running out of memory.
  const std::string huge = npy_with_shape("huge.npy", "(1099511627776,)", 16);
  CHECK_THROWS_WITH(read_npy(huge), huge +
                                        ": error: truncated .npy data: the header declares "
                                        "8796093022208 bytes, the file holds 16");
  CHECK(read_npy_type(huge) == TensorType{DType::F64, {1099511627776}});
  // A zero-length dimension makes an empty array whatever the others say.
  const std::string empty = npy_with_shape("empty.npy", "(0, 4611686018427387905)");
  CHECK(read_npy(empty).size() == 0);
}

TEST_CASE("writing is atomic: a failed write leaves nothing - a good one replaces the file") {
  const Array a = Array::filled(DType::F64, {3}, 1.5);
  const std::string missing_dir = temp_file("no_such_dir") + "/out.npy";
  CHECK_THROWS_WITH(write_npy(missing_dir, a),
                    missing_dir + ": error: cannot write file: No such file or directory");
  const std::string path = temp_file("atomic.npy");
  write_npy(path, Array::filled(DType::I32, {1000}, 7));
  write_npy(path, a);
  CHECK(read_npy(path).same_value(a));
  // No temporary file is left next to it.
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
    CHECK(entry.path().filename().string().find(".eqsat_test_npy_atomic.npy.tmp") ==
          std::string::npos);
}
