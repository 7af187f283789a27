// `eqsat run`: output paths checked before any work, output names kept in
// --out, the memory plan against --memory-limit, OS reasons for inputs,
// and sizes past any machine refused without a crash.
#include "run_eqsat.hpp"

#include "ops/npy.hpp"

#include <catch2/catch.hpp>

using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EQSAT_TEST_UNDER_ASAN 1
#endif
#endif

namespace {
const char* kSmall = "(input x (f64 3))\n(output y (exp x))\n";
}

TEST_CASE("run: an --out that cannot be created fails before any work") {
  Scratch s;
  s.write("g.eg", kSmall);
  s.write("afile", "a file, not a directory");
  const auto r = run_eqsat(s, "run g.eg --random 0 --out afile/sub");
  CHECK(r.status == 1);
  CHECK(r.err == "error: --out afile/sub: cannot create directory: Not a directory\n");
  CHECK(r.out.empty());  // nothing was computed
}

TEST_CASE("run: outputs are written in --out - names that would leave it are refused") {
  Scratch s;
  s.write("g.eg", kSmall);
  auto r = run_eqsat(s, "run g.eg --random 0 --out out");
  CHECK(r.status == 0);
  CHECK(std::filesystem::exists(s.path("out/y.npy")));
  // `..` is not a symbol of the language; a `/` in a name is.
  for (const std::string name : {"/tmp/abs", "sub/x", "../escaped"}) {
    s.write("escape.eg", "(input x (f64 3))\n(output " + name + " (exp x))\n");
    r = run_eqsat(s, "run escape.eg --random 0 --out out");
    CHECK(r.status == 1);
    CHECK(r.out.empty());
  }
  CHECK(r.err == "escape.eg:2:9: error: malformed number '../escaped'\n");
  s.write("escape.eg", "(input x (f64 3))\n(output /abs (exp x))\n");
  r = run_eqsat(s, "run escape.eg --random 0 --out out");
  CHECK(r.err ==
        "error: output name '/abs' would be written outside out; give outputs plain file names\n");
  CHECK_FALSE(std::filesystem::exists("/abs.npy"));
  CHECK(std::filesystem::is_empty(s.path("out")) == false);  // y.npy only
  CHECK_FALSE(std::filesystem::exists(s.path("out/sub")));
}

TEST_CASE("run: an --out file may not be an --input file") {
  Scratch s;
  s.write("g.eg", "(input x (f64 3))\n(output x (exp x))\n");
  REQUIRE(run_eqsat(s, "run g.eg --random 0 --out .").status == 0);
  const std::string before = eqsat::testing::read_file(s.path("x.npy"));
  const auto r = run_eqsat(s, "run g.eg --input x=x.npy --out .");
  CHECK(r.status == 1);
  CHECK(r.err == "error: --out ./x.npy: is an --input file; it would be lost\n");
  CHECK(r.out.empty());
  CHECK(eqsat::testing::read_file(s.path("x.npy")) == before);
}

TEST_CASE("run: a missing input file says why") {
  Scratch s;
  s.write("g.eg", kSmall);
  const auto r = run_eqsat(s, "run g.eg --input x=nope.npy");
  CHECK(r.status == 1);
  CHECK(r.err == "nope.npy: error: cannot read file: No such file or directory\n");
}

TEST_CASE("run: the sizes of the reported SIGSEGVs are located errors") {
  Scratch s;
  // An input of 2^61 f64: its bytes overflow 64 bits.
  s.write("input.eg", "(input x (f64 2305843009213693952))\n(output (exp x))\n");
  auto r = run_eqsat(s, "run input.eg --random 0");
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::StartsWith("input.eg:1:"));
  CHECK_THAT(r.err, Catch::Contains("(f64 2305843009213693952) is too large"));
  // A reshape whose product overflows, then index.
  s.write("reshape.eg",
          "(input x (f64 ?))\n(let r (reshape x :shape (4611686018427387905 4)))\n"
          "(output (index r 0))\n");
  r = run_eqsat(s, "run reshape.eg --random 0");
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::StartsWith("reshape.eg:2:"));
  // A .npy header declaring (2**62+1, 4).
  std::string dict =
      "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387905, 4), }";
  dict.append(128 - 10 - dict.size() - 1, ' ').push_back('\n');
  std::string npy("\x93NUMPY\x01\x00", 8);  // magic, version 1.0
  npy.push_back(static_cast<char>(dict.size()));
  npy.push_back('\0');
  s.write("big.npy", npy + dict);
  s.write("g.eg", "(input x (f64 ? 4))\n(output (sum x))\n");
  r = run_eqsat(s, "run g.eg --input x=big.npy");
  CHECK(r.status == 1);
  CHECK(r.err ==
        "big.npy: error: .npy shape (f64 4611686018427387905 4) is too large: its size in bytes "
        "does not fit in 64 bits\n");
}

