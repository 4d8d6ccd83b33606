"""Where int64 host copies come from besides arrays: spx.read and spx.generate at index='64' (and
'auto', which keeps int32 where the matrix fits), products on them, and spx.spmv / spx.spmm taking a
SciPy matrix as A. CuPy sparse input is in test_index_width_cupy.py (GPU)."""

import numpy as np
import pytest

import spx
from conftest import expect_product

I32, I64 = np.dtype(np.int32), np.dtype(np.int64)


@pytest.mark.parametrize("index,want", [("auto", I32), ("32", I32), ("64", I64), (64, I64)])
def test_generate_index_width(index, want):
    A = spx.generate("stencil2d:n=6", index=index)
    assert A.index_dtype == want
    assert A.arrays()[1].dtype == want and A.arrays()[2].dtype == want
    S = spx.generate("stencil2d:n=6").to_scipy()
    x = np.linspace(-1, 1, 36)
    expect_product(S, x, A @ x, np.float64)


@pytest.mark.parametrize("index,want", [("auto", I32), ("64", I64)])
def test_read_index_width(tmp_path, index, want):
    path = tmp_path / "m.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 1 -1\n2 2 2\n3 3 5\n")
    A = spx.read(path, dtype=np.float32, index=index)
    assert A.index_dtype == want and A.dtype == np.float32
    assert A.nnz == 5  # the mirrored entry counted
    np.testing.assert_array_equal(A.to_scipy().toarray(), [[2, -1, 0], [-1, 2, 0], [0, 0, 5]])


def test_read_and_generate_refuse_a_bad_index(tmp_path):
    with pytest.raises(ValueError, match="index"):
        spx.generate("stencil2d:n=4", index="16")
    with pytest.raises(ValueError, match="index"):
        spx.read(tmp_path / "missing.mtx", index="wide")


# A header past 2**31 - 1 entries under auto (read with int64 indices: the width is not observable
# on a file this small): the reader's own refusal, one line naming the file and line.
def test_read_auto_past_32_bits_reports_the_file(tmp_path):
    path = tmp_path / "tall.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real general\n100 100 3000000000\n1 1 1\n")
    with pytest.raises(ValueError, match=r"tall.mtx:3: the file ends after 1 of the 3000000000 entries"):
        spx.read(path)


def test_spmv_and_spmm_take_a_scipy_matrix(rng):
    A = spx.generate("stencil2d:n=5")
    S = A.to_scipy()
    x = rng.uniform(-1, 1, 25)
    expect_product(S, x, spx.spmv(S, x), np.float64)
    X = rng.uniform(-1, 1, (25, 3))
    expect_product(S, X, spx.spmm(S, X), np.float64)
    with pytest.raises(TypeError, match="spx.Matrix"):
        spx.spmv(np.eye(3), np.ones(3))


# A generator past 2**31 - 1 nonzeros under auto goes on at int64 (its int32 refusal comes before it
# allocates): the refusal is then about memory, as at '64'; at '32' it names index='64'.
def test_generate_auto_past_32_bits_goes_wide():
    huge = "dense:rows=1000000,cols=1000000"
    for index in ("auto", "64"):
        with pytest.raises(ValueError, match="1000000000000 nonzeros needs about .* of host memory"):
            spx.generate(huge, index=index)
    with pytest.raises(ValueError, match=r"does not fit int32 indices.*spx.generate\(spec, index='64'\)"):
        spx.generate(huge, index="32")


# A SciPy A in spx.spmv / spx.spmm keeps the contracts of an spx.Matrix: out aliasing x, both value
# dtypes, int64 indices, and a Fortran-ordered X.
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_scipy_a_aliasing_dtypes_and_orders(rng, dtype, index_dtype):
    S = spx.generate("stencil2d:n=6").to_scipy().astype(dtype)
    S.indices, S.indptr = S.indices.astype(index_dtype), S.indptr.astype(index_dtype)
    x = rng.uniform(-1, 1, 36).astype(dtype)
    x0 = x.copy()
    y = spx.spmv(S, x, out=x, alpha=1.5, beta=0.5)
    assert y is x
    expect_product(S, x0, y, dtype, alpha=1.5, beta=0.5, Y0=x0)
    X = np.asfortranarray(rng.uniform(-1, 1, (36, 3)).astype(dtype))
    expect_product(S, X, spx.spmm(S, X), dtype)
