"""Shared helpers of the Python package's tests: reference products with error bounds, random
matrices, the shared SuiteSparse matrices, and the GPU skip."""

import os
import pathlib

import numpy as np
import pytest
import scipy.sparse as sp

import spx

REPO = pathlib.Path(__file__).resolve().parents[2]


def shared_dir():
    d = os.environ.get("SPX_SHARED_MATRICES") or str(REPO.parent / "shared" / "matrices")
    return pathlib.Path(d)


def shared_matrices(max_gz_bytes=None):
    """(name, path) of the shared matrices, the small ones only unless SPX_PYTEST_ALL_SHARED=1."""
    d = shared_dir()
    manifest = d / "MANIFEST.tsv"
    if not manifest.exists():
        return []
    if max_gz_bytes is None:
        max_gz_bytes = float("inf") if os.environ.get("SPX_PYTEST_ALL_SHARED") == "1" else 1_000_000
    out = []
    lines = manifest.read_text().splitlines()
    head = lines[0].split("\t")
    for line in lines[1:]:
        row = dict(zip(head, line.split("\t")))
        path = d / f"{row['name']}.mtx.gz"
        if path.exists() and int(row["gz_bytes"]) <= max_gz_bytes:
            out.append((row["name"], path))
    return out


def random_scipy(rows, cols, density, seed, dtype=np.float64, fmt="csr"):
    rng = np.random.default_rng(seed)
    S = sp.random(rows, cols, density=density, format=fmt, dtype=np.float64, random_state=rng,
                  data_rvs=lambda n: rng.uniform(-1, 1, n))
    return S.astype(dtype)


def unit(dtype):
    return np.finfo(dtype).eps / 2


def expect_product(S, X, Y, dtype, alpha=1.0, beta=0.0, Y0=None):
    """Y (from spx) against scipy's alpha*S@X + beta*Y0 computed in float64, element by element,
    within (k + 3)·u·(|alpha|·|S|·|X| + |beta|·|Y0|) (k: the row's length; Higham §3.1), ×2 slack."""
    S64 = sp.csr_matrix(S, dtype=np.float64)
    X64 = np.asarray(X, dtype=np.float64)
    ref = alpha * (S64 @ X64)
    mag = abs(alpha) * (abs(S64) @ np.abs(X64))
    if beta != 0.0:
        ref = ref + beta * np.asarray(Y0, dtype=np.float64)
        mag = mag + abs(beta) * np.abs(np.asarray(Y0, dtype=np.float64))
    k = np.diff(S64.indptr).astype(np.float64)
    if X64.ndim == 2:
        k = k[:, None]
    bound = 2 * (k + 3) * unit(dtype) * mag + 4 * np.finfo(dtype).tiny
    Yn = np.asarray(Y, dtype=np.float64)
    assert Yn.shape == ref.shape
    err = np.abs(Yn - ref)
    bad = ~(err <= bound)
    assert not bad.any(), f"{bad.sum()} of {bad.size} elements off; worst {np.nanmax(err - bound)} over the bound"


@pytest.fixture
def rng():
    return np.random.default_rng(20261126)


def gpu_ready():
    if not spx.cuda_available():
        return False, f"no GPU: {spx.gpu_unavailable_reason()}"
    try:
        import cupy  # noqa: F401
    except ImportError:
        return False, "cupy is not installed"
    return True, ""
