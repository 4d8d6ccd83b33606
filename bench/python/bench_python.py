#!/usr/bin/env python3
"""The Python package on a GPU: per-call overhead of A @ x over the C++ call, and spx against
cupyx.scipy.sparse (SpMV, SpMM at L = 8 and 32) on the same device and the same CuPy arrays.

    python bench/python/bench_python.py --out results.json [--shared DIR] [--budget-s 120]

Overhead. Bursts of N calls timed on the host (perf_counter_ns around the burst, the GPU drained
between bursts), the candidates interleaved burst by burst, median over bursts, per call:
  cpp      N back-to-back calls of spx::cuda::spmv inside C++ (the baseline),
  out      spx.spmv(A, x, out=y)        (no allocation),
  matmul   A @ x                        (allocates y as cupy.empty does),
  before   the same two through the Python fast path the package had before the C++ one
           (reproduced below as _Before: same checks, cupy.empty,
           get_current_stream, the raw-pointer call), on the same matrix and arrays,
  parts    what a call is made of: an empty lambda (the loop), cupy.empty, cupy.ndarray,
           cupy.cuda.get_current_stream, the raw-pointer binding alone, the C++ fast path
           called directly,
  cupyx    S @ x with cupyx.scipy.sparse (for scale).
The overhead is (python - cpp).

Throughput. For each matrix: k calls between two CUDA events on the current stream (k so that
a repetition takes about 10 ms), median of 5 repetitions, per call; spx's A @ X (planned with the
defaults on the first call, untimed) against cupyx's S @ X, both allocating their output from
CuPy's pool; outputs compared (relative 2-norm). f64, X in C order.
"""

import argparse
import datetime
import gzip
import json
import math
import os
import pathlib
import platform
import subprocess
import sys
import time

import cupy as cp
import cupyx.scipy.sparse as csp
import numpy as np
import scipy.sparse as sp

import spx

STANDARD = [  # a part of the standard suite (bench/suites.cpp), the ones that build fastest
    ("fem_rows30", "fem:rows=1000000,len=30"),
    ("powerlaw_4m", "powerlaw:n=4000000,avg=8,exp=2.1"),
    ("stencil27_128", "stencil27:n=128"),
]


def interleaved_ns(fns, calls, bursts=31):
    """Median host ns per call of each fn: bursts of `calls` calls, every fn once per round."""
    for fn in fns.values():
        fn()
    cp.cuda.Device().synchronize()
    per = {k: [] for k in fns}
    for _ in range(bursts):
        for k, fn in fns.items():
            t0 = time.perf_counter_ns()
            for _ in range(calls):
                fn()
            t1 = time.perf_counter_ns()
            cp.cuda.Device().synchronize()
            per[k].append((t1 - t0) / calls)
    return {k: float(np.median(v)) for k, v in per.items()}


class _Before:
    """The package's CuPy fast path before the C++ one (python/spx/__init__.py's Matrix.__matmul__,
    spmv and _spmv_cupy_fast then; bench/results/h100/python/README.md names the tree), reproduced
    for a before/after in one run."""

    ndarray = None
    empty = None
    current_stream = None
    get_device = None
    several_gpus = False
    held = {}


def _before_init():
    _Before.ndarray = cp.ndarray
    _Before.empty = cp.empty
    _Before.current_stream = cp.cuda.get_current_stream
    _Before.get_device = cp.cuda.runtime.getDevice
    _Before.several_gpus = cp.cuda.runtime.getDeviceCount() > 1


def _before_fast(A, x, out, alpha, beta):
    f = _Before
    if (x.ndim != 1 or x.shape[0] != A._cols or x.dtype != A._dtype or x.data.device_id != A._dev
            or (x.strides[0] != A._itemsize and A._cols > 1)):
        return None
    if out is None:
        if beta != 0.0 or (f.several_gpus and f.get_device() != A._dev):
            return None
        out = f.empty(A._rows, A._dtype)
    elif (type(out) is not f.ndarray or out.ndim != 1 or out.shape[0] != A._rows or out.dtype != A._dtype
          or out.data.device_id != A._dev or (out.strides[0] != A._itemsize and A._rows > 1)):
        return None
    st = f.current_stream()
    A._spmv_device(x.data.ptr, out.data.ptr, alpha, beta, st.ptr)
    if f.held.get(A._dev) is not st:
        f.held[A._dev] = st
    return out


class BeforeMatrix(spx.Matrix):
    __slots__ = ("_spmv_device",)

    def __matmul__(self, other):
        if type(other) is _Before.ndarray and self._dev >= 0:
            y = _before_fast(self, other, None, 1.0, 0.0)
            if y is not None:
                return y
        return spx.Matrix.__matmul__(self, other)


def before_spmv(A, x, out=None, alpha=1.0, beta=0.0, stream=None):
    if A._dev >= 0 and stream is None and _Before.ndarray is not None and type(x) is _Before.ndarray:
        y = _before_fast(A, x, out, alpha, beta)
        if y is not None:
            return y
    return spx.spmv(A, x, out, alpha, beta, stream)


