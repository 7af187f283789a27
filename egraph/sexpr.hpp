// Terms and patterns written as text, read by the project's one
// S-expression reader (support/sexpr_reader.hpp): atoms and parenthesized
// lists, `;` comments, no strings. Errors carry a 1-based line and column.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace eqsat::egraph {

// A syntax error in term or pattern text: "LINE:COL: error: MESSAGE".
class ParseError : public std::runtime_error {
 public:
  ParseError(std::size_t line, std::size_t col, const std::string& message);
  std::size_t line() const { return line_; }
  std::size_t col() const { return col_; }

 private:
  std::size_t line_, col_;
};

struct SExpr {
  bool is_list = false;
  std::string atom;
  std::vector<SExpr> items;
  std::size_t line = 1, col = 1;

  [[noreturn]] void fail(const std::string& message) const { throw ParseError(line, col, message); }
};

// Parses exactly one s-expression (surrounding whitespace and comments
// allowed).
SExpr parse_sexpr(std::string_view text);
// Parses a sequence of s-expressions (possibly none).
std::vector<SExpr> parse_sexprs(std::string_view text);

}  // namespace eqsat::egraph
