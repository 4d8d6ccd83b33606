"""spx matrices in scipy.sparse.linalg: the LinearOperator protocol (shape, dtype, matvec,
rmatvec, matmat) and A.aslinearoperator(); SciPy's cg and gmres on an spx matrix converge to the
solution they reach on the SciPy matrix."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import spx


def _solve(solver, A, b):
    try:
        return solver(A, b, rtol=1e-10, atol=0.0, maxiter=2000)
    except TypeError:  # SciPy < 1.12 calls it tol
        return solver(A, b, tol=1e-10, atol=0.0, maxiter=2000)


@pytest.mark.parametrize("solver", [spla.cg, spla.gmres])
def test_scipy_solvers_take_an_spx_matrix(solver, rng):
    A = spx.generate("stencil2d:nx=23,ny=19")
    S = A.to_scipy()
    b = rng.uniform(-1, 1, A.shape[0])
    x_ref, info_ref = _solve(solver, S, b)
    assert info_ref == 0
    for op in (A, A.aslinearoperator(), spla.aslinearoperator(A)):
        x, info = _solve(solver, op, b)
        assert info == 0
        np.testing.assert_allclose(x, x_ref, rtol=1e-8, atol=1e-10)


def test_the_linear_operator_protocol(rng):
    S = sp.random(30, 20, density=0.2, format="csr", random_state=np.random.default_rng(7))
    A = spx.Matrix(S)
    op = A.aslinearoperator()
    assert isinstance(op, spla.LinearOperator) and op.shape == (30, 20) and op.dtype == np.float64
    x, u, X, U = rng.random(20), rng.random(30), rng.random((20, 3)), rng.random((30, 3))
    np.testing.assert_allclose(op.matvec(x), S @ x)
    np.testing.assert_allclose(op @ x, S @ x)
    np.testing.assert_allclose(op.matvec(x[:, None]), (S @ x)[:, None])
    np.testing.assert_allclose(op.rmatvec(u), S.T @ u)
    np.testing.assert_allclose(op.H @ u, S.T @ u)
    np.testing.assert_allclose(op.matmat(X), S @ X)
    np.testing.assert_allclose(op.rmatmat(U), S.T @ U)
    wrapped = spla.aslinearoperator(A)
    np.testing.assert_allclose(wrapped.rmatvec(u), S.T @ u)
    assert wrapped.shape == (30, 20) and wrapped.dtype == np.float64


def test_lsqr_uses_rmatvec(rng):
    """A solver that needs A.T @ x (lsqr) on a rectangular spx matrix: the same answer as SciPy's."""
    S = sp.random(60, 25, density=0.3, format="csr", random_state=np.random.default_rng(8)) + sp.eye(60, 25)
    b = rng.random(60)
    x_ref = spla.lsqr(S, b, atol=1e-12, btol=1e-12)[0]
    x = spla.lsqr(spx.Matrix(S), b, atol=1e-12, btol=1e-12)[0]
    np.testing.assert_allclose(x, x_ref, rtol=1e-8)
