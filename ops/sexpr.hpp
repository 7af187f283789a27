// The s-expressions of graph files (.eg) and rule files (.rules): `;`
// comments, lists, symbols, integers, floats, booleans, strings and
// keywords, each with its source position. The project's one reader
// (support/sexpr_reader.hpp) reads them; this file classifies the atoms.
#pragma once

#include "diagnostic.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace eqsat::ops {

struct SExpr {
  enum class Kind { List, Symbol, Keyword, Int, Float, Bool, String };

  Kind kind = Kind::List;
  std::string text;  // symbol or string contents; keyword without its ':'
  std::int64_t int_value = 0;
  double float_value = 0;
  bool bool_value = false;
  std::vector<SExpr> items;  // a list's elements
  SourceLocation where;

  bool is_list() const { return kind == Kind::List; }
  bool is_symbol() const { return kind == Kind::Symbol; }
  bool is_symbol(std::string_view s) const { return kind == Kind::Symbol && text == s; }
  bool is_keyword() const { return kind == Kind::Keyword; }
  bool is_number() const { return kind == Kind::Int || kind == Kind::Float; }
  // The list's head symbol, or "" when it has none.
  std::string_view head() const;
  // How the expression reads in a message: its text, or `(HEAD ...)`.
  std::string describe() const;
};

// Reads every top-level expression of `text`; `file` names it in
// diagnostics. Throws DiagnosticError on a syntax error (unbalanced
// parenthesis, unterminated string, bad number) and on lists nested more
// than 1000 deep (so that no reader of the tree can exhaust the stack).
std::vector<SExpr> read_sexprs(std::string_view text, const std::string& file);

// Reads a whole file; a missing, unreadable or too large file is a
// DiagnosticError `FILE: error: cannot read file: REASON` (source_file.hpp).
std::vector<SExpr> read_sexpr_file(const std::string& path);

}  // namespace eqsat::ops
