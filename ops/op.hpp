// Ops of the tensor language: the OpKind enum and the catalogue entry of
// each kind (name, group, arity, the facts of op_list.hpp's columns,
// accepted attributes, type rule), all derived from the single declaration
// in op_list.hpp, and one accessor per fact.
#pragma once

#include "attrs.hpp"
#include "op_list.hpp"
#include "type.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace eqsat::ops {

class Term;
using TermRef = const Term*;

enum class OpKind : std::uint8_t {
#define EQSAT_OP_ENUM(id, ...) id,
  EQSAT_OPS(EQSAT_OP_ENUM)
#undef EQSAT_OP_ENUM
};

inline constexpr int kNumOps = 0
#define EQSAT_OP_COUNT(...) +1
    EQSAT_OPS(EQSAT_OP_COUNT)
#undef EQSAT_OP_COUNT
    ;

enum class OpGroup : std::uint8_t {
  Leaf,
  Unary,
  Binary,
  Select,
  Reduction,
  Softmax,
  LinAlg,
  Shape,
  Indexing,
  Creation,
  Control,
  Gradient
};

// What the cost model charges an op for, per element (backend/cost_model).
enum class CostClass : std::uint8_t {
  Free,     // bookkeeping: leaves, fn, get
  Move,     // moves memory only: shape, indexing and creation ops
  Flop,     // one simple flop
  Flop4,    // a division or square root: four flops
  Transc,   // a transcendental function
  Transc2,  // pow, exp(y·log x): priced by its own measured weight
  Select,   // where: converting the condition and blending, its own measured weight
  Gemm,     // a matrix product: 2·m·n·k flops
  Loop,     // a scan: its steps and stored outputs
  Invoke,   // a call: its overhead (the body is costed on its own)
  Never,    // grad: never extracted, expanded first
};

// Which dtypes the executor fuses an op for (backend/function.cpp): a fused
// group evaluates its elementwise ops block by block, and a float reduction
// absorbs the group computing its operand.
enum class Fusion : std::uint8_t {
  NoFuse,
  FuseF,   // f32, f64
  FuseFI,  // f32, f64, i32, i64 (integers wrap around, as their kernels)
};

// How an op takes part in differentiation (rules/autodiff/pullback.hpp).
enum class Differentiability : std::uint8_t {
  Smooth,  // has a pullback (piecewise smooth: abs, maximum, max, ...)
  Zero,    // its value is locally constant or not a float: no cotangent flows back
  // `pullback` throws PullbackError (fn, call, get, grad; scan, whose
  // pullback, a reverse scan, needs the body's and is built by
  // rules/autodiff/gradient.hpp, as is the inlining of calls)
  Unsupported,
};

// When every element of the result is known to be >= 0 (NaN counts as
// >= 0), from the same fact about the operands (rules/tensor_analysis).
enum class SignRule : std::uint8_t {
  AnySign,     // never from the operands
  NonNeg,      // always
  IfFloat,     // always on floats; never on integers, which wrap (abs of
               // the most negative integer is itself, squares overflow)
  IfAll,       // when every operand is
  IfAny,       // when some operand is (maximum)
  IfBranches,  // when both values of a where are
  IfFirst,     // when operand 0 is (its elements are the result's)
};

// Boolean facts of an op, or-ed together in the catalogue's flags column.
using OpFlags = std::uint16_t;
namespace op_flags {
inline constexpr OpFlags NoFlags = 0;
inline constexpr OpFlags Comm = 1 << 0;       // f(a, b) = f(b, a) for every value
inline constexpr OpFlags Keeps = 1 << 1;      // each result element is one of operand 0's
inline constexpr OpFlags SameOrder = 1 << 2;  // operand 0's elements in row-major order
inline constexpr OpFlags Cmp = 1 << 3;        // compares in the promoted dtype, gives bool
inline constexpr OpFlags Logic = 1 << 4;      // reads its operands as bool
inline constexpr OpFlags UnitGrad = 1 << 5;   // pullback: the cotangent times ±1 only
inline constexpr OpFlags Linear = 1 << 6;     // linear in all its operands together
inline constexpr OpFlags Bilinear = 1 << 7;   // linear in each operand, the others fixed
inline constexpr OpFlags AxisWise = 1 << 8;   // works slice by slice along the axes it names
inline constexpr OpFlags Updates = 1 << 9;    // operand 0 with elements written over
inline constexpr OpFlags Promotes = 1 << 10;  // not elementwise, operands of one dtype
}  // namespace op_flags

// A type rule checks the operands and attributes of one application, puts
// the attributes in canonical form (axes normalized, defaults filled in, so
// that equal applications intern to one term) and returns the result type.
// It throws TypeError with a message naming the op.
using TypeRule = Type (*)(OpKind kind, Attrs& attrs, std::span<const TermRef> operands);

