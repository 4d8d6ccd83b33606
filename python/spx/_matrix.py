"""spx.Matrix, spx.Plan and the products (spx.spmv, spx.spmm); the package spx re-exports them.

Private module: import from spx. docs/python.md has the whole story.
"""

from __future__ import annotations

import math
import numbers
import os
import sys
import warnings
from typing import Any, Optional, Tuple

import numpy as np

from . import _arrays
from . import _spx

_INT32_MAX = 2**31 - 1
_INT64_MAX = 2**63 - 1
_INDEX_WIDTHS = ("auto", "32", "64")  # index= of Matrix() and A.to('cuda'): spx::plan::IndexWidth
_DTYPES = {np.dtype(np.float32): True, np.dtype(np.float64): False}  # dtype -> "is f32"


def built_with_cuda() -> bool:
    """True when this build of spx has the CUDA backend (nvcc was found when it was built)."""
    return _spx.built_with_cuda()


def cuda_available() -> bool:
    """True when a GPU call can run here: built with CUDA, and a driver and a device are present."""
    return _spx.gpu_count() > 0


def gpu_unavailable_reason() -> str:
    """Why GPU calls cannot run here ('' when they can)."""
    return _spx.gpu_unavailable()


def _value_dtype(dtype: Any, what: str) -> np.dtype:
    """float32 or float64 from a dtype-like; integers and bools become float64, float16 float32."""
    d = np.dtype(dtype)
    if d in _DTYPES:
        return d
    if d.kind == "c":
        raise TypeError(f"{what} is complex ({d}); spx computes with real float32 and float64 only "
                        "(split real and imaginary parts into two real products)")
    if d.kind in "biu":
        return np.dtype(np.float64)
    if d == np.float16:
        return np.dtype(np.float32)
    raise TypeError(f"{what} has dtype {d}; spx computes with float32 and float64 "
                    "(convert with .astype(np.float64))")


def _index_width(index: Any) -> str:
    """index= : 'auto', '32' or '64' (the ints 32 and 64 too); ValueError for anything else."""
    word = str(index) if isinstance(index, (str, int)) and not isinstance(index, bool) else None
    if word not in _INDEX_WIDTHS:
        raise ValueError(f"index {index!r}: use 'auto' (32-bit row offsets where the matrix fits them), "
                         "'32' or '64'")
    return word


def _parse_device(device: Any) -> int:
    """'cpu' -> -1, 'cuda' -> 0, 'cuda:N' -> N (also ints and objects with .id, e.g. cupy.cuda.Device)."""
    if isinstance(device, int):
        return device
    if hasattr(device, "id"):
        return int(device.id)
    s = str(device)
    if s == "cpu":
        return -1
    if s == "cuda" or s == "gpu":
        return 0
    if s.startswith("cuda:") and s[5:].isdigit():
        return int(s[5:])
    raise ValueError(f"device {device!r}: use 'cpu', 'cuda' or 'cuda:N'")


class Plan:
    """What a product runs with on the GPU: the kernel, who wrote it, and why it was chosen.

    Attributes follow spx::plan::Report: op ('spmv'/'spmm'), cols_dense (L), mode, decided_by,
    kernel, owner ('spx' or 'cuSPARSE'), format, params, predicted_us, measured_us, planning_us,
    setup_us, candidates. explain() is the report for people.
    """

    __slots__ = ("_info",)

    def __init__(self, info: Any) -> None:
        self._info = info

    def __getattr__(self, name: str) -> Any:
        """The report's fields (kernel, owner, params, ...), read from the compiled core's PlanInfo."""
        return getattr(self._info, name)

    def explain(self) -> str:
        """Candidates, predicted and measured µs, setup, memory, and why the winner won."""
        return self._info.explain

    def __repr__(self) -> str:
        i = self._info
        what = f"{i.op}" + (f" L={i.cols_dense}" if i.op == "spmm" else "")
        return f"<spx.Plan {what}: {i.owner} {i.kernel} ({i.params}), decided by {i.decided_by}>"


