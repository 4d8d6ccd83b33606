"""Host copies with int64 indices: which width the core keeps (int32 input as before; int64 input
narrowed under 'auto' where it fits, kept with index='64'), every host operation on an int64 copy,
and the size checks made before the copy is allocated (a matrix past 2**31 - 1 nonzeros simulated
by sparse memory-mapped files that are never read)."""

import os

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import spx
from conftest import expect_product, random_scipy

I32, I64 = np.dtype(np.int32), np.dtype(np.int64)


def int64_scipy(rows, cols, density, seed, dtype=np.float64):
    S = random_scipy(rows, cols, density, seed, dtype)
    S.indptr, S.indices = S.indptr.astype(np.int64), S.indices.astype(np.int64)
    return S


def spd_int64(n=80):
    S = sp.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    S.indptr, S.indices = S.indptr.astype(np.int64), S.indices.astype(np.int64)
    return S


def test_int32_input_is_unchanged():
    """No change for existing users: int32 SciPy indices give an int32 copy under every default."""
    S = random_scipy(30, 20, 0.2, 1)
    assert S.indices.dtype == I32
    A = spx.Matrix(S)
    assert A.index_dtype == I32
    data, indices, indptr = A.arrays()
    assert indices.dtype == I32 and indptr.dtype == I32
    T = A.to_scipy()
    assert T.indices.dtype == I32 and (T != S).nnz == 0
    assert (A.T.index_dtype, (A * 2).index_dtype, (A + A).index_dtype) == (I32, I32, I32)


def test_int64_input_is_narrowed_under_auto_and_kept_when_asked():
    S = int64_scipy(40, 30, 0.2, 2)
    assert spx.Matrix(S).index_dtype == I32
    assert spx.Matrix(S, index="auto").index_dtype == I32
    assert spx.Matrix(S, index="32").index_dtype == I32
    for word in ("64", 64):
        W = spx.Matrix(S, index=word)
        assert W.index_dtype == I64
        data, indices, indptr = W.arrays()
        assert indices.dtype == I64 and indptr.dtype == I64
    # int32 input widens when 64 is asked for; tuples take index= too.
    assert spx.Matrix(random_scipy(5, 5, 0.5, 3), index="64").index_dtype == I64
    assert spx.Matrix((S.data, S.indices, S.indptr, S.shape), index="64").index_dtype == I64


def test_index_of_a_matrix_source_casts_the_host_copy():
    W = spx.Matrix(int64_scipy(40, 30, 0.2, 2), index="64")
    assert spx.Matrix(W)._m is W._m  # shared
    assert spx.Matrix(W, index="64")._m is W._m
    N = spx.Matrix(W, index="32")
    assert N.index_dtype == I32 and (N.to_scipy() != W.to_scipy()).nnz == 0
    assert spx.Matrix(N, index="64").index_dtype == I64
    F = spx.Matrix(W, dtype=np.float32)
    assert F.dtype == np.float32 and F.index_dtype == I64


@pytest.mark.parametrize("bad", ["int64", 16, None])
def test_bad_index_in_the_constructor_is_a_value_error(bad):
    with pytest.raises(ValueError, match="index .*'auto'.*'32' or '64'"):
        spx.Matrix(random_scipy(5, 5, 0.5, 1), index=bad)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_on_an_int64_copy_match_scipy(dtype, rng):
    S = int64_scipy(300, 200, 0.05, 7, dtype)
    A = spx.Matrix(S, index="64")
    assert A.index_dtype == I64
    x = rng.uniform(-1, 1, 200).astype(dtype)
    expect_product(S, x, A @ x, dtype)
    y0 = rng.uniform(-1, 1, 300).astype(dtype)
    expect_product(S, x, spx.spmv(A, x, out=y0.copy(), alpha=2.0, beta=-1.0), dtype, 2.0, -1.0, y0)
    for order in ("C", "F"):
        X = np.asarray(rng.uniform(-1, 1, (200, 5)).astype(dtype), order=order)
        expect_product(S, X, A @ X, dtype)
    v = rng.uniform(-1, 1, 300).astype(dtype)
    expect_product(S.T.tocsr(), v, v @ A, dtype)  # rmatvec
    V = rng.uniform(-1, 1, (3, 300)).astype(dtype)
    expect_product(S.T.tocsr(), V.T, (V @ A).T, dtype)


def test_algebra_on_an_int64_copy_keeps_the_width():
    S = int64_scipy(50, 40, 0.1, 4)
    A = spx.Matrix(S, index="64")
    for got, want in [(A.T, S.T), (A * 2, S * 2), (A / 4, S / 4), (-A, -S), (A + A, S + S),
                      (A - spx.Matrix(S), S - S), (A + random_scipy(50, 40, 0.1, 5), S + random_scipy(50, 40, 0.1, 5)),
                      (A.astype(np.float32), S.astype(np.float32))]:
        assert got.index_dtype == I64
        assert abs(got.to_scipy() - want).max() <= 1e-6 * max(1.0, abs(want).max())
    # The sum of an int32 and an int64 copy is the wider, whichever comes first.
    assert (spx.Matrix(S) + A).index_dtype == I64


