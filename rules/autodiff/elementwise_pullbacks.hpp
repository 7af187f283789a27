// The pullback table's entries for elementwise ops (pullback_table.hpp):
// unary and binary ops, cast and where.
#pragma once

#include "rules/autodiff/pullback_table.hpp"

#include <limits>

namespace eqsat::ops {

// The unary ops: x's cotangent in y's shape.

template <>
struct Pullback<OpKind::Neg> {
  static TermRef cotangent(TermRef, TermRef, TermRef g) {
    return pullback_terms::mk(OpKind::Neg, {g});
  }
};

template <>
struct Pullback<OpKind::Abs> {
  static TermRef cotangent(TermRef, TermRef x, TermRef g) {
    using pullback_terms::mk;
    return mk(OpKind::Mul, {g, mk(OpKind::Sign, {x})});
  }
};

template <>
struct Pullback<OpKind::Square> {
  static TermRef cotangent(TermRef, TermRef x, TermRef g) {
    using namespace pullback_terms;
    return mk(OpKind::Mul, {g, mk(OpKind::Mul, {x, lit(g, 2)})});
  }
};

template <>
struct Pullback<OpKind::Exp> {
  static TermRef cotangent(TermRef y, TermRef, TermRef g) {
    return pullback_terms::mk(OpKind::Mul, {g, y});
  }
};

template <>
struct Pullback<OpKind::Expm1> {
  static TermRef cotangent(TermRef y, TermRef, TermRef g) {
    using namespace pullback_terms;
    return mk(OpKind::Mul, {g, mk(OpKind::Add, {y, lit(g, 1)})});
  }
};

template <>
struct Pullback<OpKind::Log> {
  static TermRef cotangent(TermRef, TermRef x, TermRef g) {
    return pullback_terms::mk(OpKind::Div, {g, x});
  }
};

template <>
struct Pullback<OpKind::Log1p> {
  static TermRef cotangent(TermRef, TermRef x, TermRef g) {
    using namespace pullback_terms;
    return mk(OpKind::Div, {g, mk(OpKind::Add, {x, lit(g, 1)})});
  }
};

template <>
struct Pullback<OpKind::Sqrt> {
  static TermRef cotangent(TermRef y, TermRef, TermRef g) {
    using namespace pullback_terms;
    return mk(OpKind::Div, {g, mk(OpKind::Mul, {y, lit(g, 2)})});
  }
};

template <>
struct Pullback<OpKind::Reciprocal> {
  static TermRef cotangent(TermRef y, TermRef, TermRef g) {
    using pullback_terms::mk;
    return mk(OpKind::Neg, {mk(OpKind::Mul, {g, mk(OpKind::Square, {y})})});
  }
};

template <>
struct Pullback<OpKind::Sin> {
  static TermRef cotangent(TermRef, TermRef x, TermRef g) {
    using pullback_terms::mk;
    return mk(OpKind::Mul, {g, mk(OpKind::Cos, {x})});
  }
};

template <>
struct Pullback<OpKind::Cos> {
  static TermRef cotangent(TermRef, TermRef x, TermRef g) {
    using pullback_terms::mk;
    return mk(OpKind::Neg, {mk(OpKind::Mul, {g, mk(OpKind::Sin, {x})})});
  }
};

template <>
struct Pullback<OpKind::Tanh> {
  static TermRef cotangent(TermRef y, TermRef, TermRef g) {
    using namespace pullback_terms;
    return mk(OpKind::Mul, {g, mk(OpKind::Sub, {lit(g, 1), mk(OpKind::Square, {y})})});
  }
};

// d erf(x) = 2/√π · e^(−x²): 0 at ±∞, where the product with a finite
// cotangent stays 0.
template <>
struct Pullback<OpKind::Erf> {
  static TermRef cotangent(TermRef, TermRef x, TermRef g) {
    using namespace pullback_terms;
    constexpr double kTwoOverSqrtPi = 1.1283791670955126;  // 2/√π
    return mk(OpKind::Mul, {g, mk(OpKind::Mul, {lit(g, kTwoOverSqrtPi),
                                                mk(OpKind::Exp, {mk(OpKind::Neg, {mk(OpKind::Square, {x})})})})});
  }
};

template <>
struct Pullback<OpKind::Sigmoid> {
  static TermRef cotangent(TermRef y, TermRef, TermRef g) {
    using namespace pullback_terms;
    return mk(OpKind::Mul, {g, mk(OpKind::Mul, {y, mk(OpKind::Sub, {lit(g, 1), y})})});
  }
};

template <>
struct Pullback<OpKind::Softplus> {
  static TermRef cotangent(TermRef, TermRef x, TermRef g) {
    using pullback_terms::mk;
    return mk(OpKind::Mul, {g, mk(OpKind::Sigmoid, {x})});
  }
};

// d/dx log(1 − eˣ) = −1 / expm1(−x), −∞ at x = ±0 (PyTensor).
template <>
struct Pullback<OpKind::Log1mexp> {
  static TermRef cotangent(TermRef, TermRef x, TermRef g) {
    using namespace pullback_terms;
    return mk(
        OpKind::Mul,
        {g, mk(OpKind::Where,
               {mk(OpKind::Eq, {x, lit(x, 0)}), lit(g, -std::numeric_limits<double>::infinity()),
                mk(OpKind::Neg,
                   {mk(OpKind::Reciprocal, {mk(OpKind::Expm1, {mk(OpKind::Neg, {x})})})})})});
  }
};

// The cotangent passes unchanged; unbroadcast casts it back to x's dtype.
template <>
struct Pullback<OpKind::Cast> {
  static TermRef cotangent(TermRef, TermRef, TermRef g) { return g; }
};

// The binary ops: both operands' cotangents in y's shape.

template <>
struct Pullback<OpKind::Add> {
  static Cotangents2 cotangents(TermRef, TermRef, TermRef, TermRef g) { return {g, g}; }
};

template <>
struct Pullback<OpKind::Sub> {
  static Cotangents2 cotangents(TermRef, TermRef, TermRef, TermRef g) {
    return {g, pullback_terms::mk(OpKind::Neg, {g})};
  }
};

template <>
struct Pullback<OpKind::Mul> {
  static Cotangents2 cotangents(TermRef, TermRef a, TermRef b, TermRef g) {
    using pullback_terms::mk;
    return {mk(OpKind::Mul, {g, b}), mk(OpKind::Mul, {g, a})};
  }
};

template <>
struct Pullback<OpKind::Div> {
  static Cotangents2 cotangents(TermRef y, TermRef, TermRef b, TermRef g) {
    using pullback_terms::mk;
    return {mk(OpKind::Div, {g, b}),
            mk(OpKind::Neg, {mk(OpKind::Div, {mk(OpKind::Mul, {g, y}), b})})};
  }
};

// d(aᵇ)/db = aᵇ log a, taken as 0 at a = 0 (PyTensor's convention; the
// formula gives 0 · −∞ = NaN).
template <>
struct Pullback<OpKind::Pow> {
  static Cotangents2 cotangents(TermRef y, TermRef a, TermRef b, TermRef g) {
    using namespace pullback_terms;
    return {mk(OpKind::Mul,
               {g, mk(OpKind::Mul, {b, mk(OpKind::Pow, {a, mk(OpKind::Sub, {b, lit(g, 1)})})})}),
            mk(OpKind::Where, {mk(OpKind::Eq, {a, lit(a, 0)}), lit(g, 0),
                               mk(OpKind::Mul, {g, mk(OpKind::Mul, {y, mk(OpKind::Log, {a})})})})};
  }
};

// d/da = exp(a − y) <= 1: no overflow.
template <>
struct Pullback<OpKind::Logaddexp> {
  static Cotangents2 cotangents(TermRef y, TermRef a, TermRef b, TermRef g) {
    using pullback_terms::mk;
    return {mk(OpKind::Mul, {g, mk(OpKind::Exp, {mk(OpKind::Sub, {a, y})})}),
            mk(OpKind::Mul, {g, mk(OpKind::Exp, {mk(OpKind::Sub, {b, y})})})};
  }
};

// d/da √(a² + b²) = a / y (NaN at a = b = 0, as PyTensor).
template <>
struct Pullback<OpKind::Hypot> {
  static Cotangents2 cotangents(TermRef y, TermRef a, TermRef b, TermRef g) {
    using pullback_terms::mk;
    return {mk(OpKind::Mul, {g, mk(OpKind::Div, {a, y})}),
            mk(OpKind::Mul, {g, mk(OpKind::Div, {b, y})})};
  }
};

// maximum and minimum: the cotangent goes to the operand chosen, a tie to
// the first.
template <OpKind Compare>
struct ChosenOperandPullback {
  static Cotangents2 cotangents(TermRef, TermRef a, TermRef b, TermRef g) {
    using namespace pullback_terms;
    TermRef first = mk(Compare, {a, b});
    return {mk(OpKind::Where, {first, g, lit(g, 0)}), mk(OpKind::Where, {first, lit(g, 0), g})};
  }
};
template <>
struct Pullback<OpKind::Maximum> : ChosenOperandPullback<OpKind::Ge> {};
template <>
struct Pullback<OpKind::Minimum> : ChosenOperandPullback<OpKind::Le> {};

// where(c, a, b): the cotangent goes to the branch chosen; none to c.
template <>
struct Pullback<OpKind::Where> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    using namespace pullback_terms;
    TermRef a = y->operand(1), b = y->operand(2), c = y->operand(0);
    TermRef zero = lit(g, 0);
    return {nullptr,
            is_float_term(a)
                ? unbroadcast(mk(OpKind::Where, {c, g, zero}), a, unbroadcast_axes_fixed(y, a))
                : nullptr,
            is_float_term(b)
                ? unbroadcast(mk(OpKind::Where, {c, zero, g}), b, unbroadcast_axes_fixed(y, b))
                : nullptr};
  }
};

}  // namespace eqsat::ops