class Matrix:
    """A sparse matrix in canonical CSR (float32 or float64 values; int32 or int64 indices on the
    host, 32- or 64-bit row offsets on a GPU: ``index_dtype``).

    Made from:
      * a scipy.sparse matrix or array of any format (converted to CSR; duplicates summed,
        columns sorted; integer and bool values become float64, complex is a TypeError; int32 or
        int64 indices, handed to the compiled core as they are: no copy in Python);
      * a cupyx.scipy.sparse matrix (int32 or int64 indices): the result is on its GPU. Its arrays
        are downloaded once at their own dtypes to make the host copy every spx.Matrix keeps, which
        is uploaded again (32- or 64-bit row offsets as the host copy's indices);
      * ``(data, indices, indptr)`` with ``shape=(m, n)``, or ``(data, indices, indptr, shape)``;
      * another Matrix (shared, or cast with ``dtype=`` and ``index=``).
    ``spx.read(path)`` reads a Matrix Market file, ``spx.generate(spec)`` runs a generator.

    index: the host copy's index width. 'auto' (the default): int32 indices stay int32; int64
    indices stay int64 only where the matrix needs them (more than 2**31 - 1 nonzeros) and are
    narrowed in spx's one copy otherwise, since more GPU kernels run at 32 bits and the copy is
    smaller. '64' keeps (or widens to) int64; '32' narrows, a ValueError past 2**31 - 1 nonzeros.
    The copy's bytes are checked against the host memory available first (ValueError with both).

    The matrix is immutable. It lives on the host (``device == 'cpu'``) or on a GPU
    (``A.to('cuda')``, which keeps the host copy too). ``A @ x`` and ``A @ X`` are SpMV and SpMM;
    ``A.T``, ``A * s``, ``A / s``, ``A + B`` make new matrices and ``x @ A`` is ``A.T @ x``;
    scipy.sparse.linalg's solvers take the matrix as a linear operator (``A.aslinearoperator()``).

    Errors: TypeError for a source that is not one of the above, complex values or non-integer
    indices or shape entries; ValueError for a structure that is not a CSR (naming the first bad
    entry), more than 2**31 - 1 rows or columns, or a copy larger than the host memory available.
    """

    __slots__ = ("_m", "_dtype", "_itemsize", "_dev", "_rows", "_cols", "_stats", "_spmv_cupy", "_symmetric")

    # NumPy defers to Matrix for x @ A, s * A (and refuses the rest) instead of making an object array.
    __array_ufunc__ = None

    def __init__(self, source: Any, shape: Optional[Tuple[int, int]] = None, dtype: Any = None,
                 index: Any = "auto") -> None:
        width = _index_width(index)
        if isinstance(source, Matrix):
            m = source._m
            cast = dtype is not None and _value_dtype(dtype, "dtype") != source.dtype
            if cast:
                m = m.astype(_DTYPES[_value_dtype(dtype, "dtype")])
            if width != "auto" and int(width) != m.index_bits:
                m, cast = m.with_index_bits(int(width)), True
            if cast and source._dev >= 0:
                m = m.to_device(source._dev, source._index_word())
        elif isinstance(source, tuple):
            if len(source) == 4 and shape is None:
                data, indices, indptr, shape = source
            elif len(source) == 3 and shape is not None:
                data, indices, indptr = source
            else:
                raise TypeError("a tuple source is (data, indices, indptr, shape) or (data, indices, indptr) "
                                "with shape=(rows, cols)")
            m = _from_arrays(data, indices, indptr, shape, dtype, width)
        elif _is_scipy_sparse(source):
            m = _from_scipy(source, dtype, width)
        elif _is_cupy_sparse(source):  # lands on the CuPy matrix's GPU, through the host copy
            m, dev = _from_cupy_sparse(source, dtype, width)
            m = m.to_device(dev, "64" if m.index_bits == 64 else "auto")
        else:
            raise TypeError(f"cannot make an spx.Matrix from {type(source).__name__}: pass a scipy.sparse "
                            "matrix, (data, indices, indptr, shape), or use spx.read / spx.generate")
        self._set(m)

    def _set(self, m: Any) -> "Matrix":
        self._m = m
        self._dtype = np.dtype(m.dtype)
        self._itemsize = self._dtype.itemsize
        self._spmv_cupy = m.spmv_cupy  # the CuPy fast path, bound once
        self._dev = m.device_index
        self._rows = m.rows
        self._cols = m.cols
        self._stats = None
        self._symmetric = None  # cached by spx.cg's symmetry check (the matrix is immutable)
        return self

    @classmethod
    def _wrap(cls, m: Any) -> "Matrix":
        return cls.__new__(cls)._set(m)

    # --- properties --------------------------------------------------------------------------------
    @property
    def shape(self) -> Tuple[int, int]:
        """(rows, cols)."""
        return (self._rows, self._cols)

    @property
    def nnz(self) -> int:
        """The number of stored entries (explicit zeros included)."""
        return self._m.nnz

    @property
    def dtype(self) -> np.dtype:
        """The value type: numpy.float32 or numpy.float64."""
        return self._dtype

    @property
    def device(self) -> str:
        """'cpu' or 'cuda' (the device number is device_id)."""
        return "cpu" if self._dev < 0 else "cuda"

    @property
    def device_id(self) -> int:
        """The CUDA device the matrix lives on; -1 on the host."""
        return self._dev

    @property
    def index_dtype(self) -> np.dtype:
        """The index dtype as held where the matrix lives: on the host, the copy's (numpy.int32, or
        numpy.int64 for ``Matrix(..., index='64')`` or past 2**31 - 1 nonzeros); on a GPU, the row
        offsets' (numpy.int64 with ``A.to('cuda', index='64')`` or past 2**31 - 1 nonzeros)."""
        return np.dtype(np.int64) if self._m.offset_bits == 64 else np.dtype(np.int32)

    def _index_word(self) -> str:
        """index= that gives this matrix's offsets again (for a copy on the same device)."""
        return "64" if self._m.offset_bits == 64 else "auto"

    @property
    def stats(self) -> dict:
        """Row-length statistics, bandwidth, ELL padding ratio and the structure fingerprint."""
        if self._stats is None:
            self._stats = self._m.stats()
        return dict(self._stats)

    def _where(self) -> str:
        return "the host" if self._dev < 0 else f"cuda:{self._dev}"

    def __repr__(self) -> str:
        dev = self.device if self._dev <= 0 else f"cuda:{self._dev}"
        return f"<spx.Matrix {self._rows}x{self._cols}, {self.nnz} nonzeros, {self._dtype}, {dev}>"

    # --- conversions -------------------------------------------------------------------------------
    def to(self, device: Any, index: Any = "auto") -> "Matrix":
        """The matrix on 'cpu', 'cuda' or 'cuda:N' (self when already there).

        Moving to a GPU uploads the CSR and plans its SpMV; the host copy is shared, not copied.
        index: the row offsets' width on the GPU: 'auto' (32 bits where the matrix fits them),
        '32' or '64' (64-bit offsets on any matrix: the kernels with a 64-bit path run it);
        ``index_dtype`` says which. RuntimeError when no CUDA GPU is available (the message says
        why; spx.cuda_available() asks first), ValueError for a device that is not 'cpu', 'cuda'
        or 'cuda:N', or an index that is not 'auto', '32' or '64'.
        """
        d = _parse_device(device)
        width = _index_width(index)
        if d == self._dev and (d < 0 or width == "auto" or int(width) == self._m.offset_bits):
            return self
        if d >= 0 and not cuda_available():
            raise RuntimeError(f"spx: cannot move the matrix to cuda:{d}: no CUDA GPU is available: "
                               f"{gpu_unavailable_reason()}; spx.cuda_available() checks first, "
                               "`nvidia-smi` lists the GPUs the driver sees")
        m = Matrix._wrap(self._m.to_device(d, width))
        m._symmetric = self._symmetric  # the same values
        return m

    def cuda(self, device: int = 0, index: Any = "auto") -> "Matrix":
        """The matrix on GPU `device` (``A.to(f'cuda:{device}', index=index)``); RuntimeError without
        a CUDA GPU."""
        return self.to(device, index)

    def cpu(self) -> "Matrix":
        """The matrix on the host (``A.to('cpu')``; the host copy a GPU matrix keeps, nothing is copied)."""
        return self.to("cpu")

    def astype(self, dtype: Any) -> "Matrix":
        """The matrix with float32 or float64 values, on the same device (self when unchanged)."""
        d = _value_dtype(dtype, "dtype")
        if d == self._dtype:
            return self
        m = self._m.astype(_DTYPES[d])
        return Matrix._wrap(m.to_device(self._dev, self._index_word()) if self._dev >= 0 else m)

    def arrays(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(data, indices, indptr) as new numpy arrays (indices of the host copy's dtype)."""
        indptr, indices, data = self._m.arrays()
        return data, indices, indptr

    def to_scipy(self) -> Any:
        """A scipy.sparse.csr_array with a copy of the matrix (canonical: sorted, no duplicates)."""
        import scipy.sparse as sp

        data, indices, indptr = self.arrays()
        make = getattr(sp, "csr_array", sp.csr_matrix)
        S = make((data, indices, indptr), shape=self.shape)
        if S.indices.dtype != indices.dtype:  # SciPy narrows int64 that fits; keep the width as held
            S.indices, S.indptr = indices, indptr
        return S

    # --- products ----------------------------------------------------------------------------------
    def __matmul__(self, other: Any) -> Any:
        """A @ x (x one-dimensional: spx.spmv) and A @ X (two-dimensional: spx.spmm)."""
        if type(other) is _CupyFast.ndarray:  # None until spx has seen CuPy
            y = self._spmv_cupy(other, None, 1.0, 0.0)  # None unless the common case: see below
            if y is not None:
                return y
        nd = getattr(other, "ndim", None)
        if nd is None:
            other = np.asarray(other)
            nd = other.ndim
        if nd == 1:
            return spmv(self, other)
        if nd == 2:
            return spmm(self, other)
        raise ValueError(f"A @ x: x has {nd} dimensions; spx multiplies vectors (SpMV) and matrices (SpMM)")

    # --- algebra (python/spx/_algebra.py) -------------------------------------------------------
    @property
    def T(self) -> "Matrix":
        """The transpose, a new matrix on the same device (O(nnz) on the host; a GPU matrix uploads
        and plans the copy)."""
        return _algebra.transpose(self)

    def transpose(self) -> "Matrix":
        """The transpose (``A.T``)."""
        return _algebra.transpose(self)

    def __mul__(self, s: Any) -> "Matrix":
        """A * s: a new matrix with every value times the real scalar s (A @ x is the product)."""
        return _algebra.scale(self, s, "*")

    def __rmul__(self, s: Any) -> "Matrix":
        """s * A: as A * s."""
        return _algebra.scale(self, s, "*")

    def __truediv__(self, s: Any) -> "Matrix":
        """A / s: a new matrix with every value divided by the real scalar s."""
        return _algebra.scale(self, s, "/")

    def __neg__(self) -> "Matrix":
        """-A: every value negated."""
        return _algebra.scale(self, -1.0, "*")

    def __add__(self, other: Any) -> "Matrix":
        """A + B for a matrix B of A's shape on A's device, through SciPy on the host copies."""
        return _algebra.add(self, other, 1.0)

    def __radd__(self, other: Any) -> "Matrix":
        """B + A: as A + B."""
        return _algebra.add(self, other, 1.0)

    def __sub__(self, other: Any) -> "Matrix":
        """A - B: as A + B."""
        return _algebra.add(self, other, -1.0)

    def __rsub__(self, other: Any) -> "Matrix":
        """B - A: as A + B."""
        return _algebra.add(-self, other, 1.0)

    def __rmatmul__(self, other: Any) -> Any:
        """x @ A, the row vector x times A (= A.T @ x), on the host: see spx.Matrix.rmatvec."""
        return _algebra.rmatmul(self, other)

    # --- the LinearOperator protocol (python/spx/_linop.py) -------------------------------------
    def matvec(self, x: Any) -> Any:
        """A @ x; x of shape (cols,) or (cols, 1), as scipy.sparse.linalg.LinearOperator.matvec."""
        return _linop.matvec(self, x)

    def rmatvec(self, x: Any) -> Any:
        """A.T @ x (= x @ A) for a host matrix and a numpy x of shape (rows,) or (rows, 1), on one
        thread without forming A.T (make AT = A.T once to repeat it on every core). ValueError for a
        GPU matrix: use A.T there."""
        return _linop.rmatvec(self, x)

    def matmat(self, X: Any) -> Any:
        """A @ X for a dense X of shape (cols, k)."""
        return _linop.matmat(self, X)

    def rmatmat(self, X: Any) -> Any:
        """A.T @ X for a dense X of shape (rows, k), host matrices only (forms A.T each call)."""
        return _linop.rmatmat(self, X)

    def aslinearoperator(self) -> Any:
        """The matrix as a LinearOperator for iterative solvers: scipy.sparse.linalg's for a host
        matrix (``scipy.sparse.linalg.gmres(A.aslinearoperator(), b)``; scipy's solvers also take
        the matrix itself), cupyx.scipy.sparse.linalg's for a GPU matrix (ImportError without CuPy).
        Products go through spx; nothing is copied."""
        return _linop.aslinearoperator(self)

    def plan(self, op: str = "spmv", L: Optional[int] = None, *, layout: str = "row", mode: str = "auto",
             expected_calls: int = 100, deterministic_only: bool = False, measure_top: int = 4,
             tuning_cache: Optional[str] = None, replan: bool = True) -> Plan:
        """Plans a product on the GPU now and returns the plan (``.explain()`` for people).

        op 'spmv' or 'spmm' (then L, the number of columns of X, is needed); layout of X and Y for
        SpMM: 'row' (C order) or 'col' (Fortran order); mode 'auto' (the model, timing the top
        candidates when their predictions are too close to call), 'rule', 'model', 'measure' or 'tune';
        expected_calls amortises setup; tuning_cache: a file of earlier plans (None reads
        $SPX_TUNING_CACHE, '-' none). replan=False returns the current plan (planned with the
        defaults on first use) instead of planning again.
        """
        if self._dev < 0:
            raise ValueError("plans are for matrices on the GPU: plan A.to('cuda')")
        if op not in ("spmv", "spmm"):
            raise ValueError(f"op {op!r}: use 'spmv' or 'spmm'")
        if op == "spmm" and (L is None or int(L) < 1):
            raise ValueError("an SpMM plan needs L >= 1, the number of columns of X")
        if layout not in ("row", "col"):
            raise ValueError(f"layout {layout!r}: use 'row' (C order) or 'col' (Fortran order)")
        if mode not in ("auto", "rule", "model", "measure", "tune"):
            raise ValueError(f"mode {mode!r}: use 'auto', 'rule', 'model', 'measure' or 'tune'")
        if int(expected_calls) < 1:
            raise ValueError(f"expected_calls {expected_calls}: must be at least 1")
        info = self._m.plan(op == "spmm", int(L or 0), layout == "row", mode, int(expected_calls),
                            bool(deterministic_only), int(measure_top), tuning_cache or "", replan)
        return Plan(info)


def _is_scipy_sparse(obj: Any) -> bool:
    mod = type(obj).__module__
    if not mod.startswith("scipy.sparse"):
        return False
    import scipy.sparse as sp

    return sp.issparse(obj)


def _is_cupy_sparse(obj: Any) -> bool:
    """A cupyx.scipy.sparse matrix (checked by module name: CuPy is never imported for this)."""
    return type(obj).__module__.startswith("cupyx.scipy.sparse") and hasattr(obj, "tocsr")


def _from_cupy_sparse(S: Any, dtype: Any, index: str) -> Tuple[Any, int]:
    """(the host matrix, the CuPy device): the CSR's three arrays downloaded at their own dtypes
    (int32 or int64 indices, never narrowed here), the download's bytes checked first, then spx's
    one host copy as for SciPy (the width by index=)."""
    C = S.tocsr()
    rows, cols = _check_shape(C.shape)
    nnz = int(C.nnz)
    bits = 64 if C.indices.dtype.itemsize == 8 or C.indptr.dtype.itemsize == 8 else 32
    _spx.require_host_copy(rows, cols, nnz, C.data.dtype.itemsize, bits, "the CuPy matrix's download")
    with C.device:
        data, indices, indptr = C.data.get(), C.indices.get(), C.indptr.get()
    return _from_arrays(data, indices, indptr, (rows, cols), dtype, index), int(C.device.id)


def _dimension(n: Any, shape: Any) -> int:
    """One entry of a shape: an integer (Python's or numpy's; not a bool, not a float such as 2.9)."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral):
        raise TypeError(f"shape {shape!r}: rows and cols must be integers, not {type(n).__name__}")
    return int(n)


def _check_shape(shape: Any) -> Tuple[int, int]:
    try:
        rows, cols = shape
    except (TypeError, ValueError):
        raise ValueError(f"shape {shape!r}: a sparse matrix has shape (rows, cols)") from None
    rows, cols = _dimension(rows, shape), _dimension(cols, shape)
    if rows < 0 or cols < 0:
        raise ValueError(f"shape ({rows}, {cols}) is negative")
    if rows > _INT32_MAX or cols > _INT32_MAX:
        raise ValueError(f"shape ({rows}, {cols}): spx uses 32-bit indices (at most {_INT32_MAX} rows and columns)")
    return rows, cols


def _index_array(a: Any, what: str) -> np.ndarray:
    """A contiguous int32 or int64 array, as given when it is one (SciPy's int64 indices are not
    narrowed here: the compiled core decides the width of the copy it makes); other integers become
    int32 where their values fit, int64 otherwise."""
    a = np.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, not of shape {a.shape}")
    if a.dtype.kind not in "iu" and a.size:
        raise TypeError(f"{what} must hold integers, not {a.dtype}")
    if a.dtype == np.int32 or a.dtype == np.int64:
        return np.ascontiguousarray(a)
    if a.size and (int(a.max()) > _INT32_MAX or int(a.min()) < -_INT32_MAX):
        if int(a.max()) > _INT64_MAX:
            raise ValueError(f"{what} holds values beyond 64-bit indices (at most {_INT64_MAX})")
        return np.ascontiguousarray(a, dtype=np.int64)
    return np.ascontiguousarray(a, dtype=np.int32)


def _from_arrays(data: Any, indices: Any, indptr: Any, shape: Any, dtype: Any, index: str = "auto") -> Any:
    rows, cols = _check_shape(shape)
    data = np.asarray(data)
    if data.ndim != 1:
        raise ValueError(f"data must be one-dimensional, not of shape {data.shape}")
    d = _value_dtype(dtype if dtype is not None else data.dtype, "data" if dtype is None else "dtype")
    if data.dtype.kind == "c":
        _value_dtype(data.dtype, "data")  # raises
    p, i = _index_array(indptr, "indptr"), _index_array(indices, "indices")
    if p.dtype != i.dtype:  # one index type for both: the narrower widens (never narrowed in Python)
        p, i = p.astype(np.int64, copy=False), i.astype(np.int64, copy=False)
    return _spx.from_csr(rows, cols, p, i, np.ascontiguousarray(data, dtype=d), index)


def _from_scipy(S: Any, dtype: Any, index: str = "auto") -> Any:
    d = _value_dtype(dtype if dtype is not None else S.dtype, "the scipy matrix" if dtype is None else "dtype")
    if S.dtype.kind == "c":
        _value_dtype(S.dtype, "the scipy matrix")  # raises
    if S.ndim != 2:
        raise ValueError(f"the scipy array has {S.ndim} dimensions; spx matrices have 2")
    C = S.tocsr()  # any format; duplicates of COO are summed here, the rest by spx
    return _from_arrays(C.data, C.indices, C.indptr, C.shape, d, index)


def read(path: "os.PathLike[str] | str", dtype: Any = np.float64, index: Any = "auto") -> Matrix:
    """Reads a Matrix Market file (.mtx, or gzip-compressed: detected from the content).

    Coordinate (real, integer, pattern; general, symmetric, skew-symmetric: expanded) and array
    files. Errors name the file and line (ValueError); a missing file is FileNotFoundError.
    index: the copy's index dtype: 'auto' (int64 where the header says more than 2**31 - 1
    nonzeros, else int32), '32' or '64'.
    """
    width = _index_width(index)
    p = os.fspath(path)
    if not os.path.exists(p):
        raise FileNotFoundError(f"{p}: no such file")
    return Matrix._wrap(_spx.read(p, _DTYPES[_value_dtype(dtype, "dtype")], width))


def generate(spec: str, dtype: Any = np.float64, index: Any = "auto") -> Matrix:
    """Runs a generator spec, e.g. 'stencil27:n=32', 'rmat:scale=16,ef=8' (spx.generators() lists
    the kinds and their keys). A bad spec is a ValueError saying what is accepted. index: as
    spx.read's ('auto': int64 where the generator's size needs it)."""
    width = _index_width(index)
    return Matrix._wrap(_spx.generate(str(spec), _DTYPES[_value_dtype(dtype, "dtype")], width))


def generators() -> list:
    """[(kind, keys with defaults, summary)] for every generator kind."""
    return list(_spx.generators())


# --- products ------------------------------------------------------------------------------------

def _real(v: Any, name: str) -> float:
    """alpha or beta: a finite real number (int, float, a numpy integer or float scalar or 0-d array)."""
    if isinstance(v, np.ndarray) and v.ndim == 0 and v.dtype.kind in "iuf":
        v = v[()]
    if not isinstance(v, numbers.Real):
        raise TypeError(f"{name} = {v!r}: must be a real number (int, float or a numpy scalar), "
                        f"not {type(v).__name__}")
    f = float(v)
    if not math.isfinite(f):
        raise ValueError(f"{name} = {f} is not finite")
    return f


def _check_scalars(alpha: Any, beta: Any, out: Any) -> Tuple[float, float]:
    a, b = _real(alpha, "alpha"), _real(beta, "beta")
    if b != 0.0 and out is None:
        raise ValueError("beta != 0 scales the output: pass it as out=")
    return a, b


def _warn_host_stream(who: str, what: str) -> None:
    """stream= orders device work; with a host operand the call runs (and waits) on its own."""
    warnings.warn(f"spx.{who}: stream= is ignored: {what} is in host memory, so the call runs without "
                  "it and returns when the result is ready (pass a device array to run on a stream)",
                  UserWarning, stacklevel=3)


def _same_kind_empty(x: Any, shape: Tuple[int, ...], dtype: np.dtype, order: str, device: int) -> Any:
    """A new device array of x's library (CuPy; PyTorch), on `device`, for the output."""
    cp = _arrays._cupy()
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        t = torch.empty(shape[::-1] if order == "F" else shape, dtype=getattr(torch, dtype.name),
                        device=f"cuda:{device}")
        return t.T if order == "F" else t
    if cp is None:
        try:
            import cupy as cp  # type: ignore[no-redef]
        except ImportError:
            raise TypeError(f"cannot make an output array for {type(x).__name__}: pass out=") from None
    if cp.cuda.runtime.getDevice() == device:
        return cp.empty(shape, dtype=dtype, order=order)
    with cp.cuda.Device(device):
        return cp.empty(shape, dtype=dtype, order=order)


