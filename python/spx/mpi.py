"""spx on the processes of an MPI job: a matrix spread over them by rows, its product and CG.

Every process runs the same script under ``mpirun -n N python script.py``::

    import numpy as np, spx, spx.mpi
    A = spx.generate("stencil2d:n=300") if spx.mpi.rank() == 0 else None   # root's matrix only
    D = spx.mpi.distribute(A, partition="auto", products=1000)   # every rank: its block of rows
    b = D.part(np.ones(D.shape[0]))                   # this rank's rows of a whole vector
    x, info = D.cg(b, rtol=1e-8, M="jacobi")          # the same info on every rank
    x_all = D.gather(x)                               # root: the whole solution; others: None

Each process runs spx's OpenMP kernels on its rows and exchanges the halo with MPI (spx/dist_mpi.hpp,
docs/distributed.md "MPI ranks on CPUs"): products are bitwise those of one process, CG's iterates
bitwise the same for every process count (per numbering: ``partition`` 'metis' or 'rcm', or 'auto'
choosing one, renumbers the matrix; ``part`` and ``gather`` take and give vectors in the original
numbering). Every call here is collective: every process must make it, in the same order.

mpi4py is optional. spx starts MPI itself when nothing has (and ends it at exit); when mpi4py (or
anything else) started it first, spx uses that. spx's ranks span MPI_COMM_WORLD: a communicator
passed as ``comm`` must be it (or one of the same processes in the same order).
"""

from __future__ import annotations

import atexit
from typing import Any, Optional, Tuple

import numpy as np

from . import _spx
from ._cg import CgInfo
from ._matrix import Matrix

__all__ = ["available", "rank", "size", "distribute", "RankMatrix"]

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def available() -> bool:
    """True when this build of spx has the MPI ranks (else every other call raises RuntimeError)."""
    return bool(_spx.mpi_built())


def _check_comm(comm: Any) -> None:
    if comm is None:
        return
    try:
        same = comm.Get_size() == _spx.mpi_size() and comm.Get_rank() == _spx.mpi_rank()
    except AttributeError:
        raise TypeError("comm: an mpi4py communicator (or None)") from None
    if not same:
        raise ValueError(f"comm: spx's ranks span MPI_COMM_WORLD ({_spx.mpi_size()} processes); this "
                         f"communicator has {comm.Get_size()}: pass MPI.COMM_WORLD or None")


def rank(comm: Any = None) -> int:
    """This process's rank in the job (0 without mpirun)."""
    _check_comm(comm)
    return int(_spx.mpi_rank())


def size(comm: Any = None) -> int:
    """The number of processes in the job (1 without mpirun)."""
    _check_comm(comm)
    return int(_spx.mpi_size())


