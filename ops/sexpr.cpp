#include "sexpr.hpp"

#include "source_file.hpp"

#include <fmt/format.h>

#include <charconv>

namespace eqsat::ops {

std::string_view SExpr::head() const {
  return is_list() && !items.empty() && items[0].is_symbol() ? std::string_view(items[0].text)
                                                             : std::string_view();
}

std::string SExpr::describe() const {
  switch (kind) {
    case Kind::List:
      return head().empty() ? "a list" : fmt::format("({} ...)", capped_quote(head()));
    case Kind::Keyword:
      return fmt::format(":{}", capped_quote(text));
    case Kind::String:
      return fmt::format("\"{}\"", capped_quote(text));
    case Kind::Int:
      return std::to_string(int_value);
    case Kind::Float:
      return fmt::format("{}", float_value);
    case Kind::Bool:
      return bool_value ? "true" : "false";
    case Kind::Symbol:
      break;
  }
  return capped_quote(text);
}

namespace {

// A cursor over the text that tracks line and column.
class Reader {
 public:
  Reader(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  std::vector<SExpr> read_all() {
    std::vector<SExpr> out;
    skip_space();
    while (pos_ < text_.size()) {
      if (text_[pos_] == ')') fail(here(), "unexpected ')'");
      out.push_back(read());
      skip_space();
    }
    return out;
  }

 private:
  SourceLocation here() const { return {file_, line_, column_}; }

  [[noreturn]] void fail(const SourceLocation& where, const std::string& message) const {
    throw DiagnosticError(where, message);
  }

  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }

  void skip_space() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ';') {
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        advance();
      } else {
        return;
      }
    }
  }

  static bool is_delimiter(char c) {
    return c == '(' || c == ')' || c == '"' || c == ';' || c == ' ' || c == '\t' || c == '\n' ||
           c == '\r';
  }

  SExpr read() {
    SExpr e;
    e.where = here();
    const char c = text_[pos_];
    if (c == '(') {
      if (depth_ == kMaxDepth)
        fail(e.where, fmt::format("expressions nest deeper than {} levels; name intermediate "
                                  "values with let",
                                  kMaxDepth));
      ++depth_;
      advance();
      skip_space();
      while (pos_ < text_.size() && text_[pos_] != ')') {
        e.items.push_back(read());
        skip_space();
      }
      if (pos_ >= text_.size()) fail(e.where, "unbalanced '(': no matching ')'");
      advance();
      --depth_;
      return e;
    }
    if (c == '"') return read_string(e);
    const std::size_t start = pos_;
    while (pos_ < text_.size() && !is_delimiter(text_[pos_])) advance();
    classify_atom(e, text_.substr(start, pos_ - start));
    return e;
  }

  SExpr& read_string(SExpr& e) {
    e.kind = SExpr::Kind::String;
    advance();
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_];
      if (c == '\\' && pos_ + 1 < text_.size()) {
        advance();
        c = text_[pos_] == 'n' ? '\n' : text_[pos_] == 't' ? '\t' : text_[pos_];
      }
      e.text.push_back(c);
      advance();
    }
    if (pos_ >= text_.size()) fail(e.where, "unterminated string");
    advance();
    return e;
  }

  void classify_atom(SExpr& e, std::string_view atom) const {
    e.text = std::string(atom);
    if (atom == "true" || atom == "false") {
      e.kind = SExpr::Kind::Bool;
      e.bool_value = atom == "true";
      return;
    }
    if (atom.size() > 1 && atom[0] == ':') {
      e.kind = SExpr::Kind::Keyword;
      e.text = std::string(atom.substr(1));
      return;
    }
    const bool numeric = std::isdigit(static_cast<unsigned char>(atom[0])) ||
                         ((atom[0] == '-' || atom[0] == '+' || atom[0] == '.') && atom.size() > 1 &&
                          (std::isdigit(static_cast<unsigned char>(atom[1])) || atom[1] == '.'));
    if (!numeric) {
      e.kind = SExpr::Kind::Symbol;
      return;
    }
    const std::string_view digits = atom[0] == '+' ? atom.substr(1) : atom;
    const char* end = digits.data() + digits.size();
    auto [p, ec] = std::from_chars(digits.data(), end, e.int_value);
    if (ec == std::errc() && p == end) {
      e.kind = SExpr::Kind::Int;
      return;
    }
    if (ec == std::errc::result_out_of_range && p == end)
      fail(e.where, fmt::format("integer {} out of range", atom));
    auto [q, fec] = std::from_chars(digits.data(), end, e.float_value);
    if (fec != std::errc() || q != end) fail(e.where, fmt::format("malformed number '{}'", atom));
    e.kind = SExpr::Kind::Float;
  }

  // Deeper lists are refused: the reader and its users recurse per level.
  static constexpr int kMaxDepth = 1000;

  std::string_view text_;
  const std::string& file_;
  int depth_ = 0;
  std::size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

}  // namespace

std::vector<SExpr> read_sexprs(std::string_view text, const std::string& file) {
  return Reader(text, file).read_all();
}

std::vector<SExpr> read_sexpr_file(const std::string& path) {
  return read_sexprs(read_source_file(path), path);
}

}  // namespace eqsat::ops
