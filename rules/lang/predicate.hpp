// The condition predicates of rule files (`:when ((nonzero ?x))`), declared
// once in EQSAT_PREDICATES: name, argument kinds and meaning. The rule
// checker (arity, argument kinds) and the evaluator over the tensor analysis
// both derive from this table; rules/README.md lists it for rule authors.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace eqsat::rules {

// Argument kinds, one character each in a signature:
//   t  a term variable bound by the left side (`?x`)
//   i  an integer literal from 0 to kMaxConditionInt (a rank: the rule
//      checker draws operands of that rank, so it is bounded)
//   d  a dtype name (`bool i32 i64 f32 f64`)
// Every predicate is conservative: it holds only when the analysis proves it,
// so "unknown" reads as false and the guarded rule does not fire.
// clang-format off
#define EQSAT_PREDICATES(X)                                                                    \
  X(Const,        "const",         "t",  "its value is a constant known while optimizing")     \
  X(Uniform,      "uniform",       "t",  "every element equals one value known while optimizing") \
  X(Finite,       "finite",        "t",  "no element is infinite or NaN (integer and bool tensors, finite constants)") \
  X(Nonzero,      "nonzero",       "t",  "no element is 0 (a constant without zeros)")          \
  X(Zero,         "zero",          "t",  "every element is 0 (a constant or fill known while optimizing)") \
  X(Positive,     "positive",      "t",  "every element is > 0 (a positive constant)")         \
  X(Nonneg,       "nonneg",        "t",  "no element is < 0; NaN may occur (abs, square, sqrt, exp, softplus, sigmoid, softmax, nonneg constants, unsigned sums and products of these)") \
  X(Identity,     "identity",      "t",  "a constant square matrix with ones on the diagonal and zeros elsewhere") \
  X(SameType,     "same-type",     "tt", "same dtype and, provably, the same shape at run time (the same e-class, or each length equal: static, or one dim symbol)") \
  X(SameDtype,    "same-dtype",    "tt", "both have the same dtype")                           \
  X(BroadcastsTo, "broadcasts-to", "tt", "broadcasting the first against the second gives, provably, the second's shape at run time (lengths static or of one dim symbol)") \
  X(Ndim,         "ndim",          "ti", "its rank is exactly the integer")                    \
  X(NdimAtLeast,  "ndim-at-least", "ti", "its rank is at least the integer")                   \
  X(Scalar,       "scalar",        "t",  "its rank is 0")                                      \
  X(ShapeKnown,   "shape-known",   "t",  "every dimension of its shape is known statically")   \
  X(Float,        "float",         "t",  "its dtype is f32 or f64")                            \
  X(Integer,      "integer",       "t",  "its dtype is i32 or i64")                            \
  X(Dtype,        "dtype",         "td", "its dtype is exactly the named one")                 \
  X(Closed,       "closed",        "t",  "it uses no nominal of an enclosing body (loop-invariant)") \
  X(InBounds,     "in-bounds",     "tt", "the first is a constant integer scalar i and the second's axis 0 has a static length n with -n <= i < n")
// clang-format on

// The largest integer argument of a condition (`(ndim ?x 16)`).
inline constexpr std::int64_t kMaxConditionInt = 16;

enum class Predicate : std::uint8_t {
#define EQSAT_PREDICATE_ENUM(id, name, args, doc) id,
  EQSAT_PREDICATES(EQSAT_PREDICATE_ENUM)
#undef EQSAT_PREDICATE_ENUM
};

// One entry of the table.
struct PredicateInfo {
  std::string_view name;
  std::string_view signature;  // one argument kind per character, see above
  std::string_view doc;
};

const PredicateInfo& predicate_info(Predicate p);
std::optional<Predicate> parse_predicate(std::string_view name);
// Number of predicates; `static_cast<Predicate>(i)` for i below it lists them in table order.
int num_predicates();

}  // namespace eqsat::rules
