#include "egraph/sexpr.hpp"

#include "support/sexpr_reader.hpp"

namespace eqsat::egraph {

ParseError::ParseError(std::size_t line, std::size_t col, const std::string& message)
    : std::runtime_error(std::to_string(line) + ":" + std::to_string(col) + ": error: " + message),
      line_(line),
      col_(col) {}

namespace {

// Makes egraph's nodes: every atom is plain text (no strings, no depth
// limit), errors are ParseErrors.
struct Builder {
  using Node = SExpr;
  static constexpr bool kStrings = false;
  static constexpr std::size_t kMaxDepth = support::kNoSExprDepthLimit;

  Node atom(std::string_view text, support::SExprPosition where) const {
    return SExpr{false, std::string(text), {}, where.line, where.column};
  }
  Node list(std::vector<SExpr> items, support::SExprPosition where) const {
    return SExpr{true, {}, std::move(items), where.line, where.column};
  }
  // Without strings and a depth limit, only these two problems arise.
  [[noreturn]] void fail(support::SExprProblem problem, support::SExprPosition where) const {
    throw ParseError(
        where.line, where.column,
        problem == support::SExprProblem::UnexpectedClose ? "unexpected ')'" : "unclosed '('");
  }
};

using Reader = support::SExprReader<Builder>;

}  // namespace

SExpr parse_sexpr(std::string_view text) {
  Builder build;
  Reader r(text, build);
  if (r.at_end())
    throw ParseError(r.position().line, r.position().column,
                     "expected an expression, found end of input");
  SExpr e = r.read();
  if (!r.at_end())
    throw ParseError(r.position().line, r.position().column,
                     "unexpected text after the expression");
  return e;
}

std::vector<SExpr> parse_sexprs(std::string_view text) {
  Builder build;
  Reader r(text, build);
  std::vector<SExpr> out;
  while (!r.at_end()) out.push_back(r.read());
  return out;
}

}  // namespace eqsat::egraph
