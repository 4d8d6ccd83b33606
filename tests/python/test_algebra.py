"""Matrix algebra: A.T, A * s, s * A, A / s, -A, A + B, A - B, x @ A and X @ A, against SciPy,
and what each refuses (a clear TypeError or ValueError, never an object array)."""

import numpy as np
import pytest
import scipy.sparse as sp

import spx
from conftest import random_scipy

DTYPES = [np.float32, np.float64]


def dense(M):
    return M.to_scipy().toarray()


def close(dtype):
    return dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(37, 53), (53, 37), (0, 5), (5, 0), (1, 1)])
def test_transpose_matches_scipy(shape, dtype):
    S = random_scipy(*shape, 0.2, 1, dtype)
    A = spx.Matrix(S)
    T = A.T
    assert isinstance(T, spx.Matrix) and T.shape == shape[::-1] and T.dtype == dtype and T.device == "cpu"
    np.testing.assert_array_equal(dense(T), S.T.toarray())
    np.testing.assert_array_equal(dense(A.transpose()), S.T.toarray())
    assert dense(A) is not None and A.shape == shape  # A unchanged


@pytest.mark.parametrize("dtype", DTYPES)
def test_scalar_multiply_and_divide_match_scipy(dtype):
    S = random_scipy(40, 30, 0.1, 2, dtype)
    A = spx.Matrix(S)
    for s in (2, 2.5, -0.75, np.float32(3), np.float64(-1.5), np.array(4.0), np.int64(3)):
        for got in (A * s, s * A):
            assert isinstance(got, spx.Matrix) and got.dtype == dtype and got.nnz == A.nnz
            np.testing.assert_allclose(dense(got), (S * float(s)).toarray(), **close(dtype))
        np.testing.assert_allclose(dense(A / s), (S / float(s)).toarray(), **close(dtype))
    np.testing.assert_array_equal(dense(-A), -S.toarray())
    assert (A * 0).nnz == A.nnz  # the structure is kept, as SciPy's data * 0


def test_scalar_multiply_refuses_what_is_not_a_real_scalar():
    A = spx.generate("stencil2d:n=4")
    with pytest.raises(TypeError, match="A @ x"):
        A * np.ones(16)
    with pytest.raises(TypeError, match="real"):
        A * (1 + 2j)
    with pytest.raises(TypeError, match="real scalar"):
        A * "2"
    with pytest.raises(TypeError, match="real scalar"):
        A * A
    with pytest.raises(ZeroDivisionError):
        A / 0


@pytest.mark.parametrize("dtypes", [(np.float64, np.float64), (np.float32, np.float32), (np.float32, np.float64)])
def test_add_and_subtract_match_scipy(dtypes):
    S1 = random_scipy(45, 31, 0.15, 3, dtypes[0])
    S2 = random_scipy(45, 31, 0.15, 4, dtypes[1])
    A, B = spx.Matrix(S1), spx.Matrix(S2)
    want = np.result_type(*dtypes)
    for got, ref in ((A + B, S1 + S2), (A - B, S1 - S2), (B - A, S2 - S1), (A + S2, S1 + S2),
                     (S1 + B, S1 + S2), (S1 - B, S1 - S2)):
        assert isinstance(got, spx.Matrix) and got.dtype == want and got.device == "cpu"
        np.testing.assert_allclose(dense(got), ref.toarray(), **close(np.float32))
    np.testing.assert_array_equal(dense(A - A), np.zeros((45, 31)))


def test_add_refuses_other_shapes_and_dense_operands():
    A = spx.generate("stencil2d:n=4")
    with pytest.raises(ValueError, match="16 x 16, B 16 x 15"):
        A + spx.Matrix(sp.random(16, 15, density=0.1, format="csr"))
    with pytest.raises(TypeError, match="dense"):
        A + 1.0
    with pytest.raises(TypeError, match="ndarray"):
        A + np.ones((16, 16))


@pytest.mark.parametrize("dtype", DTYPES)
def test_row_vector_times_matrix_is_the_transpose_product(dtype, rng):
    S = random_scipy(61, 43, 0.1, 5, dtype)
    A = spx.Matrix(S)
    x = rng.uniform(-1, 1, 61).astype(dtype)
    for xin in (x, list(x)):
        y = xin @ A
        assert isinstance(y, np.ndarray) and y.dtype == dtype and y.shape == (43,)
        np.testing.assert_allclose(y, S.T @ x, **close(dtype))
    X = rng.uniform(-1, 1, (3, 61)).astype(dtype)
    Y = X @ A
    assert Y.shape == (3, 43) and Y.dtype == dtype
    np.testing.assert_allclose(Y, (S.T @ X.T).T, **close(dtype))
    np.testing.assert_allclose(A.rmatvec(x), S.T @ x, **close(dtype))
    np.testing.assert_allclose(A.rmatvec(x[:, None]), S.T @ x, **close(dtype))


def test_row_vector_times_matrix_checks_its_operand():
    A = spx.Matrix(random_scipy(6, 4, 0.5, 6))
    with pytest.raises(ValueError, match="x has 4 entries, the matrix 6 rows"):
        np.ones(4) @ A
    with pytest.raises(ValueError, match="X has 4 columns, the matrix 6 rows"):
        np.ones((2, 4)) @ A
    with pytest.raises(TypeError, match="float32"):
        np.ones(6) @ A.astype(np.float32)  # float64 x, float32 matrix: no silent narrowing
