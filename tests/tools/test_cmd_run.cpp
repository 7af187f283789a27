// `eqsat run`: output paths checked before any work, output names kept in
// --out, the memory plan against --memory-limit, OS reasons for inputs,
// and sizes past any machine refused without a crash.
#include "run_eqsat.hpp"

#include "ops/array.hpp"
#include "ops/npy.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <utility>
#include <vector>

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

TEST_CASE("run --validate: a sound run passes - the --input values are kept in every set") {
  Scratch s;
  s.write("c.eg", "(output x (const (f64 3) (1 2 3)))\n");
  REQUIRE(run_eqsat(s, "run c.eg --out .").status == 0);
  s.write("g.eg", "(input x (f64 3))\n(input y (f64 ?))\n(output z (log (exp (add x (sum y)))))\n");
  const auto r = run_eqsat(s, "run g.eg --input x=x.npy --random 0 --validate 4");
  CHECK(r.status == 0);
  CHECK_THAT(r.err, Catch::StartsWith("--validate: the written and the optimized graph agree on 4 "
                                      "input sets"));
  CHECK_THAT(r.out, Catch::StartsWith("z: (f64 3)"));
}

TEST_CASE("run --validate: a difference exits 1 before running, naming the output and the rule") {
  Scratch s;
  s.write("g.eg", kSmall);
  s.write("wrong.rules", "(rewrite exp-wrong (exp ?x) (add ?x 1.0))\n");
  auto r = run_eqsat(s, "run g.eg --random 0 --rules wrong.rules --trust-rules --validate --out o");
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::StartsWith("g.eg: error: --validate: output y differs on input set 1"));
  CHECK_THAT(r.err, Catch::Contains("exp-wrong"));
  CHECK(r.out.empty());
  CHECK_FALSE(std::filesystem::exists(s.path("o/y.npy")));
  r = run_eqsat(s, "run g.eg --random 0 --no-opt --validate");
  CHECK(r.status == 2);  // nothing to validate
}

namespace {

// Writes a 1-D f64 array as NAME.npy in `s`; returns its path.
std::string write_vector(const Scratch& s, const std::string& name, std::vector<double> v) {
  eqsat::ops::Array a(eqsat::ops::DType::F64, {static_cast<std::int64_t>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) a.data<double>()[i] = v[i];
  eqsat::ops::write_npy(s.path(name + ".npy"), a);
  return s.path(name + ".npy");
}

// The values of output `name` after `eqsat run ARGS --out out`.
std::vector<double> run_output(const Scratch& s, const std::string& args, const std::string& name) {
  const auto r = run_eqsat(s, args + " --out out");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const eqsat::ops::Array a = eqsat::ops::read_npy(s.path("out/" + name + ".npy"));
  std::vector<double> v;
  for (std::int64_t i = 0; i < a.size(); ++i) v.push_back(a.element(i));
  return v;
}

}  // namespace

TEST_CASE("run: an output whose written computation fails fails optimized too, where written") {
  // Issue 25 point 8: the check is kept (no dim through an index out of
  // range, no length folded from a loop that cannot run, no history read
  // where there is none); the message keeps its FILE:LINE:COL.
  Scratch s;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"(input x (f64 3 4))\n(output (dim (index x 5) :axis 0))\n", "index.eg:2:"},
      {"(input xs (f64 6))\n(input h0 f64)\n"
       "(let s (scan :n-steps 10 :sequences (xs) :sit-sot (h0) (fn (x h) (add x h))))\n"
       "(output (dim (get 0 s) :axis 0))\n",
       "steps.eg:3:"},
      {"(input h0 f64)\n(let s (scan :n-steps 0 :sit-sot (h0) (fn (h) (mul h 2.0))))\n"
       "(output (index (get 0 s) -1))\n",
       "empty.eg:3:"}};
  for (const auto& [text, where] : cases) {
    const std::string file = where.substr(0, where.find(':'));
    s.write(file, text);
    for (const std::string flags : {"", " --no-opt"}) {
      const auto r = run_eqsat(s, "run " + file + " --random 0" + flags);
      INFO(file << flags << ": " << r.out << r.err);
      CHECK(r.status == 1);
      CHECK_THAT(r.err, Catch::StartsWith(where));
    }
  }
}

