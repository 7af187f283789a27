// A mistyped subcommand gets the closest one suggested
// (tools/command_suggestion.cpp), and the program says so with exit 2.
#include "run_eqsat.hpp"
#include "tools/command_suggestion.hpp"

#include <catch2/catch.hpp>

using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;
using eqsat::tools::closest_command;

TEST_CASE("closest_command: typos, prefixes, and nothing for a stranger") {
  const std::vector<std::string> names{"check-rules", "explore", "optimize",
                                       "print",       "profile", "run"};
  CHECK(closest_command("optimise", names) == "optimize");
  CHECK(closest_command("optimze", names) == "optimize");
  CHECK(closest_command("opt", names) == "optimize");
  CHECK(closest_command("pirnt", names) == "print");
  CHECK(closest_command("rn", names) == "run");
  CHECK(closest_command("check_rules", names) == "check-rules");
  CHECK(closest_command("profle", names) == "profile");
  CHECK_FALSE(closest_command("frobnicate", names).has_value());
  CHECK_FALSE(closest_command("x", names).has_value());
}

TEST_CASE("eqsat: an unknown subcommand suggests the closest, exit 2") {
  Scratch s;
  const auto r = run_eqsat(s, "optimise g.eg");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith("eqsat: unknown command 'optimise'; did you mean "
                                      "'optimize'?\n"));
  const auto none = run_eqsat(s, "frobnicate");
  CHECK(none.status == 2);
  CHECK_THAT(none.err, Catch::StartsWith("eqsat: unknown command 'frobnicate'\n"));
  CHECK(run_eqsat(s, "--version").status == 0);
}
