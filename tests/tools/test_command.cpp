// tools/command.cpp and main.cpp: a process adds only the command it runs
// (its registration name is its subcommand's name), and every command
// listed by `eqsat --help` parses its own options alone.
#include "run_eqsat.hpp"

#include <catch2/catch.hpp>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

TEST_CASE("each command of --help runs alone: its own help, its options, a bad option") {
  Scratch s;
  const auto help = run_eqsat(s, "--help");
  REQUIRE(help.status == 0);
  std::vector<std::string> names;
  std::istringstream lines(help.out.substr(help.out.find("Subcommands:")));
  const std::regex row("^  ([a-z-]+) +[A-Z].*");
  for (std::string line; std::getline(lines, line);)
    if (std::smatch m; std::regex_match(line, m, row)) names.push_back(m[1]);
  CHECK(names.size() == 12);
  for (const std::string& name : names) {
    INFO(name);
    const auto own = run_eqsat(s, name + " --help");
    CHECK(own.status == 0);
    CHECK(own.out.find("Usage: ") != std::string::npos);
    CHECK(own.out.find(" " + name + " ") != std::string::npos);
    CHECK(own.out.find("Subcommands:") == std::string::npos);
    const auto bad = run_eqsat(s, name + " --no-such-option");
    CHECK(bad.status == 2);
  }
  const auto typo = run_eqsat(s, "optimise g.eg");
  CHECK(typo.status == 2);
  CHECK(typo.err.find("did you mean 'optimize'?") != std::string::npos);
}
