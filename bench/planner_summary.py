#!/usr/bin/env python3
"""The planner's validation tables from `spx bench` JSON (scripts/planner-check bench).

For every (matrix, precision, op) problem: the oracle is the fastest candidate measured in the same
run (spx's kernels and cuSPARSE's, the planner's whole candidate list), cuSPARSE's best the fastest
of its candidates, spx's best the fastest of spx's own. Each spx_auto entry (one per planning mode)
is reported as a fraction of the oracle and as a speedup over cuSPARSE's best; planning cost in µs
and in products. With --tune JSON (spx tune), the tuner's csr_param result against the exhaustive
grid's best.

  python3 bench/planner_summary.py planner-planner.json.gz planner-shared.json.gz [--tune tune.json.gz]
"""
import argparse
import gzip
import json
import math
from collections import defaultdict

# The catalogue's candidates (src/plan/catalogue.cpp) as they were before the bench JSON marked
# each result's "candidate" (older files), row-major SpMM.
SPMV = ["csr_param", "csr_vector", "spmv_segsum", "ell", "ellr_t", "coo", "hyb", "cusparse_csr_alg1",
        "cusparse_csr_alg2", "cusparse_coo_alg1", "cusparse_coo_alg2", "cusparse_sell_alg1", "bsr", "cusparse_bsr"]
SPMM = ["spmm_csr_row", "spmm_csr_split_row", "spmm_csr_tiled_row", "spmm_ellr_t_row",
        "cusparse_spmm_csr_alg1_row", "cusparse_spmm_csr_alg2_row", "cusparse_spmm_csr_alg3_row",
        "cusparse_spmm_coo_alg1_row", "cusparse_spmm_coo_alg4_row"]
# The front door's entries (bench/cuda_spx_auto.cpp); the SpMM ones with "_col" for column-major.
MODES = ["spx_auto_rule", "spx_auto_model", "spx_auto", "spx_auto_measure", "spx_auto_tune",
         "spx_auto_default_calls"]
# spx_auto_default_calls plans for the library's default expected calls: its fraction is also given
# with planning (and the race's slower calls) amortised over them.
AMORTISED = "spx_auto_default_calls"


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def layout_of(r):
    p = r.get("params", {})
    return p.get("layout", "row") if isinstance(p, dict) else "row"


def problems(docs):
    """(suite, matrix, precision, op label) -> kernel -> result; SpMM labels carry the layout, and the
    column-major front door entries lose their "_col" so every layout has the same mode names."""
    out = defaultdict(dict)
    for suite, doc in docs:
        for r in doc["results"]:
            if not r.get("checked", False):
                continue
            kernel = r["kernel"]
            if r["op"] == "spmv":
                label = "spmv"
            else:
                layout = layout_of(r)
                label = f"spmm L={r['cols_dense']}" + (" col" if layout == "col" else "")
                if kernel.startswith("spx_auto") and kernel.endswith("_col"):
                    kernel = kernel[: -len("_col")]
            out[(suite, r["matrix"], r["precision"], label)][kernel] = r
    return out


def is_candidate(kernel, r, op):
    # Mixed precision (values rounded to float) is opt-in: never in a default plan's oracle.
    if r.get("rounds_values") or kernel == "csr_param_mixed":
        return False
    if "candidate" in r:
        return r["candidate"]
    return kernel in (SPMV if op == "spmv" else SPMM)


