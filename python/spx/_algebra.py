"""Algebra on spx matrices that makes a new matrix (A.T, A * s, A / s, -A, A + B, A - B) and the
row-vector product x @ A. The matrix is immutable: every operation returns a new one on the same
device. Private module: these are methods and operators of spx.Matrix.
"""

from __future__ import annotations

import numbers
from typing import Any, Optional

import numpy as np

from . import _arrays
from ._matrix import Matrix, _from_arrays, _is_scipy_sparse


def _same_device(A: Matrix, m: Any) -> Matrix:
    """m (a host matrix of the core) on A's device: a GPU matrix's result is uploaded there."""
    return Matrix._wrap(m.to_device(A._dev, A._index_word()) if A._dev >= 0 else m)


def transpose(A: Matrix) -> Matrix:
    """A.T: a counting sort by column on the host copy, O(nnz + rows + cols)."""
    return _same_device(A, A._m.transposed())


def _scalar(s: Any) -> Optional[float]:
    """s as a float when it is a real scalar (Python's or NumPy's, or a 0-d array); None otherwise."""
    if isinstance(s, np.ndarray) and s.ndim == 0:
        s = s[()]
    if isinstance(s, (bool, np.bool_)):
        return None
    if isinstance(s, numbers.Real):
        return float(s)
    return None


def scale(A: Matrix, s: Any, op: str) -> Matrix:
    """A * s or A / s: the values scaled (in double, rounded once to A's dtype), the structure kept
    (explicit zeros too, as SciPy). TypeError for anything but a real scalar, ZeroDivisionError for
    A / 0."""
    f = _scalar(s)
    if f is None:
        if isinstance(s, numbers.Complex):
            raise TypeError(f"A {op} {s!r}: spx matrices hold real values; the scalar must be real")
        hint = " (A @ x is the product with a vector or matrix)" if op == "*" else ""
        raise TypeError(f"A {op} {type(s).__name__}: spx scales a matrix by a real scalar only{hint}")
    if op == "/" and f == 0.0:
        raise ZeroDivisionError("A / 0: dividing a matrix by zero")
    return _same_device(A, A._m.scaled(f, op == "/"))


def add(A: Matrix, other: Any, sign: float) -> Matrix:
    """A + sign * B through SciPy on the host copies (O(nnz(A) + nnz(B)), then canonicalised and,
    for GPU matrices, uploaded and planned). The result's dtype and host index width are the wider
    of the two."""
    what = "A + B" if sign > 0 else "A - B"
    if _is_scipy_sparse(other):
        other = Matrix(other)
    if not isinstance(other, Matrix):
        if _scalar(other) is not None:
            raise TypeError(f"{what} with a scalar B would store every entry (a dense matrix); spx adds "
                            "sparse matrices only (A.to_scipy().toarray() + s for a dense result)")
        raise TypeError(f"{what}: B is a {type(other).__name__}; spx adds an spx.Matrix or a scipy.sparse "
                        "matrix of the same shape (A.to_scipy() + B for anything else)")
    if other.shape != A.shape:
        raise ValueError(f"{what}: A is {A.shape[0]} x {A.shape[1]}, B {other.shape[0]} x {other.shape[1]}")
    if other._dev != A._dev:
        raise ValueError(f"{what}: A is on {A._where()} and B on {other._where()}; move one with .to()")
    S = (A.to_scipy() + other.to_scipy() if sign > 0 else A.to_scipy() - other.to_scipy()).tocsr()
    dtype = np.result_type(A.dtype, other.dtype)
    index = "64" if 64 in (A._m.index_bits, other._m.index_bits) else "auto"  # the wider, as dtype
    return _same_device(A, _from_arrays(S.data, S.indices, S.indptr, S.shape, dtype, index))


def rmatmul(A: Matrix, x: Any) -> Any:
    """x @ A on the host: a vector x of A's rows gives A.T @ x (one thread, A.T never formed); a
    matrix X of shape (k, rows) gives (A.T @ X.T).T (A.T formed, then every core). ValueError for a
    GPU matrix or a device x (make AT = A.T once there and use AT @ x)."""
    if A._dev >= 0 or _arrays.is_device_array(x):
        raise ValueError("x @ A runs on the host only; for a GPU matrix make the transpose once, "
                         "AT = A.T (a copy on the same GPU), and use AT @ x")
    xh = _arrays.host_array(x, A._dtype, "x")
    if xh.ndim == 1:
        if xh.shape[0] != A._rows:
            raise ValueError(f"x @ A: x has {xh.shape[0]} entries, the matrix {A._rows} rows")
        y = np.empty(A._cols, dtype=A._dtype)
        A._m.rmatvec_cpu(np.ascontiguousarray(xh), y)
        return y
    if xh.ndim == 2:
        if xh.shape[1] != A._rows:
            raise ValueError(f"X @ A: X has {xh.shape[1]} columns, the matrix {A._rows} rows")
        return (transpose(A) @ xh.T).T
    raise ValueError(f"x @ A: x has {xh.ndim} dimensions; spx multiplies vectors and matrices")
