#include "rules/lang/rule_ast.hpp"

#include "ops/attr_literal.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace eqsat::rules::ast {

namespace {

std::string number_text(const Pattern& p) {
  if (p.kind == Pattern::Kind::Bool) return p.number != 0 ? "true" : "false";
  std::string s = fmt::format("{}", p.number);
  if (p.is_float && s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

std::string to_string(const Pattern& p) {
  switch (p.kind) {
    case Pattern::Kind::Var:
      return p.var;
    case Pattern::Kind::Number:
    case Pattern::Kind::Bool:
      return number_text(p);
    case Pattern::Kind::Op:
      break;
  }
  std::string s = fmt::format("({}", ops::op_name(p.op));
  const AttrPattern* index = nullptr;
  for (const auto& a : p.attrs)
    if (p.op == ops::OpKind::Get && a.key == ops::AttrKey::Index) index = &a;
  if (index)
    s.append(" ").append(index->is_var() ? index->var : ops::attr_value_text(index->value));
  for (const auto& c : p.children) s.append(" ").append(to_string(c));
  for (const auto& a : p.attrs)
    if (&a != index)
      s += fmt::format(" :{} {}", ops::attr_key_name(a.key),
                       a.is_var() ? a.var : ops::attr_value_text(a.value));
  return s + ")";
}

ops::DType literal_dtype(const Pattern& literal, std::optional<ops::DType> meet) {
  if (literal.kind == Pattern::Kind::Bool) return ops::DType::Bool;
  const ops::DType own = literal.is_float ? ops::DType::F64 : ops::DType::I64;
  return meet ? ops::promote(*meet, false, own, true) : own;
}

}  // namespace eqsat::rules::ast
