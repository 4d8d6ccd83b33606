"""A @ x, A @ X, spx.spmv and spx.spmm with numpy operands on the host (spx.omp), against scipy's
product: odd sizes, both precisions, alpha/beta/out, every layout, empty shapes, the shared
matrices, and the checks that run before anything does."""

import numpy as np
import pytest
import scipy.sparse as sp

import spx
from conftest import expect_product, random_scipy, shared_matrices

SHAPES = [(1, 1), (17, 33), (257, 129), (1000, 997), (3001, 40)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spmv_matches_scipy(shape, dtype, rng):
    S = random_scipy(*shape, 0.05 if shape[0] > 100 else 0.3, shape[0], dtype)
    A = spx.Matrix(S)
    x = rng.uniform(-1, 1, shape[1]).astype(dtype)
    y = A @ x
    assert isinstance(y, np.ndarray) and y.dtype == dtype and y.shape == (shape[0],)
    expect_product(S, x, y, dtype)
    expect_product(S, x, spx.spmv(A, x), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spmv_alpha_beta_out(dtype, rng):
    S = random_scipy(501, 333, 0.03, 7, dtype)
    A = spx.Matrix(S)
    x = rng.uniform(-1, 1, 333).astype(dtype)
    y0 = rng.uniform(-1, 1, 501).astype(dtype)
    out = y0.copy()
    r = spx.spmv(A, x, out=out, alpha=-1.5, beta=0.25)
    assert r is out
    expect_product(S, x, out, dtype, alpha=-1.5, beta=0.25, Y0=y0)
    # beta = 0 never reads out: NaN there does not propagate.
    out[:] = np.nan
    spx.spmv(A, x, out=out)
    expect_product(S, x, out, dtype)


@pytest.mark.parametrize("L", [1, 3, 8, 32])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spmm_matches_scipy(L, order, dtype, rng):
    S = random_scipy(433, 211, 0.04, L, dtype)
    A = spx.Matrix(S)
    X = np.asarray(rng.uniform(-1, 1, (211, L)), dtype=dtype, order=order)
    Y = A @ X
    assert Y.shape == (433, L) and Y.dtype == dtype
    assert Y.flags.c_contiguous if order == "C" else Y.flags.f_contiguous
    expect_product(S, X, Y, dtype)


def test_spmm_alpha_beta_out_and_strided_operands(rng):
    S = random_scipy(300, 120, 0.05, 9)
    A = spx.Matrix(S)
    big = rng.uniform(-1, 1, (240, 20))
    X = big[::2, 3:11]  # a strided view: neither C nor Fortran contiguous
    Y0 = rng.uniform(-1, 1, (300, 8))
    out = np.asfortranarray(Y0.copy())
    spx.spmm(A, X, out=out, alpha=2.0, beta=-1.0)
    expect_product(S, X, out, np.float64, alpha=2.0, beta=-1.0, Y0=Y0)
    holder = np.zeros((300, 16))
    view = holder[:, ::2]  # out as a strided view: written through
    spx.spmm(A, X, out=view)
    expect_product(S, X, holder[:, ::2], np.float64)
    assert (holder[:, 1::2] == 0).all()


def test_lists_and_integer_vectors_are_converted_safely():
    S = random_scipy(20, 10, 0.3, 10)
    A = spx.Matrix(S)
    expect_product(S, np.arange(10.0), A @ list(range(10)), np.float64)
    expect_product(S, np.arange(10.0), A @ np.arange(10, dtype=np.int32), np.float64)
    with pytest.raises(TypeError, match="does not narrow"):
        A.astype(np.float32) @ np.ones(10)  # float64 x, float32 matrix
    with pytest.raises(TypeError, match="complex"):
        A @ np.ones(10, dtype=np.complex128)


def test_empty_shapes():
    for m, n in [(0, 5), (5, 0), (0, 0)]:
        A = spx.Matrix(sp.csr_matrix((m, n)))
        y = A @ np.ones(n)
        assert y.shape == (m,) and (y == 0).all()
        Y = A @ np.ones((n, 3))
        assert Y.shape == (m, 3) and (Y == 0).all()
    A = spx.Matrix(random_scipy(6, 4, 0.5, 11))
    assert (A @ np.ones((4, 0))).shape == (6, 0)


def test_shape_dtype_and_argument_errors():
    A = spx.Matrix(random_scipy(6, 4, 0.5, 12))
    with pytest.raises(ValueError, match="x has 5 entries, the matrix 4 columns"):
        A @ np.ones(5)
    with pytest.raises(ValueError, match="X has 3 rows, the matrix 4 columns"):
        A @ np.ones((3, 2))
    with pytest.raises(ValueError, match="3 dimensions"):
        A @ np.ones((4, 2, 2))
    with pytest.raises(ValueError, match="pass it as out="):
        spx.spmv(A, np.ones(4), beta=1.0)
    with pytest.raises(ValueError, match="out has shape"):
        spx.spmv(A, np.ones(4), out=np.empty(5))
    with pytest.raises(TypeError, match="out has dtype"):
        spx.spmv(A, np.ones(4), out=np.empty(6, dtype=np.float32))
    with pytest.raises(TypeError, match="numpy array"):
        spx.spmv(A, np.ones(4), out=[0.0] * 6)
    ro = np.empty(6)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        spx.spmv(A, np.ones(4), out=ro)
    with pytest.raises(ValueError, match="out has shape"):
        spx.spmm(A, np.ones((4, 2)), out=np.empty((6, 3)))


def test_the_cupy_fast_path_declines_host_matrices_and_numpy():
    """The compiled core's per-call path (python/src/cupy_fast.cpp) is for CuPy vectors and GPU
    matrices only; anything else returns None for the general path (never an error)."""
    A = spx.Matrix(random_scipy(6, 4, 0.5, 13))
    assert A._m.spmv_cupy(np.ones(4), None, 1.0, 0.0) is None
    assert A._m.spmv_cupy(np.ones(4), np.empty(6), "x", object()) is None
    spx._spx.hold_stream(0, None)  # nothing to hold


@pytest.mark.parametrize("name, path", shared_matrices())
def test_shared_matrices_spmv_and_spmm(name, path, rng):
    A = spx.read(path)
    S = A.to_scipy()
    x = rng.uniform(-1, 1, A.shape[1])
    expect_product(S, x, A @ x, np.float64)
    X = rng.uniform(-1, 1, (A.shape[1], 8))
    expect_product(S, X, A @ X, np.float64)
    A32 = A.astype(np.float32)
    x32 = x.astype(np.float32)
    expect_product(A32.to_scipy(), x32, A32 @ x32, np.float32)
