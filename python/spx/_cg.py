"""spx.cg: conjugate gradients for symmetric positive definite systems, SciPy's way round.

``x, info = spx.cg(A, b)`` as ``scipy.sparse.linalg.cg``, except that ``info`` is a CgInfo (why it
stopped, the iterations, the residual, the time, the residual history) instead of an int. The CPU
solver is spx::cg (OpenMP), the GPU solver spx::cuda::CgSolver; docs/python.md and docs/cg.md.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import numpy as np

from . import _arrays, _threads
from ._matrix import Matrix, _check_device_operand, _is_scipy_sparse, _same_kind_empty, _warn_host_stream

_STATUSES = ("converged", "max_iterations", "breakdown", "stagnation")


class CgInfo:
    """Why spx.cg stopped, and how far it got.

    status: 'converged' (‖r‖ <= max(rtol·‖b‖, atol)), 'max_iterations', 'breakdown' (A or the
    preconditioner is not SPD, or a value is not finite) or 'stagnation' (x no longer changes);
    iterations; residual (‖r‖ of the recurrence at the end); rhs_norm (‖b‖); relative_residual
    (residual / ‖b‖, 0 when b = 0); seconds (the solve, setup excluded); history (‖r‖ at
    iterations 0 .. iterations when cg(..., history=True), else None); message (one line);
    device ('cpu' or 'cuda:N', where it ran).

    SciPy's cg returns an int instead: ``int(info)`` is that code (0 when converged, the iterations
    when not, -1 for a breakdown), ``info.converged`` says ``info == 0`` in SciPy's terms.
    """

    __slots__ = ("status", "iterations", "residual", "rhs_norm", "relative_residual", "seconds", "history",
                 "message", "device")

    def __init__(self, d: dict, device: str) -> None:
        self.status: str = d["status"]
        self.iterations: int = int(d["iterations"])
        self.residual: float = float(d["residual"])
        self.rhs_norm: float = float(d["rhs_norm"])
        self.relative_residual: float = float(d["relative_residual"])
        self.seconds: float = float(d["seconds"])
        h = d.get("history")
        self.history: Optional[List[float]] = list(h) if h is not None else None
        self.message: str = d["message"]
        self.device: str = device

    @property
    def converged(self) -> bool:
        """True when status is 'converged' (SciPy's info == 0)."""
        return self.status == "converged"

    def __int__(self) -> int:
        """SciPy's info code: 0 converged, -1 breakdown, else the iterations run."""
        if self.status == "converged":
            return 0
        if self.status == "breakdown":
            return -1
        return max(self.iterations, 1)

    def __repr__(self) -> str:
        return (f"<spx.CgInfo {self.status}: {self.iterations} iterations, |r|/|b| = "
                f"{self.relative_residual:.3e}, {self.seconds:.3g} s on {self.device}>")


def _jacobi(M: Any) -> bool:
    if M is None:
        return False
    if isinstance(M, str):
        if M.lower() == "jacobi":
            return True
        if M.lower() == "none":
            return False
        raise ValueError(f"M={M!r}: spx's preconditioners are None and 'jacobi'")
    raise TypeError(f"M is a {type(M).__name__}: spx.cg takes M=None or M='jacobi' (the inverse diagonal "
                    "of A), not an operator; scipy.sparse.linalg.cg takes general preconditioners")


def _vector_on_device(A: Matrix, v: Any, what: str) -> "_arrays.DeviceArray":
    d = _arrays.device_array(v, what)
    if len(d.shape) != 1:
        raise ValueError(f"cg: {what} must be one-dimensional, not of shape {d.shape}")
    if d.shape[0] != A._rows:
        raise ValueError(f"cg: {what} has {d.shape[0]} entries, the matrix {A._rows} rows")
    if d.strides[0] != 1 and d.shape[0] > 1:
        raise ValueError(f"cg: {what} must be contiguous (a strided view: copy it with .copy())")
    _check_device_operand(A, d, what)
    return d


def _vector_on_host(A: Matrix, v: Any, what: str) -> np.ndarray:
    h = _arrays.host_array(v, A._dtype, what)
    if h.ndim != 1:
        raise ValueError(f"cg: {what} must be one-dimensional, not of shape {h.shape}")
    if h.shape[0] != A._rows:
        raise ValueError(f"cg: {what} has {h.shape[0]} entries, the matrix {A._rows} rows")
    return np.ascontiguousarray(h)


def cg(A: Any, b: Any, x0: Any = None, *, rtol: float = 1e-5, atol: float = 0.0,
       maxiter: Optional[int] = None, M: Any = None, history: bool = False,
       stream: Optional[int] = None, check_symmetric: bool = True) -> Tuple[Any, CgInfo]:
    """Solves A x = b by conjugate gradients, A symmetric positive definite: ``x, info = cg(A, b)``.

    As scipy.sparse.linalg.cg: stops when ‖r‖ <= max(rtol·‖b‖, atol) (r the recurred residual) or
    after maxiter iterations (default 10·n); x0 is the initial guess (default zero; never
    modified). M: None, or 'jacobi' for the inverse diagonal of A (a ValueError when a diagonal
    entry is absent, zero or negative). history=True keeps ‖r‖ of every iteration in info.history.
    Unlike SciPy, info is a CgInfo (status, iterations, residual, relative_residual, seconds,
    history, message); int(info) is SciPy's code.

    A: an spx.Matrix (a scipy.sparse matrix is converted, a copy). Where it runs follows the
    products: a host matrix with a numpy b runs spx::cg on every CPU core; a matrix on a GPU with a
    device b (CuPy, __cuda_array_interface__, CUDA DLPack) runs spx::cuda::CgSolver with no copies,
    ordered after the caller's current stream (or ``stream``), x a new array of b's kind; a GPU
    matrix with a numpy b copies b (and x0) in and x out. The call waits for the solve (info is read
    on the host). b and x0 of another dtype than A are converted when safe (numpy only: device arrays
    must match). The first solve on a GPU matrix plans the solver's SpMV and keeps it (and a copy
    of the CSR on the device) for the next ones.

    check_symmetric (default True): A is checked for symmetry first, as the CLI's ``spx cg`` does
    (|A(i,j) - A(j,i)| <= 1e-6·max|A(i,:)|, a missing mirror counting as 0): one pass over the host
    copy, O(nnz·log(row length)) — a few SpMVs on one core (89 ms for 6.9M entries) — done once
    per matrix object (the answer is kept, and carried by A.to()); check_symmetric=False skips it
    (a non-symmetric A then typically ends in status 'breakdown').

    Errors (before anything runs): ValueError for a non-square or non-symmetric A (naming the
    first asymmetric pair), for shapes, devices and tolerances; TypeError for a b or x0 whose dtype
    the matrix's cannot hold (float64 b, float32 A: pass b.astype(np.float32) or A.astype(np.float64)),
    for a complex one, and for an M that is not None or 'jacobi'. On the CPU, a RuntimeWarning (once
    per process) when NumPy's OpenBLAS and spx's OpenMP threads oversubscribe the cores.
    """
    if not isinstance(A, Matrix):
        if not _is_scipy_sparse(A):
            raise TypeError(f"cg: A is a {type(A).__name__}; pass an spx.Matrix (or a scipy.sparse matrix)")
        A = Matrix(A)
    n, m = A.shape
    if n != m:
        raise ValueError(f"cg: the matrix is {n} x {m}; CG needs a square, symmetric positive definite "
                         "matrix")
    if check_symmetric:
        _require_symmetric(A)
    rtol, atol = float(rtol), float(atol)
    if not rtol >= 0 or not atol >= 0:
        raise ValueError(f"cg: rtol = {rtol} and atol = {atol} must be >= 0")
    maxiter = 10 * n if maxiter is None else int(maxiter)
    if maxiter < 0:
        raise ValueError(f"cg: maxiter = {maxiter} must be >= 0")
    jacobi = _jacobi(M)
    history = bool(history)
    args = (rtol, atol, maxiter, jacobi, history)

    if A._dev >= 0 and _arrays.is_device_array(b):
        db = _vector_on_device(A, b, "b")
        dx0 = None
        if x0 is not None:
            if not _arrays.is_device_array(x0):
                raise ValueError("cg: b is on the GPU and x0 in host memory; pass both on one side")
            dx0 = _vector_on_device(A, x0, "x0")
        x = _same_kind_empty(b, (n,), A._dtype, "C", A._dev)
        if n == 0:
            return x, _empty_info(A, history)
        dx = _arrays.device_array(x, "x")
        s, held = (int(stream), None) if stream is not None else _arrays.current_stream(b)
        res = A._m.cg_device(db.ptr, dx.ptr, dx0.ptr if dx0 is not None else 0, *args, s)
        _arrays.after_call(A._m, A._dev, s if stream is not None else None, held)
        return x, CgInfo(res, f"cuda:{A._dev}")

    for v, what in ((b, "b"), (x0, "x0")):
        if v is not None and _arrays.is_device_array(v):
            if A._dev < 0:
                raise ValueError(f"cg: {what} is on the GPU but the matrix is on the host: move it with "
                                 "A.to('cuda')")
            raise ValueError("cg: x0 is on the GPU and b in host memory; pass both on one side")
    if stream is not None:
        _warn_host_stream("cg", "b")
    bh = _vector_on_host(A, b, "b")
    x = np.zeros(n, dtype=A._dtype) if x0 is None else _vector_on_host(A, x0, "x0").copy()
    if n == 0:
        return x, _empty_info(A, history)
    if A._dev < 0:
        _threads.warn_if_oversubscribed(A.nnz)
        res = A._m.cg_cpu(bh, x, x0 is not None, *args)
        return x, CgInfo(res, "cpu")
    res = A._m.cg_host_on_gpu(bh, x, x0 is not None, *args)
    return x, CgInfo(res, f"cuda:{A._dev}")


def _require_symmetric(A: Matrix) -> None:
    """ValueError naming the first asymmetric pair; the answer is kept on the (immutable) matrix."""
    if A._symmetric is None:
        A._symmetric = A._m.asymmetry() or True
    if A._symmetric is not True:
        r, c, value, mirror = A._symmetric
        raise ValueError(f"cg: the matrix is not symmetric: A({r},{c}) = {value:.17g} but A({c},{r}) = "
                         f"{mirror:.17g}; CG needs a symmetric positive definite matrix (scipy.sparse.linalg."
                         "gmres or bicgstab take general ones; check_symmetric=False skips this check)")


def _empty_info(A: Matrix, history: bool) -> CgInfo:
    """A 0 x 0 system: nothing to solve (x is empty)."""
    d = {"status": "converged", "iterations": 0, "residual": 0.0, "rhs_norm": 0.0, "relative_residual": 0.0,
         "seconds": 0.0, "message": "converged in 0 iterations: the system is empty",
         "history": [0.0] if history else None}
    return CgInfo(d, "cpu" if A._dev < 0 else f"cuda:{A._dev}")