def overhead(spec, calls):
    A = spx.generate(spec).to("cuda")
    S = csp.csr_matrix(sp.csr_matrix(A.to_scipy()))
    x = cp.ones(A.shape[1])
    y = cp.empty(A.shape[0])
    A @ x  # plans
    _before_init()
    B = BeforeMatrix._wrap(A._m)  # the same C++ matrix (and plan) behind the old Python path
    B._spmv_device = A._m.spmv_device
    ref = cp.asnumpy(A @ x)
    for got in (B @ x, before_spmv(B, x, out=cp.empty(A.shape[0])), A._m.spmv_cupy(x, None, 1.0, 0.0)):
        np.testing.assert_allclose(cp.asnumpy(got), ref, rtol=1e-12, atol=1e-12 * float(np.abs(ref).max()))
    stream = cp.cuda.get_current_stream().ptr
    cpp = float(np.median([A._m.spmv_call_ns(x.data.ptr, y.data.ptr, calls, stream) for _ in range(31)]))
    n, f64 = A.shape[0], np.dtype(np.float64)
    ndarray, gcs = cp.ndarray, cp.cuda.get_current_stream
    raw, fast = A._m.spmv_device, A._m.spmv_cupy
    xp, yp = x.data.ptr, y.data.ptr
    t = interleaved_ns({
        "spmv_out": lambda: spx.spmv(A, x, out=y),
        "matmul": lambda: A @ x,
        "before_spmv_out": lambda: before_spmv(B, x, out=y),
        "before_matmul": lambda: B @ x,
        "loop": lambda: None,
        "cupy_empty": lambda: cp.empty(n),
        "cupy_ndarray": lambda: ndarray(n, f64),
        "get_current_stream": lambda: gcs(),
        "raw_binding": lambda: raw(xp, yp, 1.0, 0.0, stream),
        "fast_out": lambda: fast(x, y, 1.0, 0.0),
        "fast_alloc": lambda: fast(x, None, 1.0, 0.0),
        "cupyx": lambda: S @ x,
    }, calls)
    return {
        "matrix": spec, "rows": A.shape[0], "nnz": A.nnz, "calls_per_burst": calls,
        "cpp_ns": cpp, "spmv_out_ns": t["spmv_out"], "matmul_ns": t["matmul"], "cupyx_ns": t["cupyx"],
        "cupy_empty_ns": t["cupy_empty"],
        "overhead_out_ns": t["spmv_out"] - cpp, "overhead_matmul_ns": t["matmul"] - cpp,
        "before": {"spmv_out_ns": t["before_spmv_out"], "matmul_ns": t["before_matmul"],
                   "overhead_out_ns": t["before_spmv_out"] - cpp, "overhead_matmul_ns": t["before_matmul"] - cpp},
        "parts_ns": {k: t[k] for k in ("loop", "cupy_empty", "cupy_ndarray", "get_current_stream", "raw_binding",
                                       "fast_out", "fast_alloc")},
        "plan": A.plan(replan=False).kernel,
    }


def gpu_us(fn, target_ms=10.0, reps=5):
    fn()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    for _ in range(3):
        fn()
    stop.record()
    stop.synchronize()
    one = max(cp.cuda.get_elapsed_time(start, stop) / 3, 1e-3)
    k = int(min(max(target_ms / one, 3), 2000))
    out = []
    for _ in range(reps):
        start.record()
        for _ in range(k):
            fn()
        stop.record()
        stop.synchronize()
        out.append(1e3 * cp.cuda.get_elapsed_time(start, stop) / k)
    return float(np.median(out))


def rel_err(a, b):
    d = float(cp.linalg.norm((a - b).ravel()))
    n = float(cp.linalg.norm(b.ravel()))
    return d / n if n else d


def compare(name, A):
    S_host = A.to_scipy()
    G = A.to("cuda")
    S = csp.csr_matrix(sp.csr_matrix(S_host))
    rows = []
    rng = np.random.default_rng(1)
    for L in (1, 8, 32):
        X = cp.asarray(rng.uniform(-1, 1, (A.shape[1],) if L == 1 else (A.shape[1], L)))
        ys, yc = G @ X, S @ X
        err = rel_err(ys, yc)
        t_spx = gpu_us(lambda: G @ X)
        t_cupyx = gpu_us(lambda: S @ X)
        plan = G.plan(*(("spmv",) if L == 1 else ("spmm", L)), replan=False)
        rows.append({
            "matrix": name, "rows": A.shape[0], "cols": A.shape[1], "nnz": A.nnz,
            "op": "spmv" if L == 1 else "spmm", "cols_dense": None if L == 1 else L, "precision": "f64",
            "spx_us": t_spx, "cupyx_us": t_cupyx, "speedup": t_cupyx / t_spx, "rel_error_vs_cupyx": err,
            "spx_kernel": plan.kernel, "spx_owner": plan.owner, "decided_by": plan.decided_by,
        })
        print(f"{name:32s} {rows[-1]['op']:4s} L={L:2d}  spx {t_spx:9.2f} us  cupyx {t_cupyx:9.2f} us  "
              f"x{t_cupyx / t_spx:5.2f}  {plan.owner} {plan.kernel}  err {err:.1e}", flush=True)
        del X, ys, yc
    del G, S
    cp.get_default_memory_pool().free_all_blocks()
    return rows


