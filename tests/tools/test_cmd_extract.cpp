// `eqsat extract`: the JSON file is read as graphs are - the OS reason, a
// directory refused, a size limit - and a readable file is extracted.
#include "run_eqsat.hpp"

#include <catch2/catch.hpp>

using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

TEST_CASE("extract: a missing file or a directory or /dev/zero is an error with the reason") {
  Scratch s;
  auto r = run_eqsat(s, "extract nope.json");
  CHECK(r.status == 1);
  CHECK(r.err == "nope.json: error: cannot read file: No such file or directory\n");
  r = run_eqsat(s, "extract .");
  CHECK(r.status == 1);
  CHECK(r.err == ".: error: cannot read file: it is a directory\n");
  r = run_eqsat(s, "extract /dev/zero");
  CHECK(r.status == 1);
  CHECK(r.err ==
        "/dev/zero: error: cannot read file: larger than the limit of 268435456 bytes for a source "
        "file\n");
  CHECK(r.out.empty());
}

TEST_CASE("extract: a readable file is extracted") {
  Scratch s;
  s.write("e.json", R"({"nodes": {"n0": {"op": "x", "children": [], "eclass": "c0", "cost": 2}},)"
                    R"( "root_eclasses": ["c0"]})");
  const auto r = run_eqsat(s, "extract e.json --extractor bottom-up");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains(R"("dag_cost": 2.0)"));
  CHECK_THAT(r.out, Catch::Contains(R"("c0": "n0")"));
}