def _device_of(d: "_arrays.DeviceArray") -> int:
    return d.device if d.device >= 0 else _spx.pointer_device(d.ptr)


def _check_device_operand(A: Matrix, d: "_arrays.DeviceArray", what: str) -> None:
    if d.dtype != A._dtype:
        raise TypeError(f"{what} has dtype {d.dtype} but the matrix holds {A._dtype}: device arrays are "
                        f"never converted; pass {what}.astype('{A._dtype}') or use A.astype(np.{d.dtype})")
    dev = _device_of(d)
    if dev != A._dev:
        where = "host memory" if dev < 0 else f"cuda:{dev}"
        raise ValueError(f"{what} is in {where}, the matrix on cuda:{A._dev}")


def _as_matrix(A: Any) -> Matrix:
    """spx.spmv's and spx.spmm's A: an spx.Matrix (a subclass as it is), or a SciPy or CuPy sparse
    matrix made into one; TypeError otherwise."""
    if isinstance(A, Matrix):
        return A
    if _is_scipy_sparse(A) or _is_cupy_sparse(A):
        return Matrix(A)
    raise TypeError(f"A must be an spx.Matrix (or a scipy or cupyx sparse matrix), not {type(A).__name__}")


class _CupyFast:
    """The CuPy fast path: cupy.ndarray once spx has seen CuPy (and handed it to the compiled core)."""

    ndarray: Any = None


