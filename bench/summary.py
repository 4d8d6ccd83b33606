#!/usr/bin/env python3
"""Markdown summary tables of `spx bench --json` output from the cuda backend (stdlib only).

    python3 bench/summary.py bench-standard.json [bench-shared.json ...] > summary.md

One table per precision: for each matrix, the fastest cuSPARSE SpMV kernel with its median time,
effective GB/s (Reguly-Giles eq. 2) and minimum-traffic GB/s as % of the measured copy bandwidth;
spx's csr_scalar time and its speedup over that kernel (best vendor ms / csr_scalar ms: above 1
means ours is faster); and the fastest cuSPARSE SpMM kernel (spmm_ prefix dropped).
Then one line per GEMM size and precision (cuBLAS). Only results that passed their check count.
Files ending in .gz (the committed results) are read as gzip.
"""
import gzip
import json
import sys
from collections import OrderedDict


def fastest(results):
    ok = [r for r in results if r.get("checked") and (r.get("ms_median") or 0) > 0]
    return min(ok, key=lambda r: r["ms_median"]) if ok else None


def ms(v):
    return f"{v:.4f}" if v < 1 else f"{v:.3f}"


def main(paths):
    docs = []
    for p in paths:
        with (gzip.open(p, "rt") if p.endswith(".gz") else open(p)) as f:
            docs.append(json.load(f))
    results = [r for d in docs for r in d["results"]]
    copy_gbs = docs[0]["device"]["copy_gbs"]
    out = []
    for prec in ("f32", "f64"):
        by_matrix = OrderedDict()
        for r in results:
            if r["precision"] == prec and r["op"] in ("spmv", "spmm"):
                by_matrix.setdefault(r["matrix"], []).append(r)
        if not by_matrix:
            continue
        out.append(f"\n### {prec}\n")
        out.append("| matrix | nnz | best cuSPARSE SpMV | ms | GB/s | % copy | csr_scalar ms "
                   "| csr_scalar speedup | best cuSPARSE SpMM (L) | ms | GFLOP/s |")
        out.append("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
        for matrix, rs in by_matrix.items():
            spmv = [r for r in rs if r["op"] == "spmv"]
            best = fastest([r for r in spmv if r["vendor"]])
            ours = fastest([r for r in spmv if r["kernel"] == "csr_scalar"])
            spmm = fastest([r for r in rs if r["op"] == "spmm" and r["vendor"]])
            cells = [matrix, f"{rs[0]['nnz']:,}"]
            if best:
                pct = 100 * best["gbs_min"] / copy_gbs
                cells += [best["kernel"], ms(best["ms_median"]), f"{best['gbs']:.0f}", f"{pct:.0f}%"]
            else:
                cells += ["-"] * 4
            if ours and best:
                cells += [ms(ours["ms_median"]), f"{best['ms_median'] / ours['ms_median']:.3g}x"]
            else:
                cells += ["-", "-"]
            if spmm:
                cells += [f"{spmm['kernel'].replace('cusparse_spmm_', '')} ({spmm['cols_dense']})",
                          ms(spmm["ms_median"]), f"{spmm['gflops']:.0f}"]
            else:
                cells += ["-"] * 3
            out.append("| " + " | ".join(cells) + " |")
    gemms = [r for r in results if r["op"] == "gemm" and r.get("checked")]
    if gemms:
        out.append("\n### GEMM (cuBLAS, column-major, N x N x N)\n")
        out.append("| N | precision | kernel | ms | TFLOP/s |")
        out.append("| ---: | --- | --- | ---: | ---: |")
        for r in sorted(gemms, key=lambda r: (r["rows"], r["precision"])):
            out.append(f"| {r['rows']} | {r['precision']} | {r['kernel']} | {ms(r['ms_median'])} "
                       f"| {r['gflops'] / 1e3:.1f} |")
    print("\n".join(out).lstrip("\n"))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
