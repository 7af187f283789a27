#include "egraph/sexpr.hpp"

#include <cctype>

namespace eqsat::egraph {

ParseError::ParseError(std::size_t line, std::size_t col, const std::string& message)
    : std::runtime_error(std::to_string(line) + ":" + std::to_string(col) + ": error: " + message),
      line_(line),
      col_(col) {}

namespace {

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  void skip_space() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ';') {
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        advance();
      } else {
        break;
      }
    }
  }

  bool at_end() const { return pos_ >= text_.size(); }

  SExpr read() {
    skip_space();
    SExpr e;
    e.line = line_;
    e.col = col_;
    if (at_end()) throw ParseError(line_, col_, "expected an expression, found end of input");
    char c = text_[pos_];
    if (c == ')') throw ParseError(line_, col_, "unexpected ')'");
    if (c == '(') {
      advance();
      e.is_list = true;
      for (;;) {
        skip_space();
        if (at_end()) throw ParseError(e.line, e.col, "unclosed '('");
        if (text_[pos_] == ')') {
          advance();
          break;
        }
        e.items.push_back(read());
      }
      return e;
    }
    std::size_t start = pos_;
    while (pos_ < text_.size()) {
      char d = text_[pos_];
      if (d == '(' || d == ')' || d == ';' || std::isspace(static_cast<unsigned char>(d))) break;
      advance();
    }
    e.atom = std::string(text_.substr(start, pos_ - start));
    return e;
  }

  std::size_t line() const { return line_; }
  std::size_t col() const { return col_; }

 private:
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }

  std::string_view text_;
  std::size_t pos_ = 0, line_ = 1, col_ = 1;
};

}  // namespace

SExpr parse_sexpr(std::string_view text) {
  Reader r(text);
  SExpr e = r.read();
  r.skip_space();
  if (!r.at_end()) throw ParseError(r.line(), r.col(), "unexpected text after the expression");
  return e;
}

std::vector<SExpr> parse_sexprs(std::string_view text) {
  Reader r(text);
  std::vector<SExpr> out;
  for (r.skip_space(); !r.at_end(); r.skip_space()) out.push_back(r.read());
  return out;
}

}  // namespace eqsat::egraph
