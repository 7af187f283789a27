// The term builders the pullback tables share (op_pullback.hpp): short
// names for making terms, restoring reduced axes, broadcasting a cotangent
// back, and the few formulas more than one op's pullback reads.
#pragma once

#include "rules/autodiff/pullback.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace eqsat::ops::pullback_terms {

// `k` applied to `xs` with `attrs`.
TermRef mk(OpKind k, std::vector<TermRef> xs, Attrs attrs = {});
// The scalar `v` in `like`'s dtype.
TermRef lit(TermRef like, double v);
const TensorType& type_of(TermRef t);
// True for a tensor (not a tuple) of a float dtype: what a cotangent flows to.
bool is_float_term(TermRef t);

// `g` (the result of reducing over `axes` without keepdims) with those axes
// put back as length 1.
TermRef restore_axes(TermRef g, const IntList& axes);
// `g` broadcast to `like`'s shape (and dtype kept).
TermRef broadcast_like(TermRef g, TermRef like);
// A reduction's cotangent, or its value, with the reduced axes restored
// (its keepdims form).
TermRef keepdims_cotangent(TermRef y, TermRef g);
TermRef keepdims_value(TermRef y);
// The number of elements a reduction of `x` over `axes` combines, as a
// float scalar of `dtype`.
TermRef reduced_count(TermRef x, const IntList& axes, DType dtype);
// `x` with its last two axes swapped.
TermRef swap_last(TermRef x);
// A reshape target for `t`: its dims with at most one unknown written -1;
// a PullbackError for several.
IntList reshape_target(const TensorType& t);
// Operand i's part of the cotangent `g` of `y = concat(...)` when the
// lengths around it are known only at run time.
TermRef concat_part(TermRef y, TermRef g, std::size_t i);
// The slice attributes (axis, start, stop, step) among `a`.
Attrs slice_attrs(const Attrs& a);
// d prod(x) / d x_i over `axes`, without dividing by a zero.
TermRef prod_of_others(TermRef x, const IntList& axes);
// How many axes of operand `x` of elementwise `y` no other operand can
// have broadcast: all of them when each other operand is `x` itself or a
// scalar (unbroadcast then needs no run-time decision), else none.
std::int64_t unbroadcast_axes_fixed(TermRef y, TermRef x);

}  // namespace eqsat::ops::pullback_terms
