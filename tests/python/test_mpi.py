"""spx.mpi: a matrix spread over the processes of an MPI job, its product, CG and gather. In this
process (one rank, MPI started by spx) against SciPy; under ``mpirun -n 2`` (skipped without
mpirun) the same script's results must be the single process's bit for bit (rows split) and its CG
must converge where the matrix was renumbered."""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import spx
import spx.mpi

pytestmark = pytest.mark.skipif(not spx.mpi.available(), reason="spx is built without MPI")

# Run by every rank: each split's product, CG and gathered vectors, printed by rank 0 as JSON.
SCRIPT = textwrap.dedent("""
    import json, numpy as np, spx, spx.mpi
    A = spx.generate("stencil2d:n=30,shuffle=4") if spx.mpi.rank() == 0 else None
    out = {"size": spx.mpi.size()}
    for part in ("rows", "rcm", "auto"):
        D = spx.mpi.distribute(A, partition=part, products=10**9)
        n = D.shape[0]
        y = D.gather(D @ D.part(np.arange(n) % 5 + 1.0))
        x, info = D.cg(D.part(np.ones(n)), rtol=1e-10, M="jacobi")
        xs = D.gather(x)
        if spx.mpi.rank() == 0:
            out[part] = {"partition": D.partition, "y": y.tolist(), "x": xs.tolist(), "status": info.status,
                         "iterations": info.iterations, "history": [], "renumbered": D.perm is not None}
    if spx.mpi.rank() == 0:
        print(json.dumps(out))
""")


def run_script(ranks=None):
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join(sys.path))
    cmd = [sys.executable, "-c", SCRIPT]
    if ranks is not None:
        cmd = [shutil.which("mpirun"), "--oversubscribe", "-n", str(ranks)] + cmd
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.insert(1, "--allow-run-as-root")
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_one_rank_against_scipy():
    A = spx.generate("stencil2d:n=20,shuffle=2")
    S = A.to_scipy()
    assert spx.mpi.size() == 1 and spx.mpi.rank() == 0
    for part in ("rows", "rcm"):
        D = spx.mpi.distribute(A, partition=part)
        assert D.shape == S.shape and D.rows == range(0, S.shape[0]) and D.partition == part
        assert (D.perm is not None) == (part == "rcm")
        x = np.random.default_rng(3).standard_normal(S.shape[1])
        y = D.gather(D @ D.part(x))
        np.testing.assert_allclose(y, S @ x, rtol=1e-12, atol=1e-12)
        b = np.ones(S.shape[0])
        xs, info = D.cg(D.part(b), rtol=1e-10)
        assert info.converged and info.device == "mpi:1"
        assert np.linalg.norm(S @ D.gather(xs) - b) <= 1e-9 * np.linalg.norm(b)


def test_refusals():
    A = spx.generate("stencil2d:n=6")
    with pytest.raises(ValueError, match="partition 'graph'"):
        spx.mpi.distribute(A, partition="graph")
    with pytest.raises(RuntimeError, match="was given no matrix"):
        spx.mpi.distribute(None)
    with pytest.raises(ValueError, match="dtype"):
        spx.mpi.distribute(A, dtype=np.int32)
    with pytest.raises(TypeError, match="mpi4py communicator"):
        spx.mpi.rank(comm=object())
    D = spx.mpi.distribute(A)
    with pytest.raises(ValueError, match="this rank's part"):
        D @ np.ones(5)
    with pytest.raises(ValueError, match="M:"):
        D.cg(np.ones(36), M="ilu")


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="no mpirun")
def test_two_ranks_match_one():
    one, two = run_script(), run_script(2)
    assert one["size"] == 1 and two["size"] == 2
    # Rows: the product and CG's iterates bitwise those of one process.
    assert two["rows"]["y"] == one["rows"]["y"] and two["rows"]["x"] == one["rows"]["x"]
    assert two["rows"]["iterations"] == one["rows"]["iterations"]
    for part in ("rcm", "auto"):  # renumbered per rank count, or not (auto): converged, same products
        assert two[part]["status"] == "converged"
        assert two[part]["renumbered"] == (two[part]["partition"] != "rows"), two[part]["partition"]
        np.testing.assert_allclose(two[part]["y"], one["rows"]["y"], rtol=1e-14)
    assert two["rcm"]["renumbered"]


def test_float32_and_a_rectangular_matrix():
    import scipy.sparse as sp

    A = sp.random(50, 30, density=0.2, format="csr", random_state=1)
    D = spx.mpi.distribute(A, dtype=np.float32, partition="auto")
    assert D.dtype == np.float32 and D.shape == (50, 30) and D.owned == range(0, 30)
    assert D.partition == "rows" and "rectangular" in D.report
    x = np.arange(30, dtype=np.float32)
    np.testing.assert_allclose(D.gather(D @ x), A @ x, rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match="square"):
        D.cg(np.ones(50, dtype=np.float32))
    with pytest.raises(RuntimeError, match="renumbering needs a square one"):
        spx.mpi.distribute(A, partition="rcm")


def test_strided_and_integer_operands_are_taken_as_copies():
    A = spx.generate("stencil2d:n=8")
    S = A.to_scipy()
    D = spx.mpi.distribute(A)
    x = np.arange(2 * 64, dtype=np.float64)[::2]  # strided
    np.testing.assert_allclose(D @ x, S @ x, rtol=1e-14)
    np.testing.assert_allclose(D @ np.arange(64), S @ np.arange(64.0), rtol=1e-14)  # int64 operand
    b = np.ones(64)
    x0 = np.zeros(64)
    xs, info = D.cg(b, x0=x0, rtol=1e-10)
    assert info.converged and not np.shares_memory(xs, x0) and not x0.any()  # x0 left as given