def _cupy_fast() -> Optional[type]:
    """Hands CuPy to the compiled core's fast path (python/src/cupy_fast.hpp) the first time CuPy is
    seen. The fast path takes a contiguous CuPy vector of the matrix's dtype on its device (and such
    an out), on CuPy's current stream, entirely in C++; anything else returns None and the general
    path below checks again and says what is wrong."""
    if _CupyFast.ndarray is None:
        cp = _arrays._cupy()
        if cp is None:
            return None
        _spx.set_cupy(cp.ndarray, cp.cuda.get_current_stream, np.dtype(np.float64), np.dtype(np.float32))
        _CupyFast.ndarray = cp.ndarray
    return _CupyFast


def spmv(A: Matrix, x: Any, out: Any = None, alpha: float = 1.0, beta: float = 0.0,
         stream: Optional[int] = None) -> Any:
    """y = alpha * A @ x + beta * y, returned (out when given, which then holds y on entry).

    numpy x: numpy result; computed by spx.omp on the host for a host matrix, or on the GPU with
    copies in and out for a matrix on a GPU. A device x (CuPy, __cuda_array_interface__, CUDA
    DLPack) needs the matrix on its GPU; the result is a new array of x's library (or out), nothing
    is copied, and the product is enqueued on the caller's current stream (CuPy's, PyTorch's; or
    `stream`, a cudaStream_t as int) without waiting for it. A SciPy or CuPy sparse A is made into
    an spx.Matrix (and planned) for this call alone: make one spx.Matrix for repeated products.
    """
    if type(A) is not Matrix:
        A = _as_matrix(A)
    if stream is None and type(x) is _CupyFast.ndarray:
        y = A._spmv_cupy(x, out, alpha, beta)
        if y is not None:
            return y
    if A._dev >= 0 and _arrays.is_device_array(x):
        if _CupyFast.ndarray is None and _cupy_fast() is not None:
            return spmv(A, x, out, alpha, beta, stream)  # CuPy seen for the first time: the fast path above
        return _spmv_device(A, x, out, alpha, beta, stream)
    a, b = _check_scalars(alpha, beta, out)
    if _arrays.is_device_array(x):
        raise ValueError("x is on the GPU but the matrix is on the host: move it with A.to('cuda')")
    if stream is not None:
        _warn_host_stream("spmv", "x")
    xh = _arrays.host_array(x, A._dtype, "x")
    if xh.ndim != 1:
        raise ValueError(f"spmv: x must be one-dimensional, not of shape {xh.shape} (use spmm for matrices)")
    if xh.shape[0] != A._cols:
        raise ValueError(f"spmv: x has {xh.shape[0]} entries, the matrix {A._cols} columns")
    xh = np.ascontiguousarray(xh)
    if out is None:
        y = np.empty(A._rows, dtype=A._dtype)
    else:
        _check_host_out(out, (A._rows,), A._dtype, "spmv")
        y = out if out.flags.c_contiguous else np.ascontiguousarray(out)
        if np.may_share_memory(xh, y):  # out=x or overlapping views: the product reads a copy of x
            xh = xh.copy()
    if A._dev < 0:
        A._m.spmv_cpu(xh, y, a, b)
    else:
        A._m.spmv_host_on_gpu(xh, y, a, b)
    if out is not None and y is not out:
        out[...] = y
        return out
    return y