def shared_list(d):
    manifest = pathlib.Path(d) / "MANIFEST.tsv"
    if not manifest.exists():
        return []
    lines = manifest.read_text().splitlines()
    head = lines[0].split("\t")
    rows = [dict(zip(head, line.split("\t"))) for line in lines[1:]]
    rows.sort(key=lambda r: -int(r["nnz_full"]))
    return [(r["name"], pathlib.Path(d) / f"{r['name']}.mtx.gz") for r in rows]


def geomean(xs):
    xs = [x for x in xs if x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--shared", default=os.environ.get("SPX_SHARED_MATRICES", "../shared/matrices"))
    ap.add_argument("--budget-s", type=float, default=120.0, help="stop starting matrices after this")
    ap.add_argument("--standard", type=int, default=len(STANDARD), help="how many standard matrices")
    ap.add_argument("--overhead-only", action="store_true", help="the overhead tables, not the comparison")
    a = ap.parse_args()
    t_start = time.time()
    dev = cp.cuda.runtime.getDeviceProperties(0)
    report = {
        "device": {"name": dev["name"].decode() if isinstance(dev["name"], bytes) else dev["name"]},
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": os.environ.get("SPX_COMMIT", ""),
        "python": platform.python_version(), "cupy": cp.__version__, "numpy": np.__version__,
        "spx": spx.__version__, "overhead": [], "results": [], "notes": [],
    }

    def save():
        pathlib.Path(a.out).write_text(json.dumps(report, indent=1))

    for spec, calls in (("stencil27:n=16", 200), ("stencil27:n=64", 200)):
        o = overhead(spec, calls)
        report["overhead"].append(o)
        b = o["before"]
        print(f"overhead {spec} ({o['plan']}): cpp {o['cpp_ns']:.0f} ns | spmv(out=) {o['spmv_out_ns']:.0f} ns "
              f"(+{o['overhead_out_ns']:.0f}; before {b['spmv_out_ns']:.0f}, +{b['overhead_out_ns']:.0f}) | "
              f"A @ x {o['matmul_ns']:.0f} ns (+{o['overhead_matmul_ns']:.0f}; before {b['matmul_ns']:.0f}, "
              f"+{b['overhead_matmul_ns']:.0f}) | cupyx {o['cupyx_ns']:.0f} ns", flush=True)
        print("  parts (ns/call): " + ", ".join(f"{k} {v:.0f}" for k, v in o["parts_ns"].items()), flush=True)
    save()
    if a.overhead_only:
        return

    shared = shared_list(a.shared)
    # Interleaved so a short budget still sees both groups: one standard matrix, the 12 largest
    # shared ones, the other standard ones, the remaining shared ones.
    work = ([("standard", STANDARD[0])] + [("shared", m) for m in shared[:12]] +
            [("standard", m) for m in STANDARD[1:]] + [("shared", m) for m in shared[12:]])
    for group, (name, source) in work:
        if group == "standard" and STANDARD.index((name, source)) >= a.standard:
            continue
        if time.time() - t_start > a.budget_s:
            report["notes"].append(f"budget: skipped {name}")
            continue
        t0 = time.time()
        A = spx.generate(source) if group == "standard" else spx.read(source)
        report["results"] += compare(name, A)
        report["notes"].append(f"{name}: {time.time() - t0:.1f} s")
        del A
        save()

    summary = {}
    for op, L in (("spmv", None), ("spmm", 8), ("spmm", 32)):
        for group, pick in (("shared", lambda r: r["matrix"] not in dict(STANDARD)),
                            ("standard", lambda r: r["matrix"] in dict(STANDARD))):
            rs = [r for r in report["results"] if r["op"] == op and r["cols_dense"] == L and pick(r)]
            if rs:
                summary[f"{op}{'' if L is None else L} {group}"] = {
                    "matrices": len(rs), "geomean_speedup": geomean([r["speedup"] for r in rs]),
                    "spx_wins": sum(r["speedup"] > 1 for r in rs)}
    report["summary"] = summary
    for k, v in summary.items():
        print(f"{k:22s} {v['matrices']:3d} matrices  geomean spx speedup over cupyx x{v['geomean_speedup']:.2f}"
              f"  (spx faster on {v['spx_wins']})")
    save()


if __name__ == "__main__":
    main()
