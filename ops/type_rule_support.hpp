// Helpers every type rule shares (type_rules.cpp, control_type_rules.cpp):
// operand access and the attribute readers that blame a bad value on its
// key. Internal to the type rules.
#pragma once

#include "attrs.hpp"
#include "op.hpp"
#include "term.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace eqsat::ops::type_rules::detail {

// The op's name, as messages start with it.
std::string_view name_of(OpKind kind);

// Operand `i`'s tensor type; a tuple operand is a type error.
const TensorType& tensor(OpKind kind, std::span<const TermRef> xs, std::size_t i);

// Operand `i` must be an integer scalar.
void require_integer_scalar(OpKind kind, std::span<const TermRef> xs, std::size_t i,
                            const char* what);

// `t` must have a float dtype; `what` names it in the message.
void require_float(OpKind kind, const TensorType& t, const char* what);

// The integer value of a constant operand, when it is one.
std::optional<std::int64_t> const_int(TermRef t);

// The integer attribute `key` (present), blamed on the key when not one.
std::int64_t int_attr(OpKind kind, const Attrs& attrs, AttrKey key);

// The boolean attribute `key`, `fallback` when absent.
bool bool_attr(OpKind kind, const Attrs& attrs, AttrKey key, bool fallback);

// `t` without its leading dimension (a sequence's element).
TensorType drop_leading(const TensorType& t);

}  // namespace eqsat::ops::type_rules::detail
