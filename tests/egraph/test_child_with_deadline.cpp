// Tests of run_in_child: the child's bytes come back when it finishes in
// time; a child still working at the deadline is killed and reports
// nothing; a child that fails reports nothing.
#include "egraph/extract/child_with_deadline.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>

using namespace eqsat::egraph;

TEST_CASE("a child that finishes gives back its bytes", "[child_with_deadline]") {
  bool here = true;
  const auto got = run_in_child([] { return std::vector<char>{'o', 'k'}; }, 30.0, &here);
  CHECK_FALSE(here);
  REQUIRE(got);
  CHECK(*got == std::vector<char>{'o', 'k'});
}

TEST_CASE("a child past its deadline is killed and gives nothing", "[child_with_deadline]") {
  const auto got = run_in_child(
      [] {
        ::sleep(60);
        return std::vector<char>{'l', 'a', 't', 'e'};
      },
      0.3);
  CHECK_FALSE(got);
}

TEST_CASE("a child that dies gives nothing", "[child_with_deadline]") {
  const auto got = run_in_child([]() -> std::vector<char> { std::_Exit(3); }, 30.0);
  CHECK_FALSE(got);
}
