"""NumPy inputs are cast to an input's dtype only where no value changes
(tools/python/arrays.cpp): otherwise one eqsat.Error names the input and
the value."""
import numpy as np
import pytest

import eqsat


def program(dtype):
    x = eqsat.input("x", dtype, (None,))
    return eqsat.compile(eqsat.Graph.build(x + 1))


def test_an_int64_that_does_not_fit_i32_is_refused():
    with pytest.raises(eqsat.Error, match=r"input 'x': the value 1099511627776 .* does not fit i32"):
        program("i32")(x=np.array([1, 2, 2 ** 40]))


def test_int64_values_that_fit_i32_are_cast():
    got = program("i32")(x=np.array([1, 2, -(2 ** 31)], dtype=np.int64))
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, np.array([2, 3, -(2 ** 31) + 1], dtype=np.int32))


def test_a_float64_beyond_float32s_range_is_refused():
    with pytest.raises(eqsat.Error, match=r"input 'x': the value 1e\+300 .* does not fit f32 "
                                          r"\(beyond its range\)"):
        program("f32")(x=np.array([1.0, 1e300]))


def test_float64_to_float32_rounds_and_keeps_inf_and_nan():
    got = program("f32")(x=np.array([0.1, np.inf, -np.inf, np.nan]))
    assert got.dtype == np.float32
    assert got[0] == np.float32(0.1) + np.float32(1)
    assert np.isposinf(got[1]) and np.isneginf(got[2]) and np.isnan(got[3])


def test_integers_too_large_for_an_exact_float_are_refused():
    with pytest.raises(eqsat.Error, match=r"input 'x': the value 9007199254740993"):
        program("f64")(x=np.array([2 ** 53 + 1], dtype=np.int64))
    np.testing.assert_array_equal(program("f64")(x=np.array([2 ** 53], dtype=np.int64)),
                                  [2.0 ** 53 + 1])


def test_float_into_an_integer_input_is_refused():
    with pytest.raises(eqsat.Error, match=r"input 'x': cannot cast an array of float64 to i64"):
        program("i64")(x=np.array([1.5]))


def test_python_lists_and_scalars_follow_the_same_rule():
    np.testing.assert_array_equal(program("i64")(x=[1, 2]), [2, 3])
    with pytest.raises(eqsat.Error, match="input 'x'"):
        program("i32")(x=[2 ** 40])
