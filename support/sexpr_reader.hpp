// The one S-expression reader of the project: graph files and rule files
// (ops/sexpr) and e-graph terms and patterns (egraph/sexpr) are all read by
// it. It knows `;` comments, lists, atoms and, where the dialect has them,
// double-quoted strings, each with its line and column; what an atom means
// is the caller's. A Builder makes the nodes as they are read, so each
// caller keeps its own node type and its own messages, and an atom's error
// (a malformed number in ops/) is reported in reading order.
//
// A Builder provides:
//   using Node = ...;
//   static constexpr bool kStrings;         // "..." with \n and \t escapes are
//                                           // strings; else '"' is an atom character
//   static constexpr std::size_t kMaxDepth; // lists within lists
//   Node atom(std::string_view text, SExprPosition where);
//   Node string(std::string contents, SExprPosition where);  // with kStrings
//   Node list(std::vector<Node> items, SExprPosition where);
//   [[noreturn]] void fail(SExprProblem problem, SExprPosition where);
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace eqsat::support {

// 1-based line and column of a character.
struct SExprPosition {
  std::size_t line = 1;
  std::size_t column = 1;
};

// The syntax errors of the reader itself; the Builder words them.
enum class SExprProblem {
  UnexpectedClose,     // a ')' with no list open, at the ')'
  UnclosedList,        // the text ends inside a list, at its '('
  UnterminatedString,  // the text ends inside a string, at its '"'
  TooDeep,             // a list nested deeper than the limit, at its '('
};

// A Builder's kMaxDepth when it sets none.
inline constexpr std::size_t kNoSExprDepthLimit = std::numeric_limits<std::size_t>::max();

// A cursor over the text, reading one expression at a time.
template <class Builder>
class SExprReader {
 public:
  using Node = typename Builder::Node;

  SExprReader(std::string_view text, Builder& build) : text_(text), build_(build) {}

  // Skips blanks and comments; true when nothing is left.
  bool at_end() {
    skip_space();
    return pos_ >= text_.size();
  }

  // Where the next character is.
  SExprPosition position() const { return here_; }

  // Reads the next expression. Precondition: !at_end().
  Node read() {
    const SExprPosition where = here_;
    const char c = text_[pos_];
    if (c == ')') build_.fail(SExprProblem::UnexpectedClose, where);
    if (c == '(') return read_list(where);
    if constexpr (Builder::kStrings) {
      if (c == '"') return read_string(where);
    }
    const std::size_t start = pos_;
    while (pos_ < text_.size() && !is_delimiter(text_[pos_])) advance();
    return build_.atom(text_.substr(start, pos_ - start), where);
  }

 private:
  static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

  static bool is_delimiter(char c) {
    return c == '(' || c == ')' || c == ';' || is_blank(c) || (Builder::kStrings && c == '"');
  }

  void advance() {
    if (text_[pos_] == '\n') {
      ++here_.line;
      here_.column = 1;
    } else {
      ++here_.column;
    }
    ++pos_;
  }

  void skip_space() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ';') {
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      } else if (is_blank(c)) {
        advance();
      } else {
        return;
      }
    }
  }

  Node read_list(SExprPosition where) {
    if (depth_ == Builder::kMaxDepth) build_.fail(SExprProblem::TooDeep, where);
    ++depth_;
    advance();
    std::vector<Node> items;
    skip_space();
    while (pos_ < text_.size() && text_[pos_] != ')') {
      items.push_back(read());
      skip_space();
    }
    if (pos_ >= text_.size()) build_.fail(SExprProblem::UnclosedList, where);
    advance();
    --depth_;
    return build_.list(std::move(items), where);
  }

  Node read_string(SExprPosition where) {
    std::string contents;
    advance();
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_];
      if (c == '\\' && pos_ + 1 < text_.size()) {
        advance();
        c = text_[pos_] == 'n' ? '\n' : text_[pos_] == 't' ? '\t' : text_[pos_];
      }
      contents.push_back(c);
      advance();
    }
    if (pos_ >= text_.size()) build_.fail(SExprProblem::UnterminatedString, where);
    advance();
    return build_.string(std::move(contents), where);
  }

  std::string_view text_;
  Builder& build_;
  std::size_t pos_ = 0;
  std::size_t depth_ = 0;
  SExprPosition here_;
};

}  // namespace eqsat::support
