"""64-bit row offsets on the GPU from Python: A.to('cuda', index='64') holds int64 offsets and its
products and CG agree with SciPy, from an int32 host copy or an int64 one (handed to the GPU as it
is). Skipped (with the reason) without CuPy or a usable GPU."""

import numpy as np
import pytest
import scipy.sparse as sp

import spx
from conftest import expect_product, gpu_ready, random_scipy

ready, why = gpu_ready()
pytestmark = pytest.mark.skipif(not ready, reason=why)

if ready:
    import cupy as cp


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_index_64_spmv_and_matmat_match_scipy(dtype, rng):
    S = random_scipy(500, 400, 0.03, 11, dtype)
    S.indptr, S.indices = S.indptr.astype(np.int64), S.indices.astype(np.int64)
    A = spx.Matrix(S).to("cuda", index="64")
    assert A.index_dtype == np.dtype(np.int64)
    x = rng.uniform(-1, 1, 400).astype(dtype)
    expect_product(S, x, A @ x, dtype)
    expect_product(S, x, cp.asnumpy(A @ cp.asarray(x)), dtype)
    X = rng.uniform(-1, 1, (400, 8)).astype(dtype)
    expect_product(S, X, A.matmat(X), dtype)
    expect_product(S, X, cp.asnumpy(A @ cp.asarray(X)), dtype)


def test_index_widths_on_the_gpu():
    S = random_scipy(60, 60, 0.1, 2)
    A = spx.Matrix(S)
    assert A.cuda().index_dtype == np.dtype(np.int32)  # auto: it fits 32 bits
    assert A.cuda(index="32").index_dtype == np.dtype(np.int32)
    W = A.cuda(index=64)
    assert W.index_dtype == np.dtype(np.int64)
    assert W.to("cuda", index="auto") is W and W.to("cuda", index="32").index_dtype == np.dtype(np.int32)
    assert W.astype(np.float32).index_dtype == np.dtype(np.int64)  # copies keep the width
    assert W.T.index_dtype == np.dtype(np.int64)
    assert W.cpu().index_dtype == np.dtype(np.int32)


def test_index_64_cg_matches_scipy():
    n = 200
    S = sp.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    A = spx.Matrix(S).to("cuda", index="64")
    b = np.ones(n)
    for jacobi in (False, True):
        x, info = spx.cg(A, b, rtol=1e-12, M="jacobi" if jacobi else None)
        assert info.converged
        np.testing.assert_allclose(x, sp.linalg.spsolve(S.tocsc(), b), rtol=1e-9)


def int64_scipy(rows, cols, density, seed, dtype=np.float64):
    S = random_scipy(rows, cols, density, seed, dtype)
    S.indptr, S.indices = S.indptr.astype(np.int64), S.indices.astype(np.int64)
    return S


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_int64_host_copy_uploaded_at_64_bits_matches_scipy(dtype, rng):
    """An int64 SciPy matrix held at 64 bits on the host goes to the front door's 64-bit constructor
    as it is: int64 on both sides, SciPy's products."""
    S = int64_scipy(500, 400, 0.03, 12, dtype)
    H = spx.Matrix(S, index="64")
    A = H.cuda(index="64")
    assert H.index_dtype == np.dtype(np.int64) and A.index_dtype == np.dtype(np.int64)
    assert A.cpu().index_dtype == np.dtype(np.int64)
    x = rng.uniform(-1, 1, 400).astype(dtype)
    expect_product(S, x, A @ x, dtype)
    expect_product(S, x, cp.asnumpy(A @ cp.asarray(x)), dtype)
    for order in ("C", "F"):
        X = np.asarray(rng.uniform(-1, 1, (400, 8)).astype(dtype), order=order)
        expect_product(S, X, A @ X, dtype)
        expect_product(S, X, cp.asnumpy(A @ cp.asarray(X)), dtype)


def test_int64_host_copy_auto_on_the_gpu_narrows_there():
    """index='auto' on the GPU: the front door narrows the int64 copy to 32-bit offsets (it fits);
    the host copy stays int64; copies on the GPU keep both."""
    S = int64_scipy(80, 80, 0.1, 13)
    H = spx.Matrix(S, index="64")
    A = H.cuda()
    assert A.index_dtype == np.dtype(np.int32) and A.cpu().index_dtype == np.dtype(np.int64)
    x = np.linspace(-1, 1, 80)
    expect_product(S, x, A @ x, np.float64)
    W = H.cuda(index="64")
    for M in (W.T, W * 2, W.astype(np.float32), W + W):
        assert M.index_dtype == np.dtype(np.int64) and M.cpu().index_dtype == np.dtype(np.int64)
    expect_product(S.T.tocsr(), x, W.T @ x, np.float64)


@pytest.mark.parametrize("width", ["64", "auto"])
def test_int64_host_copy_cg_on_the_gpu_matches_scipy(width):
    n = 200
    S = sp.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    S.indptr, S.indices = S.indptr.astype(np.int64), S.indices.astype(np.int64)
    A = spx.Matrix(S, index="64").to("cuda", index=width)
    b = np.ones(n)
    for jacobi in (False, True):
        x, info = spx.cg(A, b, rtol=1e-12, M="jacobi" if jacobi else None)
        assert info.converged
        np.testing.assert_allclose(x, sp.linalg.spsolve(S.tocsc(), b), rtol=1e-9)
        xd, info = spx.cg(A, cp.asarray(b), rtol=1e-12, M="jacobi" if jacobi else None)
        assert info.converged
        np.testing.assert_allclose(cp.asnumpy(xd), sp.linalg.spsolve(S.tocsc(), b), rtol=1e-9)
