// Strong id types of the e-graph: e-class ids, e-node ids and interned
// symbols are distinct 32-bit types, so one can never be passed for another.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>

namespace eqsat::egraph {

// A 32-bit index tagged with what it indexes. Default-constructed ids are
// invalid (`!id.valid()`); ids compare and hash by value.
template <class Tag>
class StrongId {
 public:
  constexpr StrongId() = default;
  constexpr explicit StrongId(std::uint32_t value) : value_(value) {}

  constexpr std::uint32_t value() const { return value_; }
  constexpr std::size_t index() const { return value_; }
  constexpr bool valid() const { return value_ != kInvalid; }

  friend constexpr auto operator<=>(StrongId, StrongId) = default;

 private:
  static constexpr std::uint32_t kInvalid = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t value_ = kInvalid;
};

struct EClassTag;
struct ENodeTag;

// An e-class; canonical when it is its own union-find root.
using EClassId = StrongId<EClassTag>;
// One e-node of the e-graph (an operator, a payload and children e-classes).
using ENodeId = StrongId<ENodeTag>;

// The opaque payload an e-node carries besides its operator: the language
// decides what it means (an interned attribute set, a literal's value...).
using Payload = std::uint64_t;

}  // namespace eqsat::egraph

template <class Tag>
struct std::hash<eqsat::egraph::StrongId<Tag>> {
  std::size_t operator()(eqsat::egraph::StrongId<Tag> id) const noexcept {
    return std::hash<std::uint32_t>{}(id.value());
  }
};
