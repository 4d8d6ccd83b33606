"""spx: fast sparse matrix products on NVIDIA GPUs, and on every CPU core.

    import numpy as np, scipy.sparse as sp, spx
    A = spx.Matrix(sp.random(1000, 800, density=0.01, format="csr"))   # any scipy format -> CSR
    y = A @ np.ones(800)                                # numpy in, numpy out (CPU: spx.omp)
    z = np.ones(1000) @ A                               # x @ A = A.T @ x; also A.T, 2 * A, A + A
    G = A.to("cuda")                                    # the same matrix on the GPU
    import cupy as cp
    yd = G @ cp.ones(800)                               # cupy in, cupy out: no copies, current stream
    print(G.plan().explain())                           # which kernel runs, and why
    x, info = spx.cg(spx.generate("stencil2d:n=64"), np.ones(4096))   # CG, as scipy's cg
    x, code = scipy.sparse.linalg.gmres(spx.generate("stencil2d:n=64"), np.ones(4096))  # SciPy's too
    D = spx.mpi.distribute(A if spx.mpi.rank() == 0 else None)   # under mpirun: rows per process

docs/python.md has the whole story: where products run, what is copied, streams, errors.
The implementation lives in private modules (_matrix, _algebra, _linop, _cg, _threads, and the
compiled core _spx); this module only names the public API.
"""

from . import _openmp_wait  # first: loads the compiled core with passive OpenMP waiting
from ._spx import version as __version__
from ._matrix import (
    Matrix,
    Plan,
    built_with_cuda,
    cuda_available,
    generate,
    generators,
    gpu_unavailable_reason,
    read,
    spmm,
    spmv,
)
from ._cg import CgInfo, cg
from . import mpi  # the processes of an MPI job (mpirun -n N python ...): spx.mpi.distribute

__all__ = [
    "Matrix",
    "Plan",
    "spmv",
    "spmm",
    "cg",
    "CgInfo",
    "read",
    "generate",
    "generators",
    "cuda_available",
    "gpu_unavailable_reason",
    "built_with_cuda",
    "mpi",
    "__version__",
]

# The public objects say they are spx's (repr, help, pickling names), not their private module's.
for _public in (Matrix, Plan, CgInfo, built_with_cuda, cuda_available, generate, generators,
                gpu_unavailable_reason, read, spmm, spmv, cg):
    _public.__module__ = __name__
del _public