// One row of the catalogue.
struct OpInfo {
  std::string_view name;
  OpGroup group;
  int min_arity;
  int max_arity;  // -1: any number
  CostClass cost;
  Fusion fusion;
  Differentiability differentiability;
  SignRule sign;
  OpFlags flags;
  TypeRule rule;
  std::uint32_t attr_mask;  // bit k set: AttrKey k accepted

  bool accepts(AttrKey key) const { return attr_mask >> static_cast<int>(key) & 1u; }
  bool has(OpFlags flag) const { return (flags & flag) != 0; }
};

const OpInfo& op_info(OpKind kind);
inline std::string_view op_name(OpKind kind) {
  return op_info(kind).name;
}

// The op written `name` in graph files; leaves and `fn` are not written as
// ops and are not found.
std::optional<OpKind> parse_op(std::string_view name);

// Checks arity and attribute keys, then applies the op's type rule.
Type check_op(OpKind kind, Attrs& attrs, std::span<const TermRef> operands);

// The facts of the catalogue's columns, one accessor each.

// The reduction that folds binary op `kind` along an axis (EQSAT_FOLDS:
// add sum, mul prod, maximum max, minimum min, logaddexp logsumexp).
std::optional<OpKind> folding_reduction(OpKind kind);

inline bool is_elementwise(OpKind kind) {
  const OpGroup g = op_info(kind).group;
  return g == OpGroup::Unary || g == OpGroup::Binary || g == OpGroup::Select;
}
inline CostClass cost_class(OpKind kind) {
  return op_info(kind).cost;
}
inline Fusion fusion(OpKind kind) {
  return op_info(kind).fusion;
}
inline Differentiability differentiability(OpKind kind) {
  return op_info(kind).differentiability;
}
inline SignRule sign_rule(OpKind kind) {
  return op_info(kind).sign;
}
// f(a, b) = f(b, a) for every value (the rule language's `:comm` swaps
// the operands of these ops on a left side).
inline bool is_commutative(OpKind kind) {
  return op_info(kind).has(op_flags::Comm);
}
// Every element of the result is an element of operand 0 (reshape,
// transpose, broadcast_to, index, slice, ...): a fact about all of
// operand 0's elements (uniform, finite, >= 0) holds for the result.
inline bool keeps_elements(OpKind kind) {
  return op_info(kind).has(op_flags::Keeps);
}
// The result is operand 0's elements in the same row-major order, only
// the shape changes (reshape, expand_dims, squeeze).
inline bool keeps_order(OpKind kind) {
  return op_info(kind).has(op_flags::SameOrder);
}
// eq ne lt le gt ge: compare in the operands' promoted dtype.
inline bool is_comparison(OpKind kind) {
  return op_info(kind).has(op_flags::Cmp);
}
// logical_not, logical_and, logical_or: operands read as bool.
inline bool is_logical(OpKind kind) {
  return op_info(kind).has(op_flags::Logic);
}
// The pullback passes the cotangent on times ±1 (neg, cast, add, sub):
// it never multiplies it by a derivative that could be infinite.
inline bool has_unit_pullback(OpKind kind) {
  return op_info(kind).has(op_flags::UnitGrad);
}
// f(a + b) = f(a) + f(b) and f(c a) = c f(a), with a and b standing for
// all the operands at once (neg, add, sub, sum, mean, the axis moves,
// concat, ...): a sum over loop steps passes through it.
inline bool is_linear(OpKind kind) {
  return op_info(kind).has(op_flags::Linear);
}
// Linear in each operand while the others are fixed (mul, dot).
inline bool is_bilinear(OpKind kind) {
  return op_info(kind).has(op_flags::Bilinear);
}
// Applied to operands with one more leading axis, it is the same op with
// every axis its attributes name moved one place right (:axis k becomes
// k + 1, :perm gains a leading 0): reductions, softmax, transpose,
// expand_dims, squeeze, flip, slice, concat, stack. Elementwise ops have no
// axes to move; the loop vectorizer treats them apart (broadcasting).
inline bool is_axis_wise(OpKind kind) {
  return op_info(kind).has(op_flags::AxisWise);
}
// The result is operand 0 with some elements written from the last operand
// (set_index, inc_index, set_slice, inc_slice): the kernel may write into
// operand 0's buffer, and a literal in either takes the other's dtype.
inline bool updates_first(OpKind kind) {
  return op_info(kind).has(op_flags::Updates);
}
// The operands a literal operand at position i meets, whose dtype it
// takes (weak literals): every operand of an elementwise op or of a
// Promotes op (dot, concat, stack), the two values of where, the target
// and the written value of an Updates op; none for other ops.
std::vector<std::size_t> dtype_peers(OpKind kind, std::size_t arity, std::size_t i);

}  // namespace eqsat::ops
