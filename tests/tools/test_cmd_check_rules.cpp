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