TEST_CASE("run: a seed out of 0..2^64-1 or an input given twice is bad usage") {
  Scratch s;
  s.write("g.eg", kSmall);
  for (const std::string seed : {"-1", "18446744073709551616", "1e23", "1.5", "x"}) {
    INFO(seed);
    const auto r = run_eqsat(s, "run g.eg --random " + seed);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
  }
  CHECK(run_eqsat(s, "run g.eg --random 18446744073709551615").status == 0);
  eqsat::ops::write_npy(s.path("a.npy"), eqsat::ops::Array::filled(eqsat::ops::DType::F64, {3}, 1));
  eqsat::ops::write_npy(s.path("b.npy"), eqsat::ops::Array::filled(eqsat::ops::DType::F64, {3}, 2));
  for (const std::string command : {"run", "profile --repeat 1"}) {
    const auto r = run_eqsat(s, command + " g.eg --input x=a.npy --input x=b.npy");
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("x=b.npy gives input x a second value (first: --input "
                                      "x=a.npy)"));
    CHECK(r.out.empty());
  }
}

TEST_CASE("run: --memory-limit holds for sizes only known at run time") {
  Scratch s;
  s.write("g.eg", "(input n i64)\n(output (mul (arange n) 2))\n");
  eqsat::ops::write_npy(s.path("n.npy"), eqsat::ops::Array::scalar(eqsat::ops::DType::I64, 1e6));
  for (const std::string command : {"run", "profile --repeat 1"}) {
    INFO(command);
    // The plan cannot see arange's length: 8 MB appear only at run time.
    auto r = run_eqsat(s, command + " g.eg --input n=n.npy --memory-limit 1M --no-opt");
    CHECK(r.status == 1);
    CHECK(r.err ==
          "g.eg:2:14: error: out of memory: a value of 8000000 bytes would bring the run's "
          "values to 8000000 bytes, past the memory limit of 1048576 bytes; raise "
          "--memory-limit\n");
    r = run_eqsat(s, command + " g.eg --input n=n.npy --memory-limit 100M --no-opt");
    CHECK(r.status == 0);
  }
}

TEST_CASE("run: EQSAT_NUM_THREADS past any machine is capped - the run completes") {
  Scratch s;
  s.write("g.eg",
          "(input x (f64 200000)) (input a (f64 300 300))\n"
          "(output (sum (exp x)))\n(output (sum (dot a a)))\n");
  const auto one = run_eqsat(s, "run g.eg --random 3");
  REQUIRE(one.status == 0);
  for (const std::string n : {"100000", "99999999999999999999", "-4", "lots"}) {
    INFO(n);
    const auto r = run_eqsat(s, "run g.eg --random 3", "EQSAT_NUM_THREADS=" + n);
    CHECK(r.status == 0);
    CHECK(r.out == one.out);
  }
  // Under an address-space limit: threads and OpenBLAS buffers that do not
  // fit are done without (this hung at exit). A sanitizer's shadow memory
  // needs more address space than any such limit leaves.
#if !defined(__SANITIZE_ADDRESS__) && !defined(EQSAT_TEST_UNDER_ASAN)
  for (const std::string n : {"8", "64"}) {
    INFO(n);
    const auto r = run_eqsat(s, "run g.eg --random 3",
                             "ulimit -v 600000; EQSAT_NUM_THREADS=" + n + " timeout 60");
    CHECK(r.status == 0);
    CHECK(r.out == one.out);
  }
#endif
}
