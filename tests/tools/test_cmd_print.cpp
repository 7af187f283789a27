// `eqsat print` on files that are not graph files: missing, a directory, a
// device that never ends.
#include "run_eqsat.hpp"

#include <catch2/catch.hpp>

using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

TEST_CASE("print: a missing file or a directory or /dev/zero is an error with the reason") {
  Scratch s;
  auto r = run_eqsat(s, "print nope.eg");
  CHECK(r.status == 1);
  CHECK(r.err == "nope.eg: error: cannot read file: No such file or directory\n");
  std::filesystem::create_directory(s.path("dir.eg"));
  r = run_eqsat(s, "print dir.eg");
  CHECK(r.status == 1);
  CHECK(r.err == "dir.eg: error: cannot read file: it is a directory\n");
  r = run_eqsat(s, "print /dev/zero");
  CHECK(r.status == 1);
  CHECK(r.err ==
        "/dev/zero: error: cannot read file: larger than the limit of 67108864 bytes for a source "
        "file\n");
}
