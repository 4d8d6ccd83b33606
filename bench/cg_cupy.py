#!/usr/bin/env python3
"""cupyx.scipy.sparse.linalg.cg on a Matrix Market file, beside `spx cg` (issue 22).

Usage: bench/cg_cupy.py MATRIX.mtx[.gz] [--tol 1e-6] [--maxit 2000] [--precond jacobi|none]
       [--precision f32|f64] [--json OUT]
Right-hand side of ones, x0 = 0, the same stopping rule as spx (|r| <= tol |b|; cupy's own check).
The solve is timed after one warm-up solve (cuSPARSE handles, kernel compilation).
"""
import argparse, gzip, json, time

import cupy as cp
import cupyx.scipy.sparse as csp
import cupyx.scipy.sparse.linalg as cla
import numpy as np
import scipy.io


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("matrix")
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--maxit", type=int, default=2000)
    ap.add_argument("--precond", default="jacobi")
    ap.add_argument("--precision", default="f64")
    ap.add_argument("--json")
    a = ap.parse_args()
    opener = gzip.open if a.matrix.endswith(".gz") else open
    with opener(a.matrix, "rb") as f:
        A = scipy.io.mmread(f).tocsr()
    dtype = np.float32 if a.precision == "f32" else np.float64
    dA = csp.csr_matrix(A.astype(dtype))
    n = A.shape[0]
    b = cp.ones(n, dtype=dtype)
    M = None
    if a.precond == "jacobi":
        dinv = 1.0 / cp.asarray(A.diagonal().astype(dtype))
        M = cla.LinearOperator((n, n), matvec=lambda x: dinv * x, dtype=dtype)
    iters = [0]

    def count(_):
        iters[0] += 1

    import inspect
    key = "rtol" if "rtol" in inspect.signature(cla.cg).parameters else "tol"
    kw = {key: a.tol, "maxiter": a.maxit, "M": M}
    cla.cg(dA, b, **kw)  # warm-up
    cp.cuda.Device().synchronize()
    iters[0] = 0
    t0 = time.perf_counter()
    x, info = cla.cg(dA, b, callback=count, **kw)
    cp.cuda.Device().synchronize()
    seconds = time.perf_counter() - t0
    rel = float(cp.linalg.norm(b - dA @ x) / cp.linalg.norm(b))
    out = {"matrix": a.matrix.split("/")[-1].split(".mtx")[0], "rows": n, "nnz": int(A.nnz),
           "precision": a.precision, "preconditioner": a.precond, "rtol": a.tol, "max_iterations": a.maxit,
           "operator": "cupyx.scipy.sparse.linalg.cg", "iterations": iters[0], "info": int(info),
           "seconds": seconds, "iterations_per_second": iters[0] / seconds if seconds > 0 else 0,
           "true_relative_residual": rel, "cupy": cp.__version__}
    print(json.dumps(out))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
