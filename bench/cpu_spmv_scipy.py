"""CPU SpMV of spx (spx.Matrix @ x, which runs spx::omp::spmv) against SciPy (csr_array @ x).

    PYTHONPATH=build/python build/py-venv/bin/python bench/cpu_spmv_scipy.py \
        stencil27:n=64 powerlaw:n=1000000,avg=16,exp=2.1 G3_circuit.mtx.gz --threads 1,2

For each matrix (a .mtx/.mtx.gz file or a generator spec, docs/generators.md; f64) and each thread
count, one child process (OMP_NUM_THREADS set before spx loads) reads the matrix once, makes SciPy's
csr_array from the same arrays and one random x, checks that both products agree, then runs
--rounds rounds; each round times one product of each side, SciPy and spx alternating (so drift of
a shared machine hits both alike). Printed: per-product min and median in ms for each side, and
median(SciPy) / median(spx) (> 1: spx is faster). SciPy runs on one thread whatever the count; it
is re-measured in every child, so each ratio compares numbers from the same run.

--only spx|scipy times one side alone in this process (no children): for timing whole processes
from outside, where both sides then load the same matrix the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np


def load(matrix: str):
    import spx

    if matrix.endswith((".mtx", ".mtx.gz")):
        return spx.read(matrix, dtype=np.float64)
    return spx.generate(matrix, dtype=np.float64)


def measure(matrix: str, rounds: int, only: str | None) -> dict:
    A = load(matrix)
    S = A.to_scipy()
    x = np.random.default_rng(1).standard_normal(A.shape[1])
    sides = {"scipy": lambda: S @ x, "spx": lambda: A @ x}
    if only:
        sides = {only: sides[only]}
    elif not np.allclose(S @ x, A @ x, rtol=1e-12, atol=1e-12 * np.abs(x).max()):
        raise SystemExit(f"{matrix}: spx and SciPy products differ")
    times: dict = {name: [] for name in sides}
    for f in sides.values():  # warm-up: first touch of y, page faults, thread start
        f()
    for _ in range(rounds):
        for name, f in sides.items():
            t0 = time.perf_counter_ns()
            f()
            times[name].append((time.perf_counter_ns() - t0) / 1e6)
    return {"nnz": A.nnz, "ms": {k: {"min": min(v), "median": statistics.median(v)} for k, v in times.items()}}


def child(matrix: str, threads: int, rounds: int) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    out = subprocess.run([sys.executable, __file__, matrix, "--rounds", str(rounds), "--json"], env=env,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("matrices", nargs="+")
    p.add_argument("--threads", default="1,2", help="spx thread counts, one child process each")
    p.add_argument("--rounds", type=int, default=50, help="products timed per side")
    p.add_argument("--only", choices=["spx", "scipy"], help="time one side in this process")
    p.add_argument("--json", action="store_true", help="print this process's measurement as JSON")
    a = p.parse_args()
    if a.json or a.only:
        for m in a.matrices:
            r = measure(m, a.rounds, a.only)
            print(json.dumps(r) if a.json else f"{m}: {r['ms']}")
        return
    print("| matrix | nnz | threads | SciPy ms min / median | spx ms min / median | SciPy / spx (median) |")
    print("|---|---|---|---|---|---|")
    for m in a.matrices:
        for t in (int(s) for s in a.threads.split(",")):
            r = child(m, t, a.rounds)
            s, x = r["ms"]["scipy"], r["ms"]["spx"]
            print(f"| {os.path.basename(m)} | {r['nnz']} | {t} | {s['min']:.2f} / {s['median']:.2f} | "
                  f"{x['min']:.2f} / {x['median']:.2f} | {s['median'] / x['median']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
