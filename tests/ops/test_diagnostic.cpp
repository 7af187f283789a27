// Located messages and the interned file names they carry.
#include "ops/diagnostic.hpp"
#include "ops/sexpr.hpp"

#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace eqsat::ops;

TEST_CASE("file names of equal text are one interned name") {
  const std::string built = std::string("dir/") + "graph.eg";
  const FileName a("dir/graph.eg"), b(built), c = std::string_view("dir/other.eg");
  CHECK(a == b);
  CHECK(&a.str() == &b.str());  // copies and equal texts share the stored string
  CHECK(a != c);
  CHECK(a.str() == "dir/graph.eg");
  CHECK(FileName().empty());
  CHECK(FileName() == FileName(""));
  // Ordered by their text, not by where they are stored.
  CHECK(FileName("b.eg") > FileName("a.eg"));
  CHECK(FileName("a.eg") < FileName("a.eg.x"));
  std::ostringstream out;
  out << a;
  CHECK(out.str() == "dir/graph.eg");
  CHECK(fmt::format("[{}]", a) == "[dir/graph.eg]");
}

TEST_CASE("file names interned on several threads at once agree") {
  std::vector<const std::string*> seen(8);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < seen.size(); ++i)
    threads.emplace_back([&seen, i] {
      for (int k = 0; k < 200; ++k) FileName(fmt::format("t{}.eg", k));
      seen[i] = &FileName("shared.eg").str();
    });
  for (std::thread& t : threads) t.join();
  for (const std::string* s : seen) CHECK(s == seen.front());
}

TEST_CASE("a diagnostic names its file, line and column") {
  const Diagnostic d{{"m.eg", 3, 7}, "bad"};
  CHECK(d.to_string() == "m.eg:3:7: error: bad");
  CHECK(Diagnostic{{"m.eg", 0, 0}, "gone"}.to_string() == "m.eg: error: gone");
  // Every node of a read file carries the file's name.
  const auto es = read_sexprs("(a (b c))", "dir/read.eg");
  REQUIRE(es.size() == 1);
  CHECK(es[0].items[1].items[0].where == SourceLocation{"dir/read.eg", 1, 5});
}
