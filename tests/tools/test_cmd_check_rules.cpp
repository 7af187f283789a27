// `eqsat check-rules` on bad arguments and rules with sizes past any
// machine (one of the reported SIGSEGVs).
#include "run_eqsat.hpp"

#include <catch2/catch.hpp>

using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

TEST_CASE("check-rules: --attempts out of 1..100000 is bad usage") {
  Scratch s;
  s.write("r.rules", "(rewrite add-zero (add ?x 0) ?x)\n");
  for (const char* n : {"-1", "0", "100001", "many"}) {
    const auto r = run_eqsat(s, std::string("check-rules r.rules --attempts ") + n);
    CHECK(r.status == 2);
  }
  CHECK(run_eqsat(s, "check-rules r.rules --attempts 5").status == 0);
}

TEST_CASE("check-rules: a rule with a reshape past 64 bits is checked without a crash") {
  Scratch s;
  s.write("big.rules",
          "(rewrite big (sum (reshape ?x :shape (4611686018427387905 4))) (sum ?x))\n");
  const auto r = run_eqsat(s, "check-rules big.rules --attempts 20");
  CHECK(r.status < 2);
  CHECK_THAT(r.out, Catch::StartsWith("big: "));
}

TEST_CASE("check-rules: a directory or a missing rule file says why") {
  Scratch s;
  std::filesystem::create_directory(s.path("d.rules"));
  const auto r = run_eqsat(s, "check-rules d.rules nope.rules");
  CHECK(r.status == 1);
  CHECK(r.err ==
        "d.rules: error: cannot read file: it is a directory\n"
        "nope.rules: error: cannot read file: No such file or directory\n");
}

TEST_CASE("check-rules: fast-math rules fail by design and do not fail the check") {
  Scratch s;
  s.write("fm.rules",
          "(ruleset fast-math)\n"
          "(rewrite mul-zero-fast (mul ?x 0) (zeros_like ?x) :ruleset fast-math)\n"
          "(rewrite neg-neg (neg (neg ?x)) ?x)\n");
  const auto r = run_eqsat(s, "check-rules fm.rules --attempts 50");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("mul-zero-fast: approximate (fast-math): "));
  CHECK_THAT(r.out, Catch::Contains("neg-neg: sound"));
  CHECK_THAT(r.out, Catch::Contains("1 fast-math rule differ on some inputs, by design"));
  // The same law outside fast-math is an unsound rule: exit 1.
  s.write("bad.rules", "(rewrite mul-zero (mul ?x 0) (zeros_like ?x))\n");
  const auto bad = run_eqsat(s, "check-rules bad.rules --attempts 50");
  CHECK(bad.status == 1);
  CHECK_THAT(bad.out, Catch::StartsWith("mul-zero: unsound: "));
}

TEST_CASE("check-rules: the shipped rule files pass, fast-math included") {
  Scratch s;
  const auto r = run_eqsat(s, "check-rules " EQSAT_SOURCE_DIR "/rules/fast-math.rules");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("differ on some inputs, by design"));
}
