// The exit status of an exception no command caught: a bug is 3, distinct
// from bad input (1) and bad usage (2); out of memory is the user's (1).
#include "tools/exit_status.hpp"

#include "support/internal_error.hpp"

#include <catch2/catch.hpp>

#include <new>
#include <sstream>
#include <stdexcept>

using eqsat::tools::report_escaped_error;

namespace {

// The status and message report_escaped_error gives for `thrown`.
template <class F>
std::pair<int, std::string> report(F thrown) {
  std::ostringstream err;
  try {
    thrown();
  } catch (...) {
    const int status = report_escaped_error(std::current_exception(), err);
    return {status, err.str()};
  }
  return {-1, "nothing thrown"};
}

}  // namespace

TEST_CASE("a failed EQSAT_ASSERT exits 3 as an internal error") {
  const auto [status, message] = report([] { EQSAT_ASSERT(1 + 1 == 3) << "arithmetic"; });
  CHECK(status == 3);
  CHECK_THAT(message, Catch::StartsWith("eqsat: internal error: ") &&
                          Catch::Contains("1 + 1 == 3 failed: arithmetic"));
}

TEST_CASE("any other escaped exception is a bug - exit 3 - and out of memory is exit 1") {
  CHECK(report([] { throw std::out_of_range("vector::at"); }) ==
        std::pair<int, std::string>{3, "eqsat: internal error: vector::at\n"});
  CHECK(report([] { throw 42; }).first == 3);
  const auto [status, message] = report([] { throw std::bad_alloc(); });
  CHECK(status == 1);
  CHECK_THAT(message, Catch::StartsWith("error: out of memory"));
}
