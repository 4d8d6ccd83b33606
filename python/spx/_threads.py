"""Thread oversubscription between NumPy's OpenBLAS and spx's OpenMP on the CPU.

Both pools size themselves to every core. Right after NumPy BLAS work, OpenBLAS's threads keep
spinning for a while, and spx's OpenMP threads then share the cores with them: spx.cg on the CPU
was measured 2-4x slower that way (docs/python.md). Nothing is timed here. The check reads the
configuration once per process (threadpoolctl when it is installed, else NumPy's build information
and the OPENBLAS_NUM_THREADS / OMP_NUM_THREADS environment); when both pools want more than one
thread and more than the cores together, each large CPU solve then looks whether threads other
than the caller's and spx's own are running right now (Linux: /proc/self/task, ~0.1 ms), which is
what spinning OpenBLAS threads are. So a normal run (no BLAS work just before) stays quiet; the
warning comes once per process. Private module: spx.cg calls warn_if_oversubscribed().
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from typing import Mapping, Optional

from . import _spx

# Below this many stored entries a CPU solve is too short for the slowdown to matter: no warning.
MIN_NNZ_TO_WARN = 100_000

_checked = False  # True once the warning was given, or the configuration cannot oversubscribe
_config_text: Optional[str] = None  # the warning's text for this process's configuration ('' none)


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
            f"({omp_threads} threads) share {cores} cores")


def warning_text(config: str, running: int) -> str:
    """The whole warning: the configuration, what was seen running, and the fix."""
    return (f"{config}, and {running} other threads of this process were running as the solve started "
            "(OpenBLAS's keep spinning for a while after NumPy work); that can make the solve 2-4x "
            "slower. Set OPENBLAS_NUM_THREADS=1 (before NumPy is imported) or run NumPy work under "
            "threadpoolctl.threadpool_limits(1, 'blas'); docs/python.md, 'Threads'")


def running_foreign_threads(own: "set[int]") -> int:
    """Threads of this process running on a core now (state R in /proc/self/task/*/stat), other
    than the calling thread and the kernel thread ids in `own`; 0 where /proc cannot be read."""
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return 0
    me = threading.get_native_id()
    running = 0
    for t in tids:
        if not t.isdigit() or int(t) == me or int(t) in own:
            continue
        try:
            with open(f"/proc/self/task/{t}/stat", "rb") as f:
                stat = f.read()
        except OSError:  # the thread ended meanwhile
            continue
        state = stat[stat.rfind(b")") + 2:stat.rfind(b")") + 3]  # the field after "(comm)"
        running += state == b"R"
    return running


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def warn_if_oversubscribed(nnz: int) -> None:
    """Warns (RuntimeWarning, once per process) before a CPU solve of at least MIN_NNZ_TO_WARN
    entries when OpenBLAS and spx's OpenMP oversubscribe the cores and other threads of the process
    (OpenBLAS's, spinning after NumPy work) are running as the solve starts."""
    global _checked, _config_text
    if _checked or nnz < MIN_NNZ_TO_WARN:
        return
    if _config_text is None:
        cores = _cores()
        _config_text = oversubscription(openblas_threads(os.environ, cores), _spx.cpu_threads(), cores)
    if not _config_text:
        _checked = True
        return
    busy = running_foreign_threads(set(_spx.openmp_thread_ids()))
    if busy:
        _checked = True
        warnings.warn(warning_text(_config_text, busy), RuntimeWarning, stacklevel=3)