class RankMatrix:
    """This process's block of rows of a matrix spread over the job (made by ``spx.mpi.distribute``).

    shape: the whole matrix's; dtype; rows: this rank's rows (a range, in the matrix's numbering:
    renumbered when ``partition`` is 'metis' or 'rcm'); owned: the x entries it owns (the same
    range for a square matrix); partition: the split used ('auto' resolved); report: every
    candidate the choice weighed (on the root; '' elsewhere or without a choice); perm: new row i is
    old row perm[i] when renumbered, else None.
    """

    __slots__ = ("_m", "shape", "dtype", "rows", "owned", "perm", "partition", "report")

    def __init__(self, m: Any) -> None:
        self._m = m
        rows, cols, r0, r1, c0, owned = m.shape_of_rank
        self.shape: Tuple[int, int] = (int(rows), int(cols))
        self.dtype = _DTYPES[0] if m.f32 else _DTYPES[1]
        self.rows = range(int(r0), int(r1))
        self.owned = range(int(c0), int(c0) + int(owned))
        perm = np.asarray(m.perm, dtype=np.int32)
        self.perm: Optional[np.ndarray] = perm if perm.size else None
        self.partition: str = m.partition
        self.report: str = m.report

    def __repr__(self) -> str:
        return (f"<spx.mpi.RankMatrix {self.shape[0]}x{self.shape[1]} {self.dtype}, rank {rank()} of {size()}: "
                f"rows {self.rows.start}..{self.rows.stop - 1}, partition {self.partition}>")

    def _vector(self, v: Any, n: int, what: str) -> np.ndarray:
        a = np.ascontiguousarray(v, dtype=self.dtype)
        if a.ndim != 1 or a.shape[0] != n:
            raise ValueError(f"{what}: {a.shape} entries, needs ({n},): this rank's part (RankMatrix.part)")
        return a

    def part(self, v: Any) -> np.ndarray:
        """This rank's rows of a whole vector given in the original numbering (a copy)."""
        a = np.asarray(v)
        if a.ndim != 1 or a.shape[0] != self.shape[0]:
            raise ValueError(f"part: a whole vector has ({self.shape[0]},) entries, this one {a.shape}")
        idx = self.perm[self.rows.start:self.rows.stop] if self.perm is not None else slice(self.rows.start,
                                                                                              self.rows.stop)
        return np.ascontiguousarray(a[idx], dtype=self.dtype)

    def matvec(self, x: Any) -> np.ndarray:
        """This rank's rows of A·x, x this rank's owned entries (collective)."""
        xa = self._vector(x, len(self.owned), "matvec: x")
        y = np.empty(len(self.rows), dtype=self.dtype)
        self._m.spmv(xa, y)
        return y

    def __matmul__(self, x: Any) -> np.ndarray:
        return self.matvec(x)

    def cg(self, b: Any, x0: Any = None, *, rtol: float = 1e-5, atol: float = 0.0, maxiter: Optional[int] = None,
           M: Optional[str] = None, history: bool = False) -> Tuple[np.ndarray, CgInfo]:
        """CG on A x = b (A square and symmetric positive definite; b and x0 this rank's rows), as
        spx.cg: returns (this rank's rows of x, CgInfo), the same info on every rank (collective).
        M: None or 'jacobi'; maxiter: default 10·n (n the whole matrix's rows)."""
        if M not in (None, "jacobi"):
            raise ValueError(f"M: None or 'jacobi', not {M!r}")
        maxiter = 10 * self.shape[0] if maxiter is None else int(maxiter)
        if maxiter < 0:
            raise ValueError(f"cg: maxiter = {maxiter} must be >= 0")
        ba = self._vector(b, len(self.rows), "cg: b")
        x = np.zeros(len(self.rows), dtype=self.dtype) if x0 is None else self._vector(x0, len(self.rows),
                                                                                      "cg: x0").copy()
        d = self._m.cg(ba, x, x0 is not None, float(rtol), float(atol), maxiter, M == "jacobi", bool(history))
        return x, CgInfo(d, f"mpi:{size()}")

    def gather(self, y: Any, root: int = 0) -> Optional[np.ndarray]:
        """Every rank's rows of y, whole and in the original numbering, on ``root``; None elsewhere
        (collective)."""
        whole = self._m.gather(self._vector(y, len(self.rows), "gather: y"), int(root))
        if rank() != root:
            return None
        if self.perm is None:
            return whole
        out = np.empty_like(whole)
        out[self.perm] = whole
        return out


def distribute(A: Any = None, *, root: int = 0, partition: str = "rows", dtype: Any = np.float64,
               products: int = 1000, comm: Any = None) -> RankMatrix:
    """Spreads root's matrix over the job by rows; every rank gets its block (collective).

    A: on ``root``, anything spx.Matrix takes (None elsewhere; it is read only on the root);
    partition: 'rows' (blocks balanced by nonzeros), 'metis', 'rcm' or 'auto' (the one whose halo
    repays its cost over ``products`` products; docs/distributed.md); dtype: float32 or float64,
    the same on every rank. Errors on the root (a bad matrix) reach every rank as RuntimeError.
    """
    _check_comm(comm)
    dt = np.dtype(dtype)
    if dt not in _DTYPES:
        raise ValueError(f"dtype: float32 or float64, not {dt}")
    m = None
    if A is not None and rank() == root:
        m = Matrix(A, dtype=dt, index="32")._m
    return RankMatrix(_spx.mpi_distribute(m, dt == _DTYPES[0], int(root), str(partition), int(products)))


# Ends MPI at exit when spx started it (a no-op otherwise, and when MPI was never used).
atexit.register(_spx.mpi_finalize)
