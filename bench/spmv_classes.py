#!/usr/bin/env python3
"""Geometric-mean speedups of spx SpMV kernels over the best cuSPARSE CSR kernel, by matrix class
(stdlib only), from `spx bench --json` output of the cuda backend.

    python3 bench/spmv_classes.py [--manifest M] [--kernels a,b] [--table] run.json [more.json ...]

Classes, as issue 5 states its goals:
  irregular  powerlaw_*, rmat_*, longrows_* and the shared matrices of group circuit or graph/web
  regular    stencil*, fem_*, banded_*, blockdense_*, dense_csr_* and group structural/FEM
  other      everything else (the shared group "other"), reported but not in either goal
The baseline per (matrix, precision) is the fastest checked cusparse_csr* result of the same run.
Only checked results count. --table also prints one line per matrix. Files ending in .gz (the
committed results) are read as gzip.
"""
import argparse
import csv
import gzip
import json
import math
import os
from collections import defaultdict

IRREGULAR_PREFIXES = ("powerlaw", "rmat", "longrows")
REGULAR_PREFIXES = ("stencil", "fem_", "banded", "blockdense", "dense_csr")


def load_groups(path):
    groups = {}
    if path and os.path.exists(path):
        with open(path) as f:
            for row in csv.DictReader(f, delimiter="\t"):
                groups[row["name"]] = row["group"]
    return groups


def load_json(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def matrix_class(name, groups):
    if name.startswith(IRREGULAR_PREFIXES) or groups.get(name) in ("circuit", "graph/web"):
        return "irregular"
    if name.startswith(REGULAR_PREFIXES) or groups.get(name) == "structural/FEM":
        return "regular"
    return "other"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--manifest", default=os.path.join(here, "..", "..", "shared", "matrices", "MANIFEST.tsv"))
    ap.add_argument("--kernels", default="spmv_segsum,csr_param")
    ap.add_argument("--table", action="store_true")
    ap.add_argument("json", nargs="+")
    args = ap.parse_args()
    groups = load_groups(args.manifest)
    results = [r for p in args.json for r in load_json(p)["results"]]
    results = [r for r in results if r.get("op") == "spmv" and r.get("checked") and (r.get("ms_median") or 0) > 0]
    best = {}
    for r in results:
        if r["kernel"].startswith("cusparse_csr"):
            key = (r["matrix"], r["precision"])
            if key not in best or r["ms_median"] < best[key]["ms_median"]:
                best[key] = r
    kernels = [k for k in args.kernels.split(",") if k]
    ratios = defaultdict(list)  # (kernel, precision, class) -> [speedup]
    rows = []
    for r in results:
        if r["kernel"] not in kernels:
            continue
        key = (r["matrix"], r["precision"])
        if key not in best:
            continue
        s = best[key]["ms_median"] / r["ms_median"]
        cls = matrix_class(r["matrix"], groups)
        ratios[(r["kernel"], r["precision"], cls)].append(s)
        rows.append((cls, r["matrix"], r["precision"], r["kernel"], best[key]["ms_median"], r["ms_median"], s,
                     r.get("pct_copy") or 0.0))
    print("| kernel | precision | class | matrices | geomean vs best cuSPARSE CSR | min | max |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for (k, p, c), xs in sorted(ratios.items()):
        print(f"| {k} | {p} | {c} | {len(xs)} | {geomean(xs):.2f}x | {min(xs):.2f} | {max(xs):.2f} |")
    if args.table:
        print()
        print("| class | matrix | precision | kernel | best cuSPARSE ms | ms | speedup | % copy |")
        print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: |")
        for cls, m, p, k, b, t, s, pct in sorted(rows):
            print(f"| {cls} | {m} | {p} | {k} | {b:.4f} | {t:.4f} | {s:.2f}x | {pct:.0f}% |")


if __name__ == "__main__":
    main()
