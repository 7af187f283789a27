// Attributes of an op: a small map from key to value, kept sorted by key so
// that equal attribute sets compare and hash equal (hash-consing relies on
// it). Keys written in graph files (`:axis`) and internal ones (the slot of a
// nominal, the value of a constant, the layout of a scan) share one schema.
#pragma once

#include "array.hpp"
#include "type.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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

// The attribute keys. Each key's keyword and value type are declared once,
// in AttrSchema (attr_schema.hpp); the enumerators name its members in
// order, so code can switch on a key (attrs.cpp checks each name).
// clang-format off
#define EQSAT_ATTR_KEYS(X) \
  X(Axis) X(Keepdims) X(Shape) X(Perm) X(Dtype) X(Start) X(Stop) X(Step) X(Index) X(Inline) \
  X(Name) X(Slot) X(Value) X(Path) X(Params) X(Scan) X(Type) X(Checkpoint)
// clang-format on

enum class AttrKey : std::uint8_t {
#define EQSAT_ATTR_ENUM(id) id,
  EQSAT_ATTR_KEYS(EQSAT_ATTR_ENUM)
#undef EQSAT_ATTR_ENUM
};

std::string_view attr_key_name(AttrKey key);
std::optional<AttrKey> parse_attr_key(std::string_view name);

using AttrValue = std::variant<bool, std::int64_t, double, std::string, DType, IntList, TensorType,
                               std::vector<TensorType>, ScanSpec, Array>;

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

  // The value of `key` as T; the key must be present with that type.
  template <class T>
  const T& get(AttrKey key) const {
    return std::get<T>(*find(key));
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