def test_to_scipy_round_trip_keeps_int64():
    S = int64_scipy(60, 45, 0.1, 6)
    T = spx.Matrix(S, index="64").to_scipy()
    assert T.indices.dtype == I64 and T.indptr.dtype == I64
    assert (T != S).nnz == 0
    assert spx.Matrix(T, index="64").index_dtype == I64


def test_stats_agree_at_both_widths():
    S = int64_scipy(60, 60, 0.1, 8)
    assert spx.Matrix(S, index="64").stats == spx.Matrix(S).stats


@pytest.mark.parametrize("jacobi", [False, True])
def test_cg_on_an_int64_copy_matches_scipy(jacobi):
    S = spd_int64()
    A = spx.Matrix(S, index="64")
    b = np.ones(S.shape[0])
    x, info = spx.cg(A, b, rtol=1e-12, M="jacobi" if jacobi else None)
    assert info.converged
    np.testing.assert_allclose(x, sp.linalg.spsolve(S.tocsc(), b), rtol=1e-9)


def test_cg_checks_symmetry_of_an_int64_copy():
    S = int64_scipy(30, 30, 0.2, 9) + 10 * sp.eye(30)
    A = spx.Matrix(S, index="64")
    with pytest.raises(ValueError, match="symmetric"):
        spx.cg(A, np.ones(30))


@pytest.mark.parametrize("solver", [sla.cg, sla.gmres])
def test_scipy_solvers_take_an_int64_copy(solver):
    S = spd_int64()
    A = spx.Matrix(S, index="64")
    b = np.arange(S.shape[0], dtype=np.float64)
    for op in (A, A.aslinearoperator()):
        try:
            x, info = solver(op, b, rtol=1e-12, atol=0.0)
        except TypeError:  # SciPy < 1.12 calls it tol
            x, info = solver(op, b, tol=1e-12, atol=0.0)
        assert info == 0
        np.testing.assert_allclose(S @ x, b, rtol=1e-8, atol=1e-8)


def test_the_copy_is_checked_against_host_memory(monkeypatch):
    """SPX_HOST_MEMORY_LIMIT caps what spx may take: a copy past it is refused with both numbers."""
    S = int64_scipy(2000, 2000, 0.05, 10)  # 200k nonzeros: 3.2 MB at 64 bits, 2.4 MB at 32
    monkeypatch.setenv("SPX_HOST_MEMORY_LIMIT", str(2_800_000))
    assert spx.Matrix(S).index_dtype == I32  # fits under the cap at 32 bits
    with pytest.raises(ValueError, match=r"host copy \(2000 x 2000, \d+ nonzeros, 64-bit indices\) needs "
                                         r"about 3\.\d MiB of host memory, 2\.7 MiB available"):
        spx.Matrix(S, index="64")
    A = spx.Matrix(S)
    with pytest.raises(ValueError, match="host memory"):
        spx.Matrix(A, index="64")


def sparse_file_array(path, dtype, n):
    """A read-only n-entry array over a sparse file: no disk or memory used until it is read."""
    with open(path, "wb") as f:
        f.truncate(n * np.dtype(dtype).itemsize)
    if os.stat(path).st_blocks * 512 > 1 << 20:
        pytest.skip(f"{path.parent} does not keep sparse files")
    return np.memmap(path, dtype=dtype, mode="r", shape=(n,))


@pytest.fixture
def huge_arrays(tmp_path):
    """One row of 2**31 nonzeros (one past 32-bit offsets): 24 GiB of arrays that take no memory.
    The files are removed afterwards, so no later reader (a backup, du) walks 24 GiB of holes."""
    nnz = 2**31
    try:
        indices = sparse_file_array(tmp_path / "indices", np.int64, nnz)
        data = sparse_file_array(tmp_path / "data", np.float32, nnz)
    except OSError as e:
        pytest.skip(f"no sparse files in {tmp_path}: {e}")
    yield data, indices, np.array([0, nnz], dtype=np.int64), (1, 1)
    del data, indices
    for name in ("indices", "data"):
        (tmp_path / name).unlink()


def test_a_matrix_past_int32_is_sized_before_anything_is_read(huge_arrays, monkeypatch):
    """Past 2**31 - 1 nonzeros the copy must be int64 (auto), 32 bits are refused, and the copy's
    24 GiB are refused against the memory cap before a byte of the arrays is read (a read would fault
    in the files' pages; the structure, a column 0 repeated, is never checked)."""
    data, indices, indptr, shape = huge_arrays
    monkeypatch.setenv("SPX_HOST_MEMORY_LIMIT", str(1 << 30))
    with pytest.raises(ValueError, match=r"1 x 1, 2147483648 nonzeros, 64-bit indices\) needs about 24\.0 GiB "
                                         r"of host memory, 1\.0 GiB available"):
        spx.Matrix((data, indices, indptr, shape))
    with pytest.raises(ValueError, match="2147483648 nonzeros do not fit 32-bit row offsets"):
        spx.Matrix((data, indices, indptr, shape), index="32")
