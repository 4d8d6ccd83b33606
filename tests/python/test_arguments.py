"""Loose arguments are refused, not silently reinterpreted: a shape of floats or bools (2.9 became
2), alpha/beta that are not finite real numbers ('2' was accepted), and stream= with a host operand
(silently ignored before; now a warning that says so)."""

import warnings

import numpy as np
import pytest

import spx
from conftest import random_scipy


@pytest.mark.parametrize("shape", [(2.9, 2), (2, 2.0), (True, 2), (2, np.float64(2)), ("2", 2)])
def test_shapes_must_be_integers(shape):
    with pytest.raises(TypeError, match="must be integers"):
        spx.Matrix((np.ones(1), np.array([0]), np.array([0, 1, 1])), shape=shape)


@pytest.mark.parametrize("shape, message", [((-2, 2), "negative"), ((2**31, 2), "32-bit"), ((2,), "rows, cols")])
def test_shapes_out_of_range(shape, message):
    with pytest.raises(ValueError, match=message):
        spx.Matrix((np.ones(1), np.array([0]), np.array([0, 1, 1])), shape=shape)


def test_numpy_integer_shapes_are_accepted():
    A = spx.Matrix((np.ones(1), np.array([0]), np.array([0, 1, 1])), shape=(np.int64(2), np.int32(3)))
    assert A.shape == (2, 3) and all(type(n) is int for n in A.shape)


@pytest.mark.parametrize("bad, error", [("2", TypeError), (1 + 2j, TypeError), (None, TypeError),
                                        (np.array([1.0, 2.0]), TypeError), (float("nan"), ValueError),
                                        (float("inf"), ValueError), (np.float32("nan"), ValueError)])
def test_alpha_and_beta_must_be_finite_real_numbers(bad, error):
    A = spx.Matrix(random_scipy(5, 4, 0.5, 31))
    x, out = np.ones(4), np.zeros(5)
    with pytest.raises(error, match="alpha"):
        spx.spmv(A, x, out=out, alpha=bad)
    with pytest.raises(error, match="beta"):
        spx.spmv(A, x, out=out, beta=bad)
    with pytest.raises(error, match="alpha"):
        spx.spmm(A, np.ones((4, 2)), out=np.zeros((5, 2)), alpha=bad)


@pytest.mark.parametrize("good", [2, 2.0, np.float32(2), np.int64(2), np.array(2.0)])
def test_real_scalars_of_every_kind_are_accepted(good):
    S = random_scipy(5, 4, 0.5, 32)
    A = spx.Matrix(S)
    x = np.arange(4.0)
    assert np.allclose(spx.spmv(A, x, alpha=good), 2 * (S @ x))


def test_stream_with_a_host_operand_warns():
    S = random_scipy(5, 4, 0.5, 33)
    A = spx.Matrix(S)
    with pytest.warns(UserWarning, match="stream= is ignored: x is in host memory"):
        y = spx.spmv(A, np.ones(4), stream=0)
    assert np.allclose(y, S @ np.ones(4))
    with pytest.warns(UserWarning, match="stream= is ignored: X is in host memory"):
        spx.spmm(A, np.ones((4, 2)), stream=12345)
    with pytest.warns(UserWarning, match="stream= is ignored: b is in host memory"):
        spx.cg(spx.generate("stencil2d:n=4"), np.ones(16), stream=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spx.spmv(A, np.ones(4))  # no stream, no warning
