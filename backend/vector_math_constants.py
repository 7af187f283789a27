#!/usr/bin/env python3
"""Prints the constants of our own vector exp, sin, cos and tanh
(vector_exp.cpp, vector_sin_cos.cpp, vector_tanh_f64.cpp) and of the f32
tanh and sigmoid (vector_exp_f32_lanes.hpp, vector_tanh.cpp) as C++ hex-float literals, from 200-bit arithmetic
(mpmath, Debian's python3-mpmath). Run: python3 backend/vector_math_constants.py

- exp: ln2/16 as a double and the double nearest the rest (Cody-Waite), the
  table 2^(j/16) for j = 0..15 as the nearest double plus the double nearest
  the rest, and the Taylor coefficients 1/k! of exp(r) - 1 (degree 7: on
  |r| <= ln2/32 the first term left out, r^8/8!, is below 2^-59).
- sin, cos: pi/2 as three doubles, each the nearest to what the ones before
  leave (Cody-Waite with 159 bits), and 2/pi. The polynomials are fdlibm's
  (k_sin.c, k_cos.c), cited where they are used.
- tanh: Taylor's coefficients of tanh(x) for x^3 .. x^15 (on |x| < 1/8 the
  first term left out is below 2^-58 |x|).
- f32: ln2 as a float and the float nearest the rest, 1/ln2 as a float;
  Q, the polynomial of degree 4 nearest (minimax, relative error, Remez)
  to (exp(r) - 1 - r) / r^2 on |r| <= 0.3467 (ln2/2 and a little); P, of
  degree 4 nearest to (tanh(a) - a) / a^3 as a polynomial in a^2, on
  0 <= a <= 0.55. Each fit prints its worst relative error (before the
  coefficients are rounded to float).
"""
from mpmath import mp, mpf, log, pi, factorial, taylor, tanh, exp, sqrt, cos, matrix, lu_solve

mp.prec = 200


def nearest(v):
    """The double nearest to v, as a Python float (mpmath rounds to nearest)."""
    return float(mp.mpf(v))


def split(v, parts):
    """v as `parts` doubles, each the nearest to what the ones before leave."""
    out = []
    for _ in range(parts):
        d = nearest(v)
        out.append(d)
        v = v - mpf(d)
    return out


def show(name, values):
    print("%s = {%s};" % (name, ", ".join(v.hex() for v in values)))


def nearest_float(v):
    """The float nearest to v, as a Python float (24 bits, rounded to nearest)."""
    with mp.workprec(24):
        return float(+v)


def show_f32(name, values):
    print("%s = {%s};" % (name, ", ".join(v.hex().replace("0000000p", "p") + "f" for v in values)))


def remez(f, w, a, b, n, grid=600, rounds=30):
    """The coefficients c[0..n] of the polynomial p of degree n with the least
    max |(f - p) / w| on [a, b] (Remez's exchange on a grid), and that max."""
    a, b = mpf(a), mpf(b)
    ref = [(a + b) / 2 - (b - a) / 2 * cos(pi * i / (n + 1)) for i in range(n + 2)]
    xs = [a + (b - a) * i / grid for i in range(grid + 1)]
    fx, wx = [f(x) for x in xs], [w(x) for x in xs]
    for _ in range(rounds):
        m = matrix(n + 2, n + 2)
        rhs = matrix(n + 2, 1)
        for i, x in enumerate(ref):
            for j in range(n + 1):
                m[i, j] = x**j
            m[i, n + 1] = (-1) ** i * w(x)
            rhs[i] = f(x)
        sol = lu_solve(m, rhs)
        c = [sol[j] for j in range(n + 1)]
        err = [(fv - sum(cj * x**j for j, cj in enumerate(c))) / wv for x, fv, wv in zip(xs, fx, wx)]
        # The extremum of each run of one sign; then the window of n + 2 of
        # them whose least is largest.
        ext, start = [], 0
        for i in range(1, len(err) + 1):
            if i == len(err) or (err[i] > 0) != (err[start] > 0):
                ext.append(max(range(start, i), key=lambda j: abs(err[j])))
                start = i
        if len(ext) < n + 2:
            break
        ext = max((ext[i:i + n + 2] for i in range(len(ext) - n - 1)),
                  key=lambda win: min(abs(err[j]) for j in win))
        ref = [xs[j] for j in ext]
    return c, max(abs(e) for e in err)


def expm1_q(r):
    """(exp(r) - 1 - r) / r^2, by its series near 0."""
    if abs(r) < mpf(10) ** -8:
        return mpf(1) / 2 + r / 6 + r**2 / 24
    return (exp(r) - 1 - r) / r**2


def tanh_p(z):
    """(tanh(a) - a) / a^3 for a = sqrt(z)."""
    if z == 0:
        return mpf(-1) / 3
    a = sqrt(z)
    return (tanh(a) - a) / (z * a)


show("ln2/16 (hi, lo)", split(log(2) / 16, 2))
show("16/ln2", [nearest(16 / log(2))])
show("2^(j/16) hi", [split(mpf(2) ** (mpf(j) / 16), 2)[0] for j in range(16)])
show("2^(j/16) lo", [split(mpf(2) ** (mpf(j) / 16), 2)[1] for j in range(16)])
show("1/k!, k = 3..7", [nearest(1 / factorial(k)) for k in range(3, 8)])
show("pi/2 (three parts)", split(pi / 2, 3))
show("2/pi", [nearest(2 / pi)])
show("tanh, x^3 .. x^15", [nearest(c) for c in taylor(tanh, 0, 15)[3::2]])
ln2_hi = nearest_float(log(2))
show_f32("f32 ln2 (hi, lo)", [ln2_hi, nearest_float(log(2) - mpf(ln2_hi))])
show_f32("f32 1/ln2", [nearest_float(1 / log(2))])
with mp.workprec(100):
    q, q_err = remez(expm1_q, lambda r: abs(expm1_q(r)), -mpf("0.3467"), mpf("0.3467"), 4)
    p, p_err = remez(tanh_p, lambda z: abs(tanh_p(z)), 0, mpf("0.55") ** 2, 4)
show_f32("f32 Q, r^0 .. r^4 (relative error 2^%.1f)" % float(log(q_err, 2)), [nearest_float(c) for c in q])
show_f32("f32 P, z^0 .. z^4 for z = a^2 (relative error 2^%.1f)" % float(log(p_err, 2)), [nearest_float(c) for c in p])
