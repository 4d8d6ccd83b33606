"""An out that shares memory with the input (out=x, overlapping views, spmm with out=X): spx computes
through a copy of the input, so the result is scipy's, whatever beta and the precision
(docs/python.md, "Aliasing"). Before the copy, spmv(A, x, out=x) returned wrong numbers silently."""

import numpy as np
import pytest

import spx
from conftest import expect_product, random_scipy

DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("beta", [0.0, 0.5])
def test_spmv_out_is_x(dtype, beta, rng):
    S = random_scipy(40, 40, 0.3, 1, dtype)
    A = spx.Matrix(S)
    x0 = rng.uniform(-1, 1, 40).astype(dtype)
    x = x0.copy()
    r = spx.spmv(A, x, out=x, alpha=1.5, beta=beta)
    assert r is x
    expect_product(S, x0, x, dtype, alpha=1.5, beta=beta, Y0=x0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("beta", [0.0, -2.0])
@pytest.mark.parametrize("shift", [1, 7, -5])
def test_spmv_out_a_view_overlapping_x(dtype, beta, shift, rng):
    """x and out are windows of one buffer, `shift` entries apart (partial overlap)."""
    n = 50
    S = random_scipy(n, n, 0.2, 2, dtype)
    A = spx.Matrix(S)
    buf = rng.uniform(-1, 1, n + abs(shift)).astype(dtype)
    xs, os_ = (slice(0, n), slice(shift, shift + n)) if shift > 0 else (slice(-shift, n - shift), slice(0, n))
    x, out = buf[xs], buf[os_]
    x0, y0 = x.copy(), out.copy()
    spx.spmv(A, x, out=out, beta=beta)
    expect_product(S, x0, out, dtype, beta=beta, Y0=y0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_spmv_strided_views_of_one_array(dtype, rng):
    """Interleaved views (even entries in, odd entries out) and a reversed view of x as out."""
    n = 30
    S = random_scipy(n, n, 0.3, 3, dtype)
    A = spx.Matrix(S)
    buf = rng.uniform(-1, 1, 2 * n).astype(dtype)
    x, out = buf[0::2], buf[1::2]
    x0, y0 = x.copy(), out.copy()
    spx.spmv(A, x, out=out, beta=1.0)
    expect_product(S, x0, out, dtype, beta=1.0, Y0=y0)
    x = rng.uniform(-1, 1, n).astype(dtype)
    x0 = x.copy()
    spx.spmv(A, x, out=x[::-1])
    expect_product(S, x0, x[::-1], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("beta", [0.0, 0.75])
def test_spmm_out_is_X(dtype, order, beta, rng):
    S = random_scipy(33, 33, 0.2, 4, dtype)
    A = spx.Matrix(S)
    X0 = np.asarray(rng.uniform(-1, 1, (33, 5)), dtype=dtype, order=order)
    X = X0.copy(order=order)
    r = spx.spmm(A, X, out=X, alpha=-1.0, beta=beta)
    assert r is X
    expect_product(S, X0, X, dtype, alpha=-1.0, beta=beta, Y0=X0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_spmm_out_overlapping_X(dtype, rng):
    """out and X are column windows of one C-order buffer, two columns apart."""
    S = random_scipy(20, 20, 0.3, 5, dtype)
    A = spx.Matrix(S)
    buf = rng.uniform(-1, 1, (20, 6)).astype(dtype)
    X, out = buf[:, 0:4], buf[:, 2:6]
    X0, Y0 = X.copy(), out.copy()
    spx.spmm(A, X, out=out, beta=0.5)
    expect_product(S, X0, out, dtype, beta=0.5, Y0=Y0)


def test_disjoint_out_is_not_copied_and_still_right(rng):
    """Two halves of one buffer do not overlap: no copy is needed and the result is exact."""
    S = random_scipy(10, 10, 0.4, 6)
    A = spx.Matrix(S)
    buf = rng.uniform(-1, 1, 20)
    x, out = buf[:10], buf[10:]
    assert not np.may_share_memory(x, out)
    x0 = x.copy()
    spx.spmv(A, x, out=out)
    expect_product(S, x0, out, np.float64)
