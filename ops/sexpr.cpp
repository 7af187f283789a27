#include "sexpr.hpp"

#include "source_file.hpp"
#include "support/sexpr_reader.hpp"

#include <fmt/format.h>

#include <cctype>
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

// Makes ops' nodes: atoms classified as symbols, keywords, booleans and
// numbers as they are read, strings, lists nested at most 1000 deep (the
// reader and its users recurse per level); errors are DiagnosticErrors.
class Builder {
 public:
  using Node = SExpr;
  static constexpr bool kStrings = true;
  static constexpr std::size_t kMaxDepth = 1000;

  explicit Builder(const std::string& file) : file_(file) {}

  SExpr atom(std::string_view text, support::SExprPosition where) const {
    SExpr e;
    e.where = location(where);
    classify_atom(e, text);
    return e;
  }

  SExpr string(std::string contents, support::SExprPosition where) const {
    SExpr e;
    e.kind = SExpr::Kind::String;
    e.text = std::move(contents);
    e.where = location(where);
    return e;
  }

  SExpr list(std::vector<SExpr> items, support::SExprPosition where) const {
    SExpr e;
    e.items = std::move(items);
    e.where = location(where);
    return e;
  }

  [[noreturn]] void fail(support::SExprProblem problem, support::SExprPosition where) const {
    throw DiagnosticError(location(where), message(problem));
  }

 private:
  SourceLocation location(support::SExprPosition where) const {
    return {file_, static_cast<int>(where.line), static_cast<int>(where.column)};
  }

  static std::string message(support::SExprProblem problem) {
    switch (problem) {
      case support::SExprProblem::UnexpectedClose:
        return "unexpected ')'";
      case support::SExprProblem::UnclosedList:
        return "unbalanced '(': no matching ')'";
      case support::SExprProblem::UnterminatedString:
        return "unterminated string";
      case support::SExprProblem::TooDeep:
        break;
    }
    return fmt::format("expressions nest deeper than {} levels; name intermediate values with let",
                       kMaxDepth);
  }

  static void classify_atom(SExpr& e, std::string_view atom) {
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
      throw DiagnosticError(e.where, fmt::format("integer {} out of range", atom));
    auto [q, fec] = std::from_chars(digits.data(), end, e.float_value);
    if (fec != std::errc() || q != end)
      throw DiagnosticError(e.where, fmt::format("malformed number '{}'", atom));
    e.kind = SExpr::Kind::Float;
  }

  const FileName file_;  // interned once for every node
};

}  // namespace

std::vector<SExpr> read_sexprs(std::string_view text, const std::string& file) {
  Builder build(file);
  support::SExprReader reader(text, build);
  std::vector<SExpr> out;
  while (!reader.at_end()) out.push_back(reader.read());
  return out;
}

std::vector<SExpr> read_sexpr_file(const std::string& path) {
  return read_sexprs(read_source_file(path), path);
}

}  // namespace eqsat::ops
