"""spx matrices as linear operators: the protocol scipy.sparse.linalg.aslinearoperator reads
(shape, dtype, matvec, rmatvec, matmat, rmatmat), so SciPy's iterative solvers (cg, gmres,
minres, lsqr, eigsh, ...) take an spx.Matrix as it is, and A.aslinearoperator(), which makes the
LinearOperator of SciPy (host matrix) or of CuPy (GPU matrix). Private module: these are methods
of spx.Matrix.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _algebra, _arrays
from ._matrix import Matrix


def matvec(A: Matrix, x: Any) -> Any:
    """A @ x for x of shape (cols,) or (cols, 1) (SciPy passes either)."""
    return A @ x


def matmat(A: Matrix, X: Any) -> Any:
    """A @ X."""
    return A @ X


def rmatvec(A: Matrix, x: Any) -> Any:
    """A.T @ x for x of shape (rows,) or (rows, 1): x @ A on the host (the result is 1-D; SciPy
    reshapes it)."""
    if A._dev >= 0:
        raise ValueError("rmatvec (A.T @ x) runs on the host only; for a GPU matrix make the transpose "
                         "once, AT = A.T, and use AT @ x (or AT.aslinearoperator())")
    xh = np.asarray(x)
    return _algebra.rmatmul(A, xh.reshape(-1) if xh.ndim == 2 and xh.shape[1] == 1 else xh)


def rmatmat(A: Matrix, X: Any) -> Any:
    """A.T @ X for X of shape (rows, k), on the host (A.T formed for the call)."""
    if A._dev >= 0 or _arrays.is_device_array(X):
        raise ValueError("rmatmat (A.T @ X) runs on the host only; for a GPU matrix make the transpose "
                         "once, AT = A.T, and use AT @ X")
    return _algebra.transpose(A) @ X


def aslinearoperator(A: Matrix) -> Any:
    """scipy.sparse.linalg.LinearOperator for a host matrix, cupyx.scipy.sparse.linalg's for a GPU
    matrix (its matvec takes CuPy vectors: nothing is copied)."""
    if A._dev < 0:
        from scipy.sparse.linalg import LinearOperator

        return LinearOperator(A.shape, matvec=A.matvec, rmatvec=A.rmatvec, matmat=A.matmat,
                              rmatmat=A.rmatmat, dtype=A.dtype)
    try:
        from cupyx.scipy.sparse.linalg import LinearOperator as CupyLinearOperator
    except ImportError:
        raise ImportError("A.aslinearoperator() on a GPU matrix makes a cupyx.scipy.sparse.linalg."
                          "LinearOperator and needs CuPy (pip install cupy-cuda12x); A.cpu()."
                          "aslinearoperator() gives SciPy's") from None
    return CupyLinearOperator(A.shape, matvec=A.matvec, matmat=A.matmat, dtype=A.dtype)