def _check_host_out(out: Any, shape: Tuple[int, ...], dtype: np.dtype, who: str) -> None:
    if _arrays.is_device_array(out):
        raise ValueError(f"{who}: out is on the GPU but the operand is in host memory; pass both on one side")
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{who}: out must be a numpy array, not {type(out).__name__}")
    if out.dtype != dtype:
        raise TypeError(f"{who}: out has dtype {out.dtype}, the result {dtype}")
    if out.shape != shape:
        raise ValueError(f"{who}: out has shape {out.shape}, the result {shape}")
    if not out.flags.writeable:
        raise ValueError(f"{who}: out is read-only")


def _spmv_device(A: Matrix, x: Any, out: Any, alpha: float, beta: float, stream: Optional[int]) -> Any:
    a, b = _check_scalars(alpha, beta, out)
    d = _arrays.device_array(x, "x")
    if len(d.shape) != 1:
        raise ValueError(f"spmv: x must be one-dimensional, not of shape {d.shape} (use spmm for matrices)")
    if d.shape[0] != A._cols:
        raise ValueError(f"spmv: x has {d.shape[0]} entries, the matrix {A._cols} columns")
    if d.strides[0] != 1 and d.shape[0] > 1:
        raise ValueError("spmv: x must be contiguous (a strided view: copy it with .copy())")
    _check_device_operand(A, d, "x")
    if out is None:
        y = _same_kind_empty(x, (A._rows,), A._dtype, "C", A._dev)
    else:
        y = out
    dy = _arrays.device_array(y, "out")
    if out is not None:
        if dy.shape != (A._rows,):
            raise ValueError(f"spmv: out has shape {dy.shape}, the result ({A._rows},)")
        if dy.strides[0] != 1 and A._rows > 1:
            raise ValueError("spmv: out must be contiguous")
        _check_device_operand(A, dy, "out")
    s, held = (int(stream), None) if stream is not None else _arrays.current_stream(x)
    A._m.spmv_device(d.ptr, dy.ptr, a, b, s)
    _arrays.after_call(A._m, A._dev, s if stream is not None else None, held)
    return y


