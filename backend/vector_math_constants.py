#!/usr/bin/env python3
"""Prints the constants of our own vector exp, sin, cos and tanh
(vector_exp.cpp, vector_sin_cos.cpp, vector_tanh_f64.cpp) as C++ hex-float literals, from 200-bit arithmetic
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
"""
from mpmath import mp, mpf, log, pi, factorial, taylor, tanh

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


show("ln2/16 (hi, lo)", split(log(2) / 16, 2))
show("16/ln2", [nearest(16 / log(2))])
show("2^(j/16) hi", [split(mpf(2) ** (mpf(j) / 16), 2)[0] for j in range(16)])
show("2^(j/16) lo", [split(mpf(2) ** (mpf(j) / 16), 2)[1] for j in range(16)])
show("1/k!, k = 3..7", [nearest(1 / factorial(k)) for k in range(3, 8)])
show("pi/2 (three parts)", split(pi / 2, 3))
show("2/pi", [nearest(2 / pi)])
show("tanh, x^3 .. x^15", [nearest(c) for c in taylor(tanh, 0, 15)[3::2]])
