#include "attr_literal.hpp"

#include "attr_schema.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <boost/hana.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace eqsat::ops {

namespace {

namespace hana = boost::hana;

// The literal form of one value type: parse reads it, nullopt when `e` is
// something else; types with no `form` are internal.
template <class T>
struct Literal {
  static constexpr std::string_view form = "no value (the attribute is internal, never written)";
  static std::optional<T> parse(const SExpr&) { return std::nullopt; }
};
template <>
struct Literal<bool> {
  static constexpr std::string_view form = "true or false";
  static std::optional<bool> parse(const SExpr& e) {
    if (e.kind == SExpr::Kind::Bool) return e.bool_value;
    return std::nullopt;
  }
};
template <>
struct Literal<std::int64_t> {
  static constexpr std::string_view form = "an integer";
  static std::optional<std::int64_t> parse(const SExpr& e) {
    if (e.kind == SExpr::Kind::Int) return e.int_value;
    return std::nullopt;
  }
};
template <>
struct Literal<IntList> {
  static constexpr std::string_view form = "a list of integers";
  static std::optional<IntList> parse(const SExpr& e) {
    if (!e.is_list()) return std::nullopt;
    IntList out;
    for (const SExpr& x : e.items) {
      if (x.kind != SExpr::Kind::Int) return std::nullopt;
      out.push_back(x.int_value);
    }
    return out;
  }
};
template <>
struct Literal<DType> {
  static constexpr std::string_view form = "a dtype (bool i32 i64 f32 f64)";
  static std::optional<DType> parse(const SExpr& e) {
    if (e.is_symbol()) return parse_dtype(e.text);
    return std::nullopt;
  }
};
template <>
struct Literal<AxisAttr> {
  static constexpr std::string_view form = "an integer or a list of integers";
  static std::optional<AxisAttr> parse(const SExpr& e) {
    if (auto i = Literal<std::int64_t>::parse(e)) return *i;
    if (auto l = Literal<IntList>::parse(e)) return *l;
    return std::nullopt;
  }
};

constexpr std::size_t kNumKeys = kNumAttrKeys;

using Parser = std::optional<AttrValue> (*)(const SExpr&);

template <std::size_t I>
std::optional<AttrValue> parse_member(const SExpr& e) {
  auto v = Literal<AttrType<I>>::parse(e);
  if (!v) return std::nullopt;
  if constexpr (std::is_same_v<AttrType<I>, AxisAttr>)
    return std::visit([](const auto& x) { return AttrValue(x); }, *v);
  else
    return AttrValue(std::move(*v));
}

template <std::size_t... I>
constexpr std::array<Parser, kNumKeys> parsers(std::index_sequence<I...>) {
  return {&parse_member<I>...};
}
template <std::size_t... I>
constexpr std::array<std::string_view, kNumKeys> forms(std::index_sequence<I...>) {
  return {Literal<AttrType<I>>::form...};
}
constexpr auto kParsers = parsers(std::make_index_sequence<kNumKeys>());
constexpr auto kForms = forms(std::make_index_sequence<kNumKeys>());

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out + "\"";
}

// The text of any value, derived from its type: a Hana struct as its
// members after their keywords, a vector as a list.
template <class T>
std::string text(const T& x) {
  if constexpr (std::is_same_v<T, bool>) {
    return x ? "true" : "false";
  } else if constexpr (std::is_same_v<T, double>) {
    if (!std::isfinite(x)) return std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf";
    std::string s = fmt::format("{}", x);
    return s.find_first_of(".e") == std::string::npos ? s + ".0" : s;
  } else if constexpr (std::is_arithmetic_v<T>) {
    return std::to_string(x);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return quoted(x);
  } else if constexpr (std::is_same_v<T, DType>) {
    return std::string(dtype_name(x));
  } else if constexpr (std::is_same_v<T, TensorType>) {
    return to_string(x);
  } else if constexpr (std::is_same_v<T, Array>) {
    return fmt::format("(array {})", to_string(x.type()));
  } else if constexpr (hana::Struct<T>::value) {
    std::string s;
    hana::for_each(hana::accessors<T>(), [&](const auto& member) {
      std::string key = hana::to<const char*>(hana::first(member));
      std::ranges::replace(key, '_', '-');
      s += fmt::format("{}:{} {}", s.empty() ? "" : " ", key, text(hana::second(member)(x)));
    });
    return fmt::format("({})", s);
  } else {
    std::string s;
    for (const auto& e : x) s += fmt::format("{}{}", s.empty() ? "" : " ", text(e));
    return fmt::format("({})", s);
  }
}

}  // namespace

std::optional<AttrValue> parse_attr_literal(AttrKey key, const SExpr& e) {
  return kParsers[static_cast<std::size_t>(key)](e);
}

std::string_view attr_literal_form(AttrKey key) {
  return kForms[static_cast<std::size_t>(key)];
}

std::string attr_value_text(const AttrValue& v) {
  return std::visit([](const auto& x) { return text(x); }, v);
}

}  // namespace eqsat::ops