TEST_CASE("run: shapes known only at run time are not decided while optimizing") {
  // Issue 25 point 6.
  Scratch s;
  // A gradient to an input of 1 element broadcast against 3.
  s.write("grad.eg", "(input x (f64 ?))\n(input y (f64 3))\n(output g (grad (sum (mul x y)) x))\n");
  write_vector(s, "x", {5});
  write_vector(s, "y", {1, 2, 3});
  CHECK(run_output(s, "run grad.eg --input x=x.npy --input y=y.npy", "g") ==
        std::vector<double>{6});
  // Through broadcast_to.
  s.write("bgrad.eg",
          "(input x (f64 ?))\n(output g (grad (sum (mul (broadcast_to x :shape (3)) "
          "(arange 3 :dtype f64))) x))\n");
  CHECK(run_output(s, "run bgrad.eg --input x=x.npy", "g") == std::vector<double>{3});
  // where(false, a, b) broadcasts a of 2 elements against b of 1.
  s.write("where.eg", "(input a (f64 ?))\n(input b (f64 ?))\n(output w (where false a b))\n");
  write_vector(s, "a", {1, 2});
  write_vector(s, "b", {7});
  for (const std::string flags : {"", " --no-opt"})
    CHECK(run_output(s, "run where.eg --input a=a.npy --input b=b.npy" + flags, "w") ==
          std::vector<double>{7, 7});
  // A def's parameter of 1 row called with 8: an error where the call is.
  s.write("call.eg",
          "(input y (f64 ? 4))\n(def f (fn ((p (f64 1 4))) (dim p :axis 0)))\n"
          "(output (call f y))\n");
  for (const std::string flags : {"", " --no-opt"}) {
    const auto r = run_eqsat(s, "run call.eg --random 0" + flags);
    INFO(r.out << r.err);
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::StartsWith("call.eg:3:") && Catch::Contains("argument 1"));
  }
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

TEST_CASE(
    "run and profile: saturation past --memory-limit is out of memory - with the e-graph's size") {
  Scratch s;
  s.write("g.eg", "(input x (f64 3))\n(output y (add (mul x 1.0) 0))\n");
  // Any process holds more than 1 MiB: the first iteration passes it.
  for (const auto& [command, output] :
       {std::pair<std::string, std::string>{"run --out out", "out/y.npy"},
        {"profile --repeat 1 --json p.json", "p.json"}}) {
    INFO(command);
    auto r = run_eqsat(s, command + " g.eg --random 0 --memory-limit 1M");
    CHECK(r.status == 1);
    CHECK(r.out.empty());
    const std::regex message(
        "g\\.eg: error: out of memory: saturation holds [0-9.]+ MiB \\([0-9]+ bytes\\), more "
        "than the --memory-limit of 1\\.0 MiB \\(1048576 bytes\\), at ([0-9]+) e-nodes and "
        "[0-9]+ e-classes \\(step 1 iteration 1\\); run it with --no-opt \\(or `eqsat optimize "
        "--node-limit` below ([0-9]+) first\\), or raise --memory-limit\n");
    std::smatch m;
    REQUIRE(std::regex_match(r.err, m, message));
    CHECK(m[1] == m[2]);
    CHECK_FALSE(std::filesystem::exists(s.path(output)));
    r = run_eqsat(s, command + " g.eg --random 0 --memory-limit 64G");
    CHECK(r.status == 0);
    CHECK(r.err.empty());
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

TEST_CASE("run: a SLEEF library that cannot be opened is a located error and no crash") {
  Scratch s;
  // The backend opens SLEEF on the first routine it needs (erf: at every
  // vector level), by its soname: a broken file first on the search path.
  s.write("libsleef.so.3", "not a shared object");
  s.write("g.eg", "(input x (f64 8))\n(output y (erf x))\n");
  const auto r =
      run_eqsat(s, "run g.eg --random 1 --no-opt", "LD_LIBRARY_PATH=" + s.dir().string());
  CHECK(r.status == 1);
  CHECK(r.err.find("g.eg:2:") != std::string::npos);
  CHECK(r.err.find("the vector math library libsleef.so.3 (SLEEF) could not be opened") !=
        std::string::npos);
  CHECK(r.out.empty());
}
