// `eqsat calibrate`: the profile's path is checked before the (long)
// measurements.
#include "run_eqsat.hpp"

#include <catch2/catch.hpp>

using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

TEST_CASE("calibrate: an unusable -o is refused before measuring") {
  Scratch s;
  s.write("afile", "a file, not a directory");
  auto r = run_eqsat(s, "calibrate -o nodir/c.json");
  CHECK(r.status == 1);
  CHECK(r.err == "error: -o nodir/c.json: cannot create it: nodir: No such file or directory\n");
  CHECK(r.out.empty());  // nothing was measured
  r = run_eqsat(s, "calibrate -o .");
  CHECK(r.status == 1);
  CHECK(r.err == "error: -o .: it is a directory\n");
  CHECK(r.out.empty());
}
