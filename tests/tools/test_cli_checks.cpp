// The numeric option checks: whole numbers in a readable range, and time
// limits that are finite positive seconds; through the program, out of
// range is bad usage (exit 2) with that message.
#include "tools/cli_checks.hpp"

#include "run_eqsat.hpp"

#include <catch2/catch.hpp>

using namespace eqsat::tools;
using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

TEST_CASE("whole numbers are checked against their range with a readable message") {
  const CLI::Validator check = whole_number_in(1, 1000);
  for (std::string ok : {"1", "17", "1000"}) CHECK(check(ok).empty());
  for (std::string bad : {"0", "1001", "-1", "1.5", "", "x", "9223372036854775808"})
    CHECK(check(bad) == "expected a whole number from 1 to 1000, got " + bad);
}

TEST_CASE("a time limit is a finite positive number of seconds") {
  const CLI::Validator check = positive_seconds();
  for (std::string ok : {"0.5", "10", "1e3"}) CHECK(check(ok).empty());
  for (std::string bad : {"nan", "inf", "-inf", "0", "-1", "", "1s"})
    CHECK(check(bad) == "expected a positive number of seconds, got " + bad);
}

TEST_CASE("optimize: limits out of range are bad usage with a readable message") {
  Scratch s;
  s.write("g.eg", "(input x (f64 3))\n(output (exp x))\n");
  const std::pair<const char*, const char*> cases[] = {
      {"--time-limit nan", "--time-limit: expected a positive number of seconds, got nan"},
      {"--time-limit inf", "--time-limit: expected a positive number of seconds, got inf"},
      {"--time-limit -1", "--time-limit: expected a positive number of seconds, got -1"},
      {"--node-limit 0", "--node-limit: expected a whole number from 1 to 1000000000000, got 0"},
      {"--iter-limit 1.5", "--iter-limit: expected a whole number from 1 to 1000000000, got 1.5"}};
  for (const auto& [args, message] : cases) {
    const auto r = run_eqsat(s, std::string("optimize g.eg ") + args);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::StartsWith(message));
    CHECK(r.out.empty());
  }
  CHECK(run_eqsat(s, "optimize g.eg --node-limit 100 --iter-limit 3 --time-limit 0.5").status == 0);
}