def param(r, key, default=None):
    p = r.get("params", {})
    return p.get(key, default) if isinstance(p, dict) else default


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--tune", help="spx tune JSON of the same matrices (the exhaustive csr_param grid)")
    ap.add_argument("--per-matrix", action="store_true")
    args = ap.parse_args()
    docs = [(f.split("/")[-1].replace(".json.gz", "").replace(".json", ""), load(f)) for f in args.files]
    probs = problems(docs)

    rows = defaultdict(lambda: defaultdict(list))  # (suite, prec, op) -> mode -> [(frac, vs_cus, nnz, name)]
    ceiling = defaultdict(list)
    planning = defaultdict(list)
    for (suite, matrix, prec, op), ks in sorted(probs.items()):
        times = {k: r["ms_median"] for k, r in ks.items() if is_candidate(k, r, op)}
        if not times:
            continue
        oracle = min(times.values())
        cus = [t for k, t in times.items() if k.startswith("cusparse")]
        ours = [t for k, t in times.items() if not k.startswith("cusparse")]
        cus_best = min(cus) if cus else float("nan")
        nnz = next(iter(ks.values()))["nnz"]
        ceiling[(suite, prec, op)].append((cus_best / min(ours)) if ours and cus else float("nan"))
        for mode in MODES:
            if mode not in ks:
                continue
            t = ks[mode]["ms_median"]
            rows[(suite, prec, op)][mode].append((oracle / t, cus_best / t, nnz, matrix, param(ks[mode], "chosen")))
            if mode == AMORTISED:
                calls = param(ks[mode], "expected_calls", 100) or 100
                extra_us = (param(ks[mode], "planning_us", 0) or 0) + (param(ks[mode], "race_excess_us", 0) or 0)
                ta = t + extra_us / 1e3 / calls
                rows[(suite, prec, op)][AMORTISED + "+planning"].append(
                    (oracle / ta, cus_best / ta, nnz, matrix, param(ks[mode], "chosen")))
            pu = param(ks[mode], "planning_us")
            if pu is not None:
                planning[mode].append((pu, pu / (1e3 * t), param(ks[mode], "setup_us", 0) or 0))
        if args.per_matrix:
            best = min(times, key=times.get)
            line = " ".join(f"{m.replace('spx_auto', 'auto')}={oracle / ks[m]['ms_median']:.2f}({param(ks[m], 'chosen')})"
                            for m in MODES if m in ks)
            print(f"{suite:<16} {matrix:<28} {prec} {op:<9} oracle {best} {1e3 * oracle:9.2f} us  {line}")

    print("\nPlanned product as a fraction of the per-matrix oracle (fastest candidate measured in the same run)"
          "\nand against cuSPARSE's best over all its formats and algorithms; geomean (min).")
    shown = MODES + [AMORTISED + "+planning"]
    print(f"{'set':<16} {'prec':<4} {'op':<13} {'n':>3} {'ceiling':>8}  " +
          "  ".join(f"{m.replace('spx_auto', 'auto'):>26}" for m in shown))
    for key in sorted(rows):
        suite, prec, op = key
        cells = []
        for mode in shown:
            v = rows[key].get(mode)
            if not v:
                cells.append(f"{'-':>26}")
                continue
            fr = [x[0] for x in v]
            vc = [x[1] for x in v if not math.isnan(x[1])]
            cells.append(f"{geomean(fr):5.3f} ({min(fr):4.2f}) {geomean(vc):5.2f}x ({min(vc):4.2f})")
        n = len(next(iter(rows[key].values())))
        print(f"{suite:<16} {prec:<4} {op:<13} {n:>3} {geomean(ceiling[key]):7.2f}x  " + "  ".join(cells))

    print("\nMatrices of >= 1M nonzeros: the worst planned product against cuSPARSE's best, per mode")
    for mode in shown:
        worst = []
        for key, per in rows.items():
            worst += [(x[1], x[3], key) for x in per.get(mode, []) if x[2] >= 1_000_000 and not math.isnan(x[1])]
        if worst:
            w = min(worst)
            below = sum(1 for x in worst if x[0] < 0.95)
            print(f"  {mode:<18} worst {w[0]:.2f}x ({w[1]} {w[2][1]} {w[2][2]}), {below} of {len(worst)} below 0.95x")

    print("\nPlanning cost (host wall time: host inputs, features, ranking and the chosen candidate's setup,\n"
          "which is also shown alone)")
    for mode in MODES:
        v = planning.get(mode)
        if v:
            us = sorted(x[0] for x in v)
            prods = sorted(x[1] for x in v)
            setup = sorted(x[2] for x in v)
            med = lambda a: a[len(a) // 2]
            print(f"  {mode:<18} median {med(us):10.1f} us = {med(prods):8.1f} products; setup median {med(setup):9.1f} us"
                  f"; max {us[-1]:10.1f} us")

    if args.tune:
        tune = load(args.tune)
        grid = {}
        for m in tune.get("matrices", tune.get("results", [])):
            name = m.get("name")
            prec = m.get("precision")
            best = m.get("best", {})
            ms = best.get("ms") if isinstance(best, dict) else None
            if name and prec and ms:
                grid[(name, prec)] = ms
        fr = []
        for (suite, matrix, prec, op), ks in probs.items():
            if op == "spmv" and "spx_auto_tune_csr" in ks and (matrix, prec) in grid:
                r = ks["spx_auto_tune_csr"]
                fr.append((grid[(matrix, prec)] / r["ms_median"], matrix, prec, param(r, "tuner_calls")))
        if fr:
            print(f"\nTuner (csr_param, at most 8 timed calls) against spx tune's exhaustive grid: geomean "
                  f"{geomean([x[0] for x in fr]):.3f}, min {min(fr)[0]:.3f} ({min(fr)[1]} {min(fr)[2]}), n = {len(fr)}")
            rule = []
            for (suite, matrix, prec, op), ks in probs.items():
                if op == "spmv" and "csr_param" in ks and (matrix, prec) in grid:
                    rule.append(grid[(matrix, prec)] / ks["csr_param"]["ms_median"])
            if rule:
                print(f"  the fixed rule alone (csr_param): geomean {geomean(rule):.3f}, min {min(rule):.3f}")


if __name__ == "__main__":
    main()