def _layout(shape: Tuple[int, ...], strides: Tuple[int, ...]) -> Optional[Tuple[bool, int]]:
    """(row_major, leading dimension) for a 2-D array with a unit stride in one dimension."""
    n, L = shape
    if strides[1] == 1 or L <= 1:
        ld = strides[0] if n > 1 else max(L, 1)
        if ld >= max(L, 1):
            return True, ld
    if strides[0] == 1 or n <= 1:
        ld = strides[1] if L > 1 else max(n, 1)
        if ld >= max(n, 1):
            return False, ld
    return None


def spmm(A: Matrix, X: Any, out: Any = None, alpha: float = 1.0, beta: float = 0.0,
         stream: Optional[int] = None) -> Any:
    """Y = alpha * A @ X + beta * Y for a dense X of shape (cols, L); Y has shape (rows, L).

    The same rules as spmv for where it runs and what is copied. X may be in C (row-major, the fast
    layout on the GPU) or Fortran order, or a view with a unit stride in one dimension; the result
    has X's order. On the GPU, out must have X's order.
    """
    if type(A) is not Matrix:
        A = _as_matrix(A)
    if A._dev >= 0 and _arrays.is_device_array(X):
        return _spmm_device(A, X, out, alpha, beta, stream)
    a, b = _check_scalars(alpha, beta, out)
    if _arrays.is_device_array(X):
        raise ValueError("X is on the GPU but the matrix is on the host: move it with A.to('cuda')")
    if stream is not None:
        _warn_host_stream("spmm", "X")
    Xh = _arrays.host_array(X, A._dtype, "X")
    if Xh.ndim != 2:
        raise ValueError(f"spmm: X must be two-dimensional, not of shape {Xh.shape}")
    if Xh.shape[0] != A._cols:
        raise ValueError(f"spmm: X has {Xh.shape[0]} rows, the matrix {A._cols} columns")
    L = Xh.shape[1]
    if not (Xh.flags.c_contiguous or Xh.flags.f_contiguous):
        Xh = np.ascontiguousarray(Xh)
    order = "C" if Xh.flags.c_contiguous else "F"
    if out is None:
        Y = np.empty((A._rows, L), dtype=A._dtype, order=order)
    else:
        _check_host_out(out, (A._rows, L), A._dtype, "spmm")
        Y = out
        if np.may_share_memory(Xh, Y):  # out overlapping X: the product reads a copy of X
            Xh = np.array(Xh, order=order)
    if L == 0 or A._rows == 0:
        return Y
    if A._dev < 0:
        if _layout(Y.shape, tuple(s // Y.itemsize for s in Y.strides)) is None:
            Yc = np.ascontiguousarray(Y)
            A._m.spmm_cpu(Xh, Yc, a, b)
            Y[...] = Yc
        else:
            A._m.spmm_cpu(Xh, Y, a, b)
        return Y
    # GPU with copies: tight arrays in X's order for both.
    contiguous = Y.flags.c_contiguous if order == "C" else Y.flags.f_contiguous
    Yt = Y if contiguous else np.array(Y, order=order)
    A._m.spmm_host_on_gpu(Xh, Yt, order == "C", a, b)
    if Yt is not Y:
        Y[...] = Yt
    return Y


def _spmm_device(A: Matrix, X: Any, out: Any, alpha: float, beta: float, stream: Optional[int]) -> Any:
    a, b = _check_scalars(alpha, beta, out)
    d = _arrays.device_array(X, "X")
    if len(d.shape) != 2:
        raise ValueError(f"spmm: X must be two-dimensional, not of shape {d.shape}")
    if d.shape[0] != A._cols:
        raise ValueError(f"spmm: X has {d.shape[0]} rows, the matrix {A._cols} columns")
    L = d.shape[1]
    lay = _layout(d.shape, d.strides)
    if lay is None:
        raise ValueError("spmm: X needs a unit stride in one dimension (C or Fortran order); copy it first")
    row_major, ldb = lay
    _check_device_operand(A, d, "X")
    if out is None:
        Y = _same_kind_empty(X, (A._rows, L), A._dtype, "C" if row_major else "F", A._dev)
    else:
        Y = out
    dy = _arrays.device_array(Y, "out")
    if out is not None:
        if dy.shape != (A._rows, L):
            raise ValueError(f"spmm: out has shape {dy.shape}, the result {(A._rows, L)}")
        _check_device_operand(A, dy, "out")
    ylay = _layout(dy.shape, dy.strides)
    if ylay is None or (ylay[0] != row_major and A._rows > 1 and L > 1):
        raise ValueError(f"spmm: out must have X's layout ({'C' if row_major else 'Fortran'} order)")
    if L == 0 or A._rows == 0:
        return Y
    s, held = (int(stream), None) if stream is not None else _arrays.current_stream(X)
    A._m.spmm_device(d.ptr, ldb, dy.ptr, ylay[1], row_major, L, a, b, s)
    _arrays.after_call(A._m, A._dev, s if stream is not None else None, held)
    return Y


# The algebra and the LinearOperator protocol use the names above.
from . import _algebra, _linop  # noqa: E402
