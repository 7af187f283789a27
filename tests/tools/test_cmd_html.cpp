// `eqsat html`: the page is self-contained, renders in a real browser
// (Debian's chromium, headless: the e-graph drawn, the output's class
// listed, the rule counts and alternatives shown, and clicking works,
// through the page's #selftest hook), is the same bytes in two runs, and an
// unusable -o is refused before any work.
#include "run_eqsat.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <memory>
#include <regex>
#include <string>

using eqsat::testing::read_file;
using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

namespace {

const char* kElementwise =
    "(input x (f64 4)) (input y (f64 4))\n"
    "(output (add (log (exp x)) (mul y 1)))\n";

const char* kScan =
    "(input xs (f64 10 3)) (input h0 (f64 3)) (input decay f64)\n"
    "(let ema (scan :sequences (xs) :sit-sot (h0) :non-sequences (decay)\n"
    "  (fn (x_t h_prev d) (add (mul d h_prev) (mul (sub 1 d) x_t)))))\n"
    "(output last (index (get 0 ema) -1))\n";

// The DOM chromium has after the page's scripts ran, or "" when it did not
// run; fails the test when chromium is not installed.
std::string dump_dom(const Scratch& s, const std::string& url) {
  if (std::system("command -v chromium >/dev/null 2>&1") != 0)
    FAIL("the page test needs Debian's chromium (tools/install-deps.sh installs it)");
  const std::string command =
      "timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir='" +
      s.path("chromium-profile") + "' --virtual-time-budget=2000 --dump-dom '" + url +
      "' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  REQUIRE(pipe);
  std::string dom;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe.get())) > 0;)
    dom.append(buffer, n);
  return dom;
}

// Nothing the page would fetch: no address, no external script, style or
// image; a `url(` only names an element of the page (`url(#arrow)`).
void check_self_contained(const std::string& page) {
  for (const char* bad : {"http://", "https://", "src=", "<link", "@import", "file:"}) {
    INFO("the page contains " << bad);
    CHECK(page.find(bad) == std::string::npos);
  }
  for (std::size_t at = page.find("url("); at != std::string::npos; at = page.find("url(", at + 1))
    CHECK(page.compare(at, 5, "url(#") == 0);
}

// Renders `graph` in chromium and checks what a user would see.
void check_page_renders(const std::string& graph) {
  Scratch s;
  s.write("g.eg", graph);
  const auto r = run_eqsat(s, "html g.eg -o page.html --quiet");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const std::string page = read_file(s.path("page.html"));
  check_self_contained(page);

  const std::string dom = dump_dom(s, "file://" + s.path("page.html") + "#selftest");
  INFO(dom.substr(0, 2000));
  REQUIRE(!dom.empty());
  // Clicking the output's class showed its e-nodes with the chosen one, and
  // clicking a box of the drawing showed that box's class.
  const std::size_t hook = dom.find("<pre id=\"selftest\">");
  REQUIRE(hook != std::string::npos);
  const std::string said = dom.substr(hook, dom.find("</pre>", hook) - hook);
  INFO(said);
  std::smatch m;
  const std::regex selftest(
      R"(<pre id="selftest">selftest ok: clicked c(\d+), shown c(\d+) with (\d+) e-nodes, )"
      R"(chosen [^;]+; clicked box c(\d+), shown c(\d+))");
  REQUIRE(std::regex_match(said, m, selftest));
  CHECK(m[1] == m[2]);
  CHECK(std::stoi(m[3]) >= 1);
  CHECK(m[4] == m[5]);
  const std::string root = m[1];
  // The root class is listed, and drawn among the boxes.
  CHECK(dom.find("<li data-class=\"" + root + "\"") != std::string::npos);
  CHECK(dom.find("class=\"box root\" data-class=\"" + root + "\"") != std::string::npos);
  CHECK(dom.find("<svg id=\"graph-svg\" width=\"") != std::string::npos);
  // The report's rule counts (a row per rule), and the alternatives.
  const std::size_t rules = dom.find("<table id=\"rules\">");
  REQUIRE(rules != std::string::npos);
  CHECK(dom.compare(dom.find("<tbody>", rules), 10, "<tbody><tr") == 0);
  CHECK(dom.find("<details open=\"\" class=\"alternative\"><summary>rank 1") != std::string::npos);
}

}  // namespace

TEST_CASE("html: the page renders in chromium and answers clicks") {
  SECTION("elementwise") {
    check_page_renders(kElementwise);
  }
  SECTION("a scan loop") {
    check_page_renders(kScan);
  }
  // The data cannot end its script element early, and names show as text.
  SECTION("names that look like markup") {
    check_page_renders("(input </script><b>x (f64 2)) (output (neg </script><b>x))\n");
  }
}

TEST_CASE("html: the same graph and rules give the same bytes") {
  Scratch s;
  s.write("g.eg", kScan);
  REQUIRE(run_eqsat(s, "html g.eg -o a.html --quiet").status == 0);
  REQUIRE(run_eqsat(s, "html g.eg -o b.html --quiet").status == 0);
  const std::string a = read_file(s.path("a.html"));
  CHECK(a.find("\"rules\":{") != std::string::npos);
  CHECK(a == read_file(s.path("b.html")));
}

TEST_CASE("html: an unusable -o is refused before any work") {
  Scratch s;
  s.write("g.eg", kElementwise);
  // Checked before the graph is even read.
  auto r = run_eqsat(s, "html missing.eg -o nodir/page.html");
  CHECK(r.status == 1);
  CHECK(r.err.rfind("error: -o nodir/page.html: ", 0) == 0);
  r = run_eqsat(s, "html g.eg -o g.eg");
  CHECK(r.status == 1);
  CHECK(r.err == "error: -o g.eg: is the input graph; it would be lost\n");
  CHECK(read_file(s.path("g.eg")) == kElementwise);
  r = run_eqsat(s, "html g.eg");
  CHECK(r.status == 2);
}
