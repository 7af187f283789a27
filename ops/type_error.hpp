// The error thrown when an op is applied to operands of the wrong type,
// shape or arity, or with a bad attribute. It carries the message and, when
// known, which operand or attribute is at fault; the parser turns that into
// a source position (`FILE:LINE:COL: error: MESSAGE`).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace eqsat::ops {

enum class AttrKey : std::uint8_t;

class TypeError : public std::runtime_error {
 public:
  explicit TypeError(const std::string& message) : std::runtime_error(message) {}

  // Marks operand `i` (0-based) or attribute `key` as the culprit.
  TypeError& about_operand(int i) {
    operand_ = i;
    return *this;
  }
  TypeError& about_attr(AttrKey key) {
    attr_ = key;
    return *this;
  }
  // The culprit operand, or -1 when the error concerns the whole application.
  int operand() const { return operand_; }
  std::optional<AttrKey> attr() const { return attr_; }

 private:
  int operand_ = -1;
  std::optional<AttrKey> attr_;
};

}  // namespace eqsat::ops
