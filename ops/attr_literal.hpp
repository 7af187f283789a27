// Attribute values as graph and rule files write them after a keyword
// (`:axis (0 1)`): the one parser both file formats use and the one printer,
// each derived from the value type AttrSchema declares for the key.
#pragma once

#include "attrs.hpp"
#include "sexpr.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace eqsat::ops {

// The value of `:key` written as `e`, or nullopt when `e` does not have the
// form the key's type takes (or the key is internal, never written).
std::optional<AttrValue> parse_attr_literal(AttrKey key, const SExpr& e);

// What a value of `key` must look like, for messages: "an integer or a list
// of integers", "true or false", ...
std::string_view attr_literal_form(AttrKey key);

// The text of a value as files write it (`true`, `3`, `(0 1)`, `f32`); a
// struct-valued one (a scan's layout) reads `(:member value ...)`.
std::string attr_value_text(const AttrValue& v);

}  // namespace eqsat::ops
