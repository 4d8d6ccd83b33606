"""Index widths on the host: SciPy matrices with int64 indices are taken as they are (no narrowing
copy in Python) and give SciPy's products; index_dtype says what is held; index= is checked."""

import numpy as np
import pytest
import scipy.sparse as sp

import spx
from conftest import expect_product, random_scipy


def int64_scipy(rows, cols, density, seed, dtype=np.float64):
    S = random_scipy(rows, cols, density, seed, dtype)
    S.indptr = S.indptr.astype(np.int64)
    S.indices = S.indices.astype(np.int64)
    return S


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_int64_scipy_input_gives_scipys_products(dtype, rng):
    S = int64_scipy(300, 200, 0.05, 7, dtype)
    assert S.indptr.dtype == np.int64 and S.indices.dtype == np.int64
    A = spx.Matrix(S)
    assert A.nnz == S.nnz and A.index_dtype == np.int32
    x = rng.uniform(-1, 1, 200).astype(dtype)
    expect_product(S, x, A @ x, dtype)
    X = rng.uniform(-1, 1, (200, 5)).astype(dtype)
    expect_product(S, X, A @ X, dtype)
    assert (A.to_scipy() != S).nnz == 0


def test_int64_arrays_are_not_narrowed_in_python(monkeypatch):
    """The core gets SciPy's int64 arrays themselves (it decides the width of the copy it makes)."""
    S = int64_scipy(50, 50, 0.1, 3)
    seen = []
    real = spx._spx.from_csr

    def spy(rows, cols, indptr, indices, data, index="auto"):
        seen.append((indptr, indices))
        return real(rows, cols, indptr, indices, data, index)

    monkeypatch.setattr(spx._spx, "from_csr", spy)
    spx.Matrix((S.data, S.indices, S.indptr, S.shape))
    (indptr, indices), = seen
    assert indptr.dtype == np.int64 and indices.dtype == np.int64
    assert np.shares_memory(indptr, S.indptr) and np.shares_memory(indices, S.indices)


def test_mixed_index_dtypes_and_other_integers():
    S = random_scipy(40, 30, 0.2, 5)
    for indptr, indices in [(S.indptr.astype(np.int64), S.indices.astype(np.int32)),
                            (S.indptr.astype(np.uint16), S.indices.astype(np.int16))]:
        A = spx.Matrix((S.data, indices, indptr, S.shape))
        assert (A.to_scipy() != S).nnz == 0


def test_int64_spd_cg_matches_scipy():
    n = 64
    S = sp.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    S.indptr, S.indices = S.indptr.astype(np.int64), S.indices.astype(np.int64)
    b = np.ones(n)
    x, info = spx.cg(spx.Matrix(S), b, rtol=1e-12)
    assert info.converged
    np.testing.assert_allclose(x, sp.linalg.spsolve(S.tocsc(), b), rtol=1e-9)


def test_index_dtype_of_host_matrices():
    assert spx.generate("stencil2d:n=8").index_dtype == np.dtype(np.int32)
    assert spx.Matrix(random_scipy(5, 5, 0.5, 1)).index_dtype == np.dtype(np.int32)


@pytest.mark.parametrize("bad", ["16", "int64", 64.0, None, True, "AUTO"])
def test_bad_index_values_are_value_errors(bad):
    A = spx.Matrix(random_scipy(5, 5, 0.5, 1))
    with pytest.raises(ValueError, match="index .*'auto'.*'32' or '64'"):
        A.to("cpu", index=bad)
    with pytest.raises(ValueError, match="index"):
        A.cuda(index=bad)


def test_good_index_values_on_the_host_return_the_matrix():
    A = spx.Matrix(random_scipy(5, 5, 0.5, 1))
    for ok in ["auto", "32", "64", 32, 64]:
        assert A.to("cpu", index=ok) is A
