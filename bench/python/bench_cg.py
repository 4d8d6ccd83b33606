"""spx.cg on the GPU against cupyx.scipy.sparse.linalg.cg on the same device and arrays (Jacobi, f64),
and spx.cg on the CPU: iterations, seconds, true residual. Writes JSON to the path given (stdout
too). Matrices: generated SPD ones and the shared bcsstk13 / G3_circuit when SPX_SHARED_MATRICES has
them.

    PYTHONPATH=build/python python3 bench/python/bench_cg.py out.json
"""

import inspect
import json
import os
import pathlib
import sys
import time

import numpy as np

import spx


def true_rel(S, x, b):
    return float(np.linalg.norm(b - S @ x) / np.linalg.norm(b))


def timed(f, repeat=3):
    ts, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t0)
    return out, float(np.median(ts))


def main():
    import cupy as cp
    import cupyx.scipy.sparse as csp
    import cupyx.scipy.sparse.linalg as cspla

    rtol = 1e-8
    cases = [("fem2d:n=256,p=2", None), ("stencil2d:n=1000", None)]
    shared = pathlib.Path(os.environ.get("SPX_SHARED_MATRICES", "../shared/matrices"))
    for name in ("bcsstk13", "G3_circuit"):
        if (shared / f"{name}.mtx.gz").exists():
            cases.append((name, shared / f"{name}.mtx.gz"))
    params = inspect.signature(cspla.cg).parameters
    tol_key = "rtol" if "rtol" in params else "tol"
    rows = []
    name_ = cp.cuda.runtime.getDeviceProperties(0)["name"]
    out = {"device": name_.decode() if isinstance(name_, bytes) else name_, "cupy": cp.__version__,
           "spx": spx.__version__, "rtol": rtol, "results": rows}

    def save():
        if len(sys.argv) > 1:
            pathlib.Path(sys.argv[1]).write_text(json.dumps(out, indent=1))

    for name, path in cases:
        A = spx.read(path) if path else spx.generate(name)
        S = A.to_scipy()
        n = A.shape[0]
        b = S @ np.random.default_rng(1).uniform(-1, 1, n)
        maxiter = 20000
        # spx on the GPU: the first solve includes the setup (plan, operator, solver); then warm.
        t0 = time.perf_counter()
        G = A.to("cuda")
        bd = cp.asarray(b)
        xd, info = spx.cg(G, bd, rtol=rtol, M="jacobi", maxiter=maxiter)
        cold = time.perf_counter() - t0
        (xd, info), warm = timed(lambda: spx.cg(G, bd, rtol=rtol, M="jacobi", maxiter=maxiter))
        row = {"matrix": name, "rows": n, "nnz": A.nnz, "rtol": rtol,
               "spx_gpu": {"status": info.status, "iterations": info.iterations, "seconds": warm,
                           "solver_seconds": info.seconds, "first_call_seconds": cold,
                           "true_rel_residual": true_rel(S, cp.asnumpy(xd), b)}}
        # cupyx with Jacobi as a LinearOperator, after a warm-up solve.
        Sd = csp.csr_matrix(S)
        dinv = cp.asarray(1.0 / S.diagonal())
        M = cspla.LinearOperator((n, n), matvec=lambda v: dinv * v, dtype=np.float64)
        its = [0]

        def count(_):
            its[0] += 1

        def cupyx_solve():
            its[0] = 0
            x, i = cspla.cg(Sd, bd, M=M, maxiter=maxiter, callback=count, **{tol_key: rtol})
            cp.cuda.get_current_stream().synchronize()
            return x, i

        cupyx_solve()
        (xc, ic), tc = timed(cupyx_solve)
        row["cupyx"] = {"info": int(ic), "iterations": its[0], "seconds": tc,
                        "true_rel_residual": true_rel(S, cp.asnumpy(xc), b)}
        cpu = ""
        if n <= 300_000:  # the CPU solve of the large ones would take most of a device session
            (xh, ih), th = timed(lambda: spx.cg(A, b, rtol=rtol, M="jacobi", maxiter=maxiter), repeat=1)
            row["spx_cpu"] = {"status": ih.status, "iterations": ih.iterations, "seconds": th,
                              "threads": int(spx._spx.cpu_threads()), "true_rel_residual": true_rel(S, xh, b)}
            cpu = f" | spx cpu {ih.iterations} it {th:.3f} s"
        row["speedup_vs_cupyx"] = tc / warm
        rows.append(row)
        print(f"{name:18} n={n:>8} spx gpu {info.iterations:5d} it {warm:8.4f} s (first {cold:.3f} s) | "
              f"cupyx {its[0]:5d} it {tc:8.4f} s | x{tc / warm:5.2f}{cpu}", flush=True)
        save()  # after every matrix: a run cut short keeps what it measured
    if len(sys.argv) > 1:
        save()
    else:
        print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
