"""CuPy sparse input: a cupyx.scipy.sparse matrix with int32 or int64 indices becomes an spx.Matrix on
its GPU (through the host copy: docs/python.md), at the width its indices and index= ask for, and its
products agree with SciPy; spx.spmv takes one as A. Skipped without CuPy or a usable GPU."""

import numpy as np
import pytest

import spx
from conftest import expect_product, gpu_ready, random_scipy

ready, why = gpu_ready()
pytestmark = pytest.mark.skipif(not ready, reason=why)

if ready:
    import cupy as cp
    import cupyx.scipy.sparse as csp

I32, I64 = np.dtype(np.int32), np.dtype(np.int64)


def cupy_csr(S, index_dtype):
    """A cupyx csr_matrix of S with indices of index_dtype (skips where CuPy narrows int64)."""
    C = csp.csr_matrix((cp.asarray(S.data), cp.asarray(S.indices.astype(index_dtype)),
                        cp.asarray(S.indptr.astype(index_dtype))), shape=S.shape)
    if C.indices.dtype != index_dtype:
        pytest.skip(f"this CuPy keeps {C.indices.dtype} indices only")
    return C


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype,index,want", [
    (np.int32, "auto", I32), (np.int32, "64", I64), (np.int64, "auto", I32), (np.int64, "64", I64)])
def test_cupy_sparse_matrix(dtype, index_dtype, index, want, rng):
    S = random_scipy(300, 200, 0.05, 5, dtype)
    C = cupy_csr(S, index_dtype)
    A = spx.Matrix(C, index=index)
    assert A.device == "cuda" and A.device_id == C.data.device.id
    assert A.index_dtype == want and A.dtype == dtype
    x = rng.uniform(-1, 1, 200).astype(dtype)
    expect_product(S, x, cp.asnumpy(A @ cp.asarray(x)), dtype)
    expect_product(S, x, cp.asnumpy(spx.spmv(C, cp.asarray(x))), dtype)
    X = rng.uniform(-1, 1, (200, 4)).astype(dtype)
    expect_product(S, X, cp.asnumpy(A @ cp.asarray(X)), dtype)


def test_cupy_sparse_coo_with_duplicates(rng):
    S = random_scipy(50, 40, 0.1, 9).tocoo()
    # Every entry twice, each half the value: the sum is S.
    row, col = np.concatenate([S.row, S.row]), np.concatenate([S.col, S.col])
    data = np.concatenate([S.data, S.data]) / 2
    coo = csp.coo_matrix((cp.asarray(data), (cp.asarray(row), cp.asarray(col))), shape=S.shape)
    A = spx.Matrix(coo)
    assert A.nnz == S.nnz
    x = rng.uniform(-1, 1, 40)
    expect_product(S.tocsr(), x, cp.asnumpy(A @ cp.asarray(x)), np.float64)
