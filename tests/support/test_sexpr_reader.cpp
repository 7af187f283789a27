// The one S-expression reader (support/sexpr_reader.hpp), through a test
// Builder: positions, each syntax problem where it is reported, the depth
// limit, both dialects, and on random texts that whatever it reads prints
// back to a text it reads the same.
#include "support/sexpr_reader.hpp"

#include <catch2/catch.hpp>

#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

using eqsat::support::SExprPosition;
using eqsat::support::SExprProblem;

struct Node {
  enum class Kind { Atom, String, List } kind;
  std::string text;
  std::vector<Node> items;
  SExprPosition where;

  friend bool operator==(const Node& a, const Node& b) {
    return a.kind == b.kind && a.text == b.text && a.items == b.items;
  }
};

struct Failure {
  SExprProblem problem;
  SExprPosition where;
};

template <bool Strings, std::size_t Depth>
struct TestBuilder {
  using Node = ::Node;
  static constexpr bool kStrings = Strings;
  static constexpr std::size_t kMaxDepth = Depth;

  Node atom(std::string_view text, SExprPosition where) const {
    return {Node::Kind::Atom, std::string(text), {}, where};
  }
  Node string(std::string contents, SExprPosition where) const {
    return {Node::Kind::String, std::move(contents), {}, where};
  }
  Node list(std::vector<Node> items, SExprPosition where) const {
    return {Node::Kind::List, {}, std::move(items), where};
  }
  [[noreturn]] void fail(SExprProblem problem, SExprPosition where) const {
    throw Failure{problem, where};
  }
};

using WithStrings = TestBuilder<true, 4>;
using WithoutStrings = TestBuilder<false, eqsat::support::kNoSExprDepthLimit>;

template <class Builder>
std::vector<Node> read_all(std::string_view text) {
  Builder build;
  eqsat::support::SExprReader<Builder> reader(text, build);
  std::vector<Node> out;
  while (!reader.at_end()) out.push_back(reader.read());
  return out;
}

template <class Builder>
std::optional<Failure> failure_of(std::string_view text) {
  try {
    read_all<Builder>(text);
  } catch (const Failure& f) {
    return f;
  }
  return std::nullopt;
}

// Text that reads back as `n`: strings quoted with their escapes.
std::string print(const Node& n) {
  switch (n.kind) {
    case Node::Kind::Atom:
      return n.text;
    case Node::Kind::String: {
      std::string out = "\"";
      for (char c : n.text) {
        if (c == '\n')
          out += "\\n";
        else if (c == '\t')
          out += "\\t";
        else if (c == '"' || c == '\\')
          out += std::string("\\") + c;
        else
          out += c;
      }
      return out + "\"";
    }
    case Node::Kind::List:
      break;
  }
  std::string out = "(";
  for (const Node& item : n.items) {
    if (out.size() > 1) out += ' ';
    out += print(item);
  }
  return out + ")";
}

}  // namespace

TEST_CASE("the s-expression reader gives each expression its line and column") {
  const auto nodes = read_all<WithStrings>("; a comment\n  (f x\n\t\"s t\" (g))  y");
  REQUIRE(nodes.size() == 2);
  CHECK(nodes[0].kind == Node::Kind::List);
  CHECK((nodes[0].where.line == 2 && nodes[0].where.column == 3));
  REQUIRE(nodes[0].items.size() == 4);
  CHECK((nodes[0].items[1].text == "x" && nodes[0].items[1].where.column == 6));
  CHECK(nodes[0].items[2].kind == Node::Kind::String);
  CHECK(nodes[0].items[2].text == "s t");
  CHECK((nodes[0].items[2].where.line == 3 && nodes[0].items[2].where.column == 2));
  CHECK((nodes[0].items[3].where.line == 3 && nodes[0].items[3].where.column == 8));
  CHECK((nodes[1].text == "y" && nodes[1].where.line == 3 && nodes[1].where.column == 14));
}

TEST_CASE("the s-expression reader reports each problem where it is") {
  const auto check = [](std::string_view text, SExprProblem problem, std::size_t line,
                        std::size_t column) {
    const std::optional<Failure> f = failure_of<WithStrings>(text);
    REQUIRE(f);
    CHECK(f->problem == problem);
    CHECK(f->where.line == line);
    CHECK(f->where.column == column);
  };
  check("(a)\n )", SExprProblem::UnexpectedClose, 2, 2);
  check("x\n (a (b)", SExprProblem::UnclosedList, 2, 2);
  check("(a \"b\\\"", SExprProblem::UnterminatedString, 1, 4);
  check("(((((a)))))", SExprProblem::TooDeep, 1, 5);
  CHECK_FALSE(failure_of<WithStrings>("((((a))))"));  // four levels: the limit
}

TEST_CASE("without strings a double quote is part of an atom") {
  const auto nodes = read_all<WithoutStrings>("(f \"a b\")");
  REQUIRE(nodes.size() == 1);
  REQUIRE(nodes[0].items.size() == 3);
  CHECK(nodes[0].items[1].text == "\"a");
  CHECK(nodes[0].items[2].text == "b\"");
  CHECK_FALSE(failure_of<WithoutStrings>(std::string(2000, '(') + std::string(2000, ')')));
}

TEST_CASE("what the s-expression reader reads prints back to the same expressions") {
  std::mt19937 rng(29);
  const std::string alphabet = "()\"; \n\t\\ab1:";
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1), length(0, 40);
  int read = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    for (std::size_t n = length(rng); n > 0; --n) text += alphabet[pick(rng)];
    std::vector<Node> nodes;
    try {
      nodes = read_all<WithStrings>(text);
    } catch (const Failure& f) {
      CHECK(f.where.line >= 1);
      CHECK(f.where.column >= 1);
      continue;
    }
    ++read;
    std::string printed;
    for (const Node& n : nodes) printed += print(n) + "\n";
    INFO(text);
    CHECK(read_all<WithStrings>(printed) == nodes);
  }
  CHECK(read > 1000);
}
