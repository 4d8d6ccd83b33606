#!/usr/bin/env python3
"""`spx cg --json` files -> markdown tables (docs/cg.md, bench/results/h100/cg/README.md).

Usage: bench/cg_table.py FILE.json[.gz] ...
One row per (matrix, precision, operator): iterations, status, seconds, iterations/s, the SpMV alone,
the vector floor, the iteration against (SpMV + floor), bytes per unknown of one product, and the
speedup over the plain cuSPARSE + cuBLAS CG of the same file and precision (time to the
same stop when the iteration counts agree within 1%, else per iteration, marked so).
"""
import gzip, json, sys


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def main():
    print("| matrix | prec | operator | iterations | status | s | it/s | SpMV ms | floor ms | it / (SpMV+floor) | B/unknown per product | vs plain |")
    print("|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for path in sys.argv[1:]:
        runs = load(path)["runs"]
        vendor = {r["precision"]: r["result"] for r in runs if r.get("vendor")}
        for r in runs:
            res = r["result"]
            name = r["matrix"].replace("fem2d:dofs=", "fem ").replace(",p=", " Q")
            v = vendor.get(r["precision"])
            speed = ""
            if v and not r.get("vendor") and res["seconds"] > 0 and res["iterations"] > 0:
                if abs(v["iterations"] - res["iterations"]) <= 0.01 * v["iterations"]:
                    speed = f"{v['seconds'] / res['seconds']:.2f}x"
                else:  # different stops (e.g. stagnation flagged): compare per iteration
                    speed = f"{(v['seconds'] / v['iterations']) / (res['seconds'] / res['iterations']):.2f}x per it"
            bpu = r.get("operator_bytes_per_apply", 0) / r["rows"] if r.get("operator_bytes_per_apply") else None
            print(f"| {name} | {r['precision']} | {r['operator'].replace('vendor_cusparse_cublas', 'plain cuSPARSE+cuBLAS')} "
                  f"| {res['iterations']} | {res['status']} | {res['seconds']:.4f} | {res['iterations_per_second']:.0f} "
                  f"| {r['spmv_ms']:.4f} | {r['vector_floor_ms']:.4f} | {r['ratio_to_floor']:.2f} | "
                  if "spmv_ms" in r else
                  f"| {name} | {r['precision']} | {r['operator'].replace('vendor_cusparse_cublas', 'plain cuSPARSE+cuBLAS')} "
                  f"| {res['iterations']} | {res['status']} | {res['seconds']:.4f} | {res['iterations_per_second']:.0f} | | | | ",
                  end="")
            print(f"{bpu:.1f} | {speed} |" if bpu else f" | {speed} |")


if __name__ == "__main__":
    main()
