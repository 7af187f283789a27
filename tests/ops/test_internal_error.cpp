// EQSAT_ASSERT (support/internal_error.hpp): a failed assertion throws an
// InternalError naming the place, the condition and its context; a true
// one evaluates no context.
#include "support/internal_error.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace {

int checked_half(int x) {
  EQSAT_ASSERT(x % 2 == 0) << "halving " << x;
  return x / 2;
}

}  // namespace

TEST_CASE("a failed assertion throws an internal error with its context") {
  try {
    checked_half(3);
    FAIL("no exception");
  } catch (const eqsat::InternalError& e) {
    const std::string what = e.what();
    CHECK(what.find("test_internal_error.cpp:") != std::string::npos);
    CHECK(what.ends_with(": x % 2 == 0 failed: halving 3"));
  }
  CHECK_THROWS_AS(checked_half(5), std::logic_error);
}

TEST_CASE("a true assertion evaluates no context") {
  int evaluated = 0;
  auto context = [&] { return ++evaluated; };
  EQSAT_ASSERT(true) << context();
  CHECK(evaluated == 0);
  CHECK(checked_half(8) == 4);
}
