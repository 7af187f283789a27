#include "rule_ast.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace eqsat::rules {

namespace {

std::string attr_value_text(const ops::AttrValue& v) {
  if (auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
  if (auto* t = std::get_if<ops::DType>(&v)) return std::string(ops::dtype_name(*t));
  if (auto* l = std::get_if<ops::IntList>(&v)) return fmt::format("({})", fmt::join(*l, " "));
  return "?";
}

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
  if (index) s.append(" ").append(index->is_var() ? index->var : attr_value_text(index->value));
  for (const auto& c : p.children) s.append(" ").append(to_string(c));
  for (const auto& a : p.attrs)
    if (&a != index)
      s += fmt::format(" :{} {}", ops::attr_key_name(a.key),
                       a.is_var() ? a.var : attr_value_text(a.value));
  return s + ")";
}

ops::DType literal_dtype(const Pattern& literal, std::optional<ops::DType> meet) {
  if (literal.kind == Pattern::Kind::Bool) return ops::DType::Bool;
  const ops::DType own = literal.is_float ? ops::DType::F64 : ops::DType::I64;
  return meet ? ops::promote(*meet, false, own, true) : own;
}

}  // namespace eqsat::rules
