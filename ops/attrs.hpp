// Attributes of an op: a small map from key to value, kept sorted by key so
// that equal attribute sets compare and hash equal (hash-consing relies on
// it). Keys written in graph files (`:axis`) and internal ones (the slot of a
// nominal, the value of a constant, the layout of a scan) share one schema.
#pragma once

#include "array.hpp"
#include "support/internal_error.hpp"
#include "type.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace eqsat::ops {

using IntList = std::vector<std::int64_t>;

// The layout of a scan's operands (docs/language.md "Loops"): its children are
// the body, then n-steps if given, then the outer inputs in slot order.
struct ScanSpec {
  std::vector<IntList> sequence_taps;  // per sequence, ascending, each >= 0
  std::vector<IntList> mitsot_taps;    // per mit-sot, ascending, each < 0
  std::int64_t num_sitsot = 0;
  std::int64_t num_nitsot = 0;
  std::int64_t num_nonsequences = 0;
  bool has_n_steps = false;
  bool until = false;
  IntList keep;  // per output in tuple order: 0 = all steps, k >= 1 = last k

  std::int64_t num_outputs() const {
    return static_cast<std::int64_t>(mitsot_taps.size()) + num_sitsot + num_nitsot;
  }
  friend bool operator==(const ScanSpec&, const ScanSpec&) = default;
};

// One axis or several (`:axis 1`, `:axis (0 2)`).
using AxisAttr = std::variant<std::int64_t, IntList>;

// The attributes, declared once: per key its enumerator, the member of
// AttrSchema (attr_schema.hpp) whose name is its keyword (`_` written `-`,
// a trailing `_` dropped: `inline_` is `:inline`), and its value type. The
// AttrKey enum, AttrValue (the variant of every value type), Hana's view
// of the schema and from it hashing, equality, printing, the literal
// parser and check-rules' random values all follow from this list. Keys
// whose type has no literal form (a name, an array, a scan's layout,
// types) are internal: set by the parsers, never written after a keyword.
// clang-format off
#define EQSAT_ATTRS(X)                                  \
  X(Axis,       axis,       AxisAttr)                   \
  X(Keepdims,   keepdims,   bool)                       \
  X(Shape,      shape,      IntList)                    \
  X(Perm,       perm,       IntList)                    \
  X(Dtype,      dtype,      DType)                      \
  X(Start,      start,      std::int64_t)               \
  X(Stop,       stop,       std::int64_t)               \
  X(Step,       step,       std::int64_t)               \
  X(Index,      index,      std::int64_t)               \
  X(Inline,     inline_,    bool)                       \
  X(Name,       name,       std::string)                \
  X(Slot,       slot,       std::int64_t)               \
  X(Value,      value,      Array)                      \
  X(Path,       path,       std::string)                \
  X(Params,     params,     std::vector<TensorType>)    \
  X(Scan,       scan,       ScanSpec)                   \
  X(Type,       type,       TensorType)                 \
  X(Checkpoint, checkpoint, std::int64_t)
// clang-format on

enum class AttrKey : std::uint8_t {
#define EQSAT_ATTR_ENUM(id, member, type) id,
  EQSAT_ATTRS(EQSAT_ATTR_ENUM)
#undef EQSAT_ATTR_ENUM
};

std::string_view attr_key_name(AttrKey key);
std::optional<AttrKey> parse_attr_key(std::string_view name);

namespace detail {
// The variant of the distinct alternatives of Ts..., a variant among them
// contributing its own alternatives, in order of first appearance.
template <class... Ts>
struct TypeList {};
template <class Out, class... In>
struct FlatUnique;
template <class... Out>
struct FlatUnique<TypeList<Out...>> {
  using type = std::variant<Out...>;
};
// One instantiation per step: the list grows, or not, before recursing
// (choosing between two recursions would instantiate both, 2^n in all).
template <class... Out, class T, class... In>
struct FlatUnique<TypeList<Out...>, T, In...>
    : FlatUnique<std::conditional_t<(std::is_same_v<T, Out> || ...), TypeList<Out...>,
                                    TypeList<Out..., T>>,
                 In...> {};
template <class... Out, class... Vs, class... In>
struct FlatUnique<TypeList<Out...>, std::variant<Vs...>, In...>
    : FlatUnique<TypeList<Out...>, Vs..., In...> {};
}  // namespace detail

// Any attribute's value: one alternative per distinct value type of
// EQSAT_ATTRS (an AxisAttr is stored as its integer or list).
using AttrValue = typename detail::FlatUnique<detail::TypeList<>
#define EQSAT_ATTR_TYPE(id, member, type) , type
                                                  EQSAT_ATTRS(EQSAT_ATTR_TYPE)
#undef EQSAT_ATTR_TYPE
                                              >::type;

bool attr_value_equal(const AttrValue& a, const AttrValue& b);
std::size_t attr_value_hash(const AttrValue& v);

class Attrs {
 public:
  using Entry = std::pair<AttrKey, AttrValue>;

  Attrs() = default;
  Attrs(std::initializer_list<Entry> entries);

  // Sets (or replaces) the value of `key`.
  Attrs& set(AttrKey key, AttrValue value);
  void erase(AttrKey key);
  bool has(AttrKey key) const { return find(key) != nullptr; }
  const AttrValue* find(AttrKey key) const;

  // The value of `key` as T; the key must be present with that type (a
  // missing key or another type is an internal error, never a null read).
  template <class T>
  const T& get(AttrKey key) const {
    const AttrValue* v = find(key);
    EQSAT_ASSERT(v && std::holds_alternative<T>(*v))
        << "attribute :" << attr_key_name(key) << (v ? " has another type" : " is missing");
    return std::get<T>(*v);
  }
  // The value of `key` as T, or `fallback` when absent.
  template <class T>
  T get_or(AttrKey key, T fallback) const {
    const AttrValue* v = find(key);
    return v ? std::get<T>(*v) : fallback;
  }

  const std::vector<Entry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  std::size_t hash() const;
  friend bool operator==(const Attrs& a, const Attrs& b);

 private:
  std::vector<Entry> entries_;  // sorted by key
};

}  // namespace eqsat::ops
