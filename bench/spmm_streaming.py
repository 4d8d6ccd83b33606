#!/usr/bin/env python3
"""The paper's Table 4 for the host-resident SpMM (FastSpMM* vs FastSpMM; docs/spmm-streaming.md).

Runs `spx spmm MATRIX --cols L --host-resident --streams N --compare --json -` for every matrix
(files, folders of *.mtx[.gz], or generator specs), collects the JSON, and writes one combined JSON
plus a markdown table: PT, CT, % Com and Runt of FastSpMM*, Runt of FastSpMM, the acceleration
factor AF, and how close FastSpMM comes to the PCIe-bound time.

  bench/spmm_streaming.py --spx build/bin/spx --cols 128 --streams 3 --layout col --pinned \\
      stencil27:n=100 fem:rows=1000000,len=100 ../shared/matrices -o bench/results/h100/spmm-streaming/table4
  bench/spmm_streaming.py --from-json run1.json run2.json -o table    # only re-tabulate
  bench/spmm_streaming.py --from-json bench/results/h100/spmm-streaming/table4.json.gz -o /tmp/t4

--from-json takes `spx spmm --json` output or this script's own OUT.json (its runs are tabulated
again); files ending in .gz are read as gzip. Writes OUT.json and OUT.md. Exit status 1 when a run failed or did not match spx::ref.
"""
import argparse
import glob
import gzip
import json
import os
import subprocess
import sys


def expand(inputs):
    out = []
    for item in inputs:
        if os.path.isdir(item):
            out += sorted(glob.glob(os.path.join(item, "*.mtx")) + glob.glob(os.path.join(item, "*.mtx.gz")))
        else:
            out.append(item)
    return out


def run_one(args, matrix):
    cmd = [args.spx, "spmm", matrix, "--cols", str(args.cols), "--host-resident", "--streams", str(args.streams),
           "--compare", "--precision", args.precision, "--layout", args.layout, "--kernel", args.kernel,
           "--transfer", args.transfer, "--repeat", str(args.repeat), "--json", "-"]
    if args.chunk_cols:
        cmd += ["--chunk-cols", str(args.chunk_cols)]
    if args.pinned:
        cmd += ["--pinned-host"]
    if args.device_memory_limit:
        cmd += ["--device-memory-limit", args.device_memory_limit]
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sys.stderr.write(p.stderr)
    if p.returncode != 0 and not p.stdout.strip():
        return None, p.returncode
    return json.loads(p.stdout), p.returncode


def runs_of(doc):
    """(header, FastSpMM*, FastSpMM) of one `spx spmm --compare --json` document, or None without a
    FastSpMM* run. spx spmm writes spx bench's JSON (the run report in each result's params, the
    median runtime in ms_median); runs written before it moved onto the engine (mode and report at the
    top of each result, the shape at the top of the document) are read too, to re-tabulate them."""
    results = doc.get("results", [])
    if results and "mode" in results[0]:  # spx spmm before the benchmark engine
        star = next((r for r in results if r["mode"] == "fastspmm_star"), None)
        fast = next((r for r in results if r["mode"] == "fastspmm"), None)
        return (doc, star, fast) if star and fast else None

    def flat(r):
        run = dict(r["params"])
        run.update(runtime_ms=r["ms_median"], checked=r["checked"])
        return run

    by_mode = {r["params"].get("mode"): r for r in results if isinstance(r.get("params"), dict)}
    if "fastspmm_star" not in by_mode or "fastspmm" not in by_mode:
        return None
    f = by_mode["fastspmm"]
    header = {"matrix": f["matrix"], "precision": f["precision"], "layout": f["params"]["layout"],
              "cols_dense": f["cols_dense"], "rows": f["rows"], "nnz": f["nnz"],
              "avg_row": f["stats"]["avg_row"], "max_row": f["stats"]["max_row"],
              "pcie": {k: f["params"]["pcie_" + k] for k in
                       ("h2d_gbs", "d2h_gbs", "h2d_concurrent_gbs", "d2h_concurrent_gbs")}}
    return header, flat(by_mode["fastspmm_star"]), flat(f)


