"""The OpenBLAS / OpenMP oversubscription warning (python/spx/_threads.py): the detection logic
against a monkeypatched environment, and at most one warning per process."""

import sys
import threading
import types
import warnings

import numpy as np
import pytest

import spx
from spx import _threads


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(_threads, "_checked", False)
    monkeypatch.setattr(_threads, "_config_text", None)
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)  # import fails: the environment path
    return monkeypatch


def test_oversubscription_needs_both_pools_and_too_few_cores():
    assert _threads.oversubscription(2, 2, 2)  # the 2-core machine
    assert "OPENBLAS_NUM_THREADS=1" in _threads.warning_text(_threads.oversubscription(16, 16, 16), 3)
    assert _threads.oversubscription(1, 16, 16) == ""  # OpenBLAS on one thread
    assert _threads.oversubscription(16, 1, 16) == ""  # spx on one thread
    assert _threads.oversubscription(0, 16, 16) == ""  # no OpenBLAS
    assert _threads.oversubscription(4, 4, 8) == ""  # room for both


def test_openblas_threads_from_the_environment(fresh):
    fresh.setattr(_threads, "_numpy_blas_name", lambda: "scipy-openblas")
    assert _threads.openblas_threads({}, 8) == 8
    assert _threads.openblas_threads({"OPENBLAS_NUM_THREADS": "1"}, 8) == 1
    assert _threads.openblas_threads({"OMP_NUM_THREADS": "3"}, 8) == 3
    assert _threads.openblas_threads({"OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "5"}, 8) == 2
    assert _threads.openblas_threads({"OMP_NUM_THREADS": "4,2"}, 8) == 4
    assert _threads.openblas_threads({"OPENBLAS_NUM_THREADS": "junk"}, 8) == 8
    fresh.setattr(_threads, "_numpy_blas_name", lambda: "mkl")
    assert _threads.openblas_threads({}, 8) == 0


def test_openblas_threads_from_threadpoolctl(fresh):
    fake = types.SimpleNamespace(threadpool_info=lambda: [
        {"internal_api": "openmp", "num_threads": 8}, {"internal_api": "openblas", "num_threads": 6}])
    fresh.setitem(sys.modules, "threadpoolctl", fake)
    assert _threads.openblas_threads({"OPENBLAS_NUM_THREADS": "1"}, 8) == 6  # what is loaded wins


def test_cg_warns_once_when_oversubscribed(fresh):
    fresh.setattr(_threads, "_numpy_blas_name", lambda: "openblas")
    fresh.setattr(_threads, "_cores", lambda: 2)
    fresh.setattr(_threads._spx, "cpu_threads", lambda: 2)
    fresh.delenv("OPENBLAS_NUM_THREADS", raising=False)
    fresh.delenv("OMP_NUM_THREADS", raising=False)
    fresh.setattr(_threads, "MIN_NNZ_TO_WARN", 0)
    A = spx.generate("stencil2d:n=8")
    fresh.setattr(_threads, "running_foreign_threads", lambda own: 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spx.cg(A, np.ones(64))  # nothing else running: a normal run stays quiet
    fresh.setattr(_threads, "running_foreign_threads", lambda own: 2)
    with pytest.warns(RuntimeWarning, match="OpenBLAS .* spx's OpenMP .* 2 other threads"):
        spx.cg(A, np.ones(64))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spx.cg(A, np.ones(64))  # once per process


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/task")
def test_running_threads_are_seen_and_spx_own_are_not():
    """A thread busy in NumPy BLAS (the GIL released) is running; spx's OpenMP pool is excluded."""
    stop = threading.Event()
    a = np.random.default_rng(1).random((400, 400))

    def work():
        while not stop.is_set():
            a @ a

    t = threading.Thread(target=work)
    t.start()
    try:
        seen = max(_threads.running_foreign_threads(set()) for _ in range(200))
    finally:
        stop.set()
        t.join()
    assert seen >= 1
    own = set(spx._spx.openmp_thread_ids())
    assert len(own) == spx._spx.cpu_threads() and all(i > 0 for i in own)


@pytest.mark.parametrize("env", [{"OPENBLAS_NUM_THREADS": "1"}, {"OMP_NUM_THREADS": "1"}])
def test_cg_is_quiet_when_not_oversubscribed(fresh, env):
    fresh.setattr(_threads, "_numpy_blas_name", lambda: "openblas")
    fresh.setattr(_threads, "_cores", lambda: 2)
    fresh.setattr(_threads, "MIN_NNZ_TO_WARN", 0)
    for k, v in env.items():
        fresh.setenv(k, v)
    if "OMP_NUM_THREADS" in env:
        fresh.setattr(_threads._spx, "cpu_threads", lambda: 1)
    fresh.setattr(_threads, "running_foreign_threads", lambda own: 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spx.cg(spx.generate("stencil2d:n=8"), np.ones(64))


def test_small_solves_never_check(fresh):
    fresh.setattr(_threads, "_numpy_blas_name", lambda: "openblas")
    fresh.setattr(_threads, "_cores", lambda: 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spx.cg(spx.generate("stencil2d:n=8"), np.ones(64))  # 288 entries < MIN_NNZ_TO_WARN
    assert _threads._checked is False
