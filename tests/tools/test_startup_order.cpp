// The eqsat program's start-up order (tools/startup_order.txt) took effect:
// the functions it lists are still defined in the program, and the linker
// placed them together instead of across all of the program's code.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#if EQSAT_STARTUP_ORDERED
namespace {

struct Span {
  std::uintptr_t low = std::numeric_limits<std::uintptr_t>::max();
  std::uintptr_t high = 0;
  void add(std::uintptr_t address) {
    low = std::min(low, address);
    high = std::max(high, address);
  }
  std::uintptr_t size() const { return high > low ? high - low : 0; }
};

// The program's function symbols (nm types t, T, w, W): name -> addresses
// (local names repeat across translation units).
std::map<std::string, std::vector<std::uintptr_t>> program_functions() {
  std::map<std::string, std::vector<std::uintptr_t>> functions;
  std::unique_ptr<FILE, int (*)(FILE*)> nm(popen("nm --defined-only '" EQSAT_BINARY "'", "r"),
                                           pclose);
  REQUIRE(nm);
  char line[8192];
  while (std::fgets(line, sizeof line, nm.get())) {
    std::istringstream fields(line);
    std::string address, type, name;
    if (!(fields >> address >> type >> name) || type.size() != 1 ||
        std::string("tTwW").find(type[0]) == std::string::npos)
      continue;
    functions[name].push_back(std::stoull(address, nullptr, 16));
  }
  return functions;
}

}  // namespace

TEST_CASE("the functions a start runs lie together in the eqsat program") {
  const auto functions = program_functions();
  REQUIRE(functions.size() > 10000);
  Span code;
  for (const auto& [name, addresses] : functions)
    for (std::uintptr_t a : addresses) code.add(a);

  std::ifstream order(EQSAT_STARTUP_ORDER);
  REQUIRE(order);
  std::string name;
  std::size_t listed = 0, found = 0;
  Span start;
  while (std::getline(order, name)) {
    if (name.empty() || name[0] == '#') continue;
    ++listed;
    // Data objects are listed too; only functions are looked up here.
    const auto it = functions.find(name);
    if (it == functions.end()) continue;
    ++found;
    for (std::uintptr_t a : it->second) start.add(a);
  }
  INFO("rerun tools/make_startup_order.py when the program's functions were renamed");
  INFO(found << " of " << listed << " listed names are functions of the program");
  // More than a thousand functions, of which the list names some data too.
  CHECK(found > 1000);
  CHECK(found * 10 > listed * 7);
  INFO("listed functions span " << start.size() << " bytes of the code's " << code.size());
  CHECK(start.size() * 4 < code.size());
}
#endif
