"""Thread oversubscription between NumPy's OpenBLAS and spx's OpenMP on the CPU.

Both pools size themselves to every core. Right after NumPy BLAS work, OpenBLAS's threads keep
spinning for a while, and spx's OpenMP threads then share the cores with them: spx.cg on the CPU
was measured 2-4x slower that way (docs/python.md). Nothing is measured here: the check reads the
configuration (threadpoolctl when it is installed, else NumPy's build information and the
OPENBLAS_NUM_THREADS / OMP_NUM_THREADS environment), once per process, and warns once.
Private module: spx.cg calls warn_if_oversubscribed().
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Mapping, Optional

from . import _spx

# Below this many stored entries a CPU solve is too short for the slowdown to matter: no warning.
MIN_NNZ_TO_WARN = 100_000

_checked = False  # the check runs (and warns) at most once per process


def _env_threads(env: Mapping[str, str], *names: str) -> Optional[int]:
    """The first of the variables `names` that holds a positive integer (OpenBLAS reads them in
    this order), else None."""
    for name in names:
        v = env.get(name, "").split(",")[0].strip()
        if v.isdigit() and int(v) > 0:
            return int(v)
    return None


def _numpy_blas_name() -> str:
    """The BLAS NumPy was built with ('scipy-openblas', 'openblas', 'mkl', ...), '' when unknown."""
    np = sys.modules.get("numpy")
    config = getattr(getattr(np, "__config__", None), "CONFIG", None)
    try:
        return str(config["Build Dependencies"]["blas"]["name"]).lower()
    except (TypeError, KeyError):
        return ""


def openblas_threads(env: Mapping[str, str], cores: int) -> int:
    """The threads of the OpenBLAS NumPy uses (0 when it uses none): threadpoolctl's count when it
    is installed, else OPENBLAS_NUM_THREADS, OMP_NUM_THREADS or every core when NumPy's build says
    OpenBLAS."""
    try:
        import threadpoolctl
    except ImportError:
        threadpoolctl = None
    if threadpoolctl is not None:
        pools = [p for p in threadpoolctl.threadpool_info() if p.get("internal_api") == "openblas"]
        return max((int(p.get("num_threads", 0)) for p in pools), default=0)
    if "openblas" not in _numpy_blas_name():
        return 0
    return _env_threads(env, "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS") or cores


def oversubscription(blas_threads: int, omp_threads: int, cores: int) -> str:
    """The warning's text when OpenBLAS and spx's OpenMP together want more threads than there are
    cores and each wants more than one; '' otherwise."""
    if blas_threads <= 1 or omp_threads <= 1 or blas_threads + omp_threads <= cores:
        return ""
    return (f"spx.cg on the CPU: NumPy's OpenBLAS ({blas_threads} threads) and spx's OpenMP "
            f"({omp_threads} threads) share {cores} cores; right after NumPy BLAS work OpenBLAS's "
            "threads keep spinning and can make the solve 2-4x slower. Set OPENBLAS_NUM_THREADS=1 "
            "(before NumPy is imported) or use threadpoolctl.threadpool_limits(1, 'blas') around spx "
            "calls; docs/python.md, 'Threads'")


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def warn_if_oversubscribed(nnz: int) -> None:
    """Warns (RuntimeWarning, once per process) before a CPU solve of at least MIN_NNZ_TO_WARN
    entries when OpenBLAS and spx's OpenMP oversubscribe the cores."""
    global _checked
    if _checked or nnz < MIN_NNZ_TO_WARN:
        return
    _checked = True
    cores = _cores()
    text = oversubscription(openblas_threads(os.environ, cores), _spx.cpu_threads(), cores)
    if text:
        warnings.warn(text, RuntimeWarning, stacklevel=3)
