// The pullbacks as a table, one entry per Smooth op of the catalogue,
// written as a specialization `template <> struct Pullback<OpKind::Exp>`
// (as the backend's kernel tables are, ops/op_dispatch.hpp). pullback()
// reaches an op's entry through dispatch_op only when the catalogue's grad
// column says Smooth, so a Smooth op without an entry does not compile and
// the other ops need none. What an entry provides depends on the op's group
// (pullback.cpp applies what the group shares: the float checks and undoing
// the broadcast of elementwise operands):
//   Unary      static TermRef cotangent(TermRef y, TermRef x, TermRef g):
//              the cotangent of x in y's shape
//   Binary     static Cotangents2 cotangents(TermRef y, TermRef a, TermRef b,
//              TermRef g): the cotangents of a and b in y's shape
//   Reduction  static TermRef cotangent(const Reduced& r): x's cotangent
//   others     static std::vector<TermRef> cotangents(TermRef y, TermRef g):
//              the whole pullback contract (pullback.hpp)
// The entries are in elementwise_pullbacks.hpp, reduction_pullbacks.hpp and
// shape_pullbacks.hpp.
#pragma once

#include "rules/autodiff/pullback_terms.hpp"

namespace eqsat::ops {

template <OpKind K>
struct Pullback;

// A binary op's two cotangents, before broadcasting is undone.
struct Cotangents2 {
  TermRef a, b;
};

// What a reduction's pullback reads: y = K(x) over `axes`, the cotangent
// `g` of y, and both with the reduced axes restored (keepdims form).
struct Reduced {
  TermRef y, x, g;
  const IntList& axes;
  TermRef g_kept, y_kept;
};

}  // namespace eqsat::ops