def row(runs):
    doc, star, fast = runs
    s = lambda ms: ms / 1000.0  # noqa: E731  (the paper reports seconds)
    return {
        "matrix": doc["matrix"], "precision": doc["precision"], "layout": doc["layout"], "L": doc["cols_dense"],
        "rows": doc["rows"], "nnz": doc["nnz"], "Av": doc["avg_row"], "Max_nzr": doc["max_row"],
        "L_GPU": fast["chunk_cols"], "chunks": fast["chunks"], "streams": fast["streams"],
        "transfer": fast["transfer"],
        "host": "{}, {}, {}".format(doc["layout"], fast.get("host_memory", "pageable"), fast["transfer"]), "PT": s(star["processing_ms"]), "CT": s(star["communication_ms"]),
        "pct_com": star["percent_communication"], "Runt_star": s(star["runtime_ms"]),
        "Runt": s(fast["runtime_ms"]), "AF": star["runtime_ms"] / fast["runtime_ms"],
        "pcie_bound": s(fast["pcie_bound_ms"]), "pct_pcie": 100.0 * fast["pcie_fraction"],
        "star_pct_pcie": 100.0 * star["pcie_fraction"],
        "checked": bool(star["checked"] and fast["checked"]),
    }


def markdown(rows, pcie):
    lines = []
    if pcie:
        lines.append("Pinned PCIe: H2D {h2d_gbs:.1f} GB/s, D2H {d2h_gbs:.1f} GB/s alone; "
                     "{h2d_concurrent_gbs:.1f} / {d2h_concurrent_gbs:.1f} GB/s at once.\n".format(**pcie))
    lines.append("| matrix | prec | host B, C | Av | Max_nzr | L | L_GPU x chunks | streams | PT s | CT s | % Com | Runt* s | Runt s | AF |"
                 " PCIe bound s | % of bound | checked |")
    lines.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        lines.append(
            "| {matrix} | {precision} | {host} | {Av:.1f} | {Max_nzr} | {L} | {L_GPU} x {chunks} | {streams} | {PT:.4f} | {CT:.4f} | "
            "{pct_com:.1f} | {Runt_star:.4f} | {Runt:.4f} | {AF:.2f} | {pcie_bound:.4f} | {pct_pcie:.0f} | {ok} |"
            .format(ok="yes" if r["checked"] else "NO", **r))
    lines.append("\nPT, CT, % Com, Runt*: FastSpMM* (streams = 1, Algorithm 2). Runt: FastSpMM (Algorithm 3) with the"
                 " same L_GPU. AF = Runt*/Runt. % of bound = PCIe-bound time / Runt of FastSpMM.")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("matrices", nargs="*", help="files, folders, generator specs")
    ap.add_argument("--spx", default="build/bin/spx")
    ap.add_argument("--cols", type=int, default=256)
    ap.add_argument("--streams", type=int, default=3)
    ap.add_argument("--chunk-cols", type=int, default=0)
    ap.add_argument("--device-memory-limit", default="")
    ap.add_argument("--precision", default="f64", choices=["f32", "f64"])
    ap.add_argument("--layout", default="row", choices=["row", "col"])
    ap.add_argument("--kernel", default="auto", choices=["auto", "ellr", "csr", "set-spmvs"])
    ap.add_argument("--transfer", default="auto", choices=["auto", "staged", "registered", "direct"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--pinned", action="store_true", help="page-lock B and C first (spx spmm --pinned-host)")
    ap.add_argument("--from-json", nargs="*", default=None, help="tabulate existing `spx spmm --json` files")
    ap.add_argument("-o", "--out", default="spmm_streaming", help="output path without extension")
    args = ap.parse_args()

    docs, failed = [], False
    if args.from_json is not None:
        for path in args.from_json:
            with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
                text = f.read()
            # One object per file, or several written one after another; a combined OUT.json of
            # this script holds its `spx spmm` documents under "runs".
            decoder, pos = json.JSONDecoder(), 0
            while text[pos:].strip():
                doc, end = decoder.raw_decode(text, pos + len(text[pos:]) - len(text[pos:].lstrip()))
                docs.extend(doc["runs"] if isinstance(doc, dict) and "runs" in doc else [doc])
                pos = end
    else:
        for m in expand(args.matrices):
            doc, rc = run_one(args, m)
            failed |= rc != 0
            if doc is not None:
                docs.append(doc)
    runs = [r for r in (runs_of(d) for d in docs) if r is not None]
    rows = [row(r) for r in runs]
    failed |= any(not r["checked"] for r in rows)
    pcie = runs[0][0].get("pcie") if runs else None
    with open(args.out + ".json", "w") as f:
        json.dump({"device": docs[0]["device"] if docs else None, "pcie": pcie, "runs": docs, "table": rows}, f,
                  indent=1)
    with open(args.out + ".md", "w") as f:
        f.write(markdown(rows, pcie))
    sys.stdout.write(markdown(rows, pcie))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
