#!/usr/bin/env python3
"""Evaluate and refit the CSR SpMV fixed rule from `spx tune --json` output.

The rule (src/tune/csr_rule.cpp, csr_fixed_rule) picks (block_size, coop, repeat) from the average
row length, the row count and the device. `spx tune` times every configuration of a grid on each
matrix; this script reads those JSONs and reports, for a rule table, the fraction of the
exhaustive optimum it reaches (optimum time / time of the rule's pick, 1.0 = optimal) on training
and held-out matrices, as Reguly & Giles report it (84% on their training matrices, 73% on all).
With --fit it searches rule tables for the best mean fraction on the training matrices and prints
the table for csr_rule.cpp.

Split (docs/spmv-csr.md): generated matrices (source "spec": the small and standard suites) and
every other shared matrix in name order (0th, 2nd, ...) train; the rest of the shared matrices are
held out. --train-names / --heldout-names override it. Files ending in .gz (the committed
results, bench/results/h100/spmv-family/tune-*.json.gz) are read as gzip.

Examples:
  tools/fit_csr_rule.py tune_f64.json tune_f32.json
  tools/fit_csr_rule.py tune*.json --fit --out fitted_table.json
  tools/fit_csr_rule.py tune.json --table fitted_table.json --per-matrix
"""

import argparse
import gzip
import json
import math
import sys

INF = float("inf")


# --- the rule, as src/tune/csr_rule.cpp computes it ------------------------------------------

FALLBACK = {"sm_count": 132, "max_threads_per_sm": 2048, "max_blocks_per_sm": 32, "max_threads_per_block": 1024}


def device_value(device, key):
    v = device.get(key, 0) or 0
    return v if v > 0 else FALLBACK[key]


def resident_threads(device, block_size):
    block = max(32, block_size)
    blocks = min(device_value(device, "max_blocks_per_sm"), device_value(device, "max_threads_per_sm") // block)
    return max(1, blocks) * block


def rule_pick(table, stats, device):
    """(block_size, coop, repeat) for a matrix, exactly as csr_fixed_rule."""
    avg = stats.get("avg_row", 0.0)
    avg = max(0.0, avg) if avg is not None and math.isfinite(avg) else 0.0
    coop = table["coop_steps"][-1]["coop"]
    for step in table["coop_steps"]:
        bound = INF if step["avg_row_below"] is None else step["avg_row_below"]
        if avg < bound:
            coop = step["coop"]
            break
    max_block = device_value(device, "max_threads_per_block")
    block = min(max(table["block_size"] // 32 * 32, 64), min(1024, max_block))

    def rows_per_group_at(c):
        return max(0, stats.get("rows", 0)) / (device_value(device, "sm_count") * resident_threads(device, block) / max(1, c))

    # Large short-row matrices: coop halved (CsrRuleTable::halve_coop_*; tables recorded before
    # the field existed get the C++ defaults).
    if (coop > 1 and avg < table.get("halve_coop_avg_below", 24)
            and rows_per_group_at(coop) >= table.get("halve_coop_rows_per_group", 16)):
        coop //= 2
    rows_per_group = rows_per_group_at(coop)
    repeat = table["repeat_steps"][0]["repeat"]
    for step in table["repeat_steps"]:
        if rows_per_group >= step["rows_per_resident_group_from"]:
            repeat = step["repeat"]
    return (block, coop, min(max(repeat, 1), 1024))


# --- measurements -----------------------------------------------------------------------------


class Matrix:
    def __init__(self, entry, device, table):
        self.name = entry["name"]
        self.precision = entry["precision"]
        self.source = entry.get("source", "file")
        self.suite = entry.get("suite", "")
        self.stats = dict(entry["stats"])
        self.stats.setdefault("rows", entry["rows"])
        self.device = device
        self.times = {(c["block_size"], c["coop"], c["repeat"]): c["ms"] for c in entry["configs"]}
        self.best_ms = min(self.times.values())
        self.recorded_rule = tuple(entry["rule"]["params"][k] for k in ("block_size", "coop", "repeat"))
        self.recorded_table = table
        self.cusparse_ms = entry.get("cusparse_best_ms")

    @property
    def key(self):
        return f"{self.name} {self.precision}"

    def fraction(self, pick):
        ms = self.times.get(pick)
        return None if ms is None or ms <= 0 else self.best_ms / ms


def load(paths, precision):
    matrices = []
    for path in paths:
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            report = json.load(f)
        device = report.get("device", {})
        table = report.get("rule_table")
        for entry in report.get("matrices", []):
            if precision and entry["precision"] != precision:
                continue
            if entry.get("configs"):
                matrices.append(Matrix(entry, device, table))
    return matrices


def split(matrices, train_names, heldout_names):
    """Returns (train, heldout) lists of matrices."""
    if train_names or heldout_names:
        train = [m for m in matrices if m.name in train_names or (heldout_names and m.name not in heldout_names)]
        heldout = [m for m in matrices if m not in train]
        return train, heldout
    shared = sorted({m.name for m in matrices if m.source != "spec"})
    shared_train = set(shared[0::2])
    train = [m for m in matrices if m.source == "spec" or m.name in shared_train]
    heldout = [m for m in matrices if m not in train]
    return train, heldout


# --- scoring ----------------------------------------------------------------------------------


def score(table, matrices):
    """(mean fraction, geometric mean fraction, matrices scored, picks outside the grid)."""
    fractions, outside = [], 0
    for m in matrices:
        f = m.fraction(rule_pick(table, m.stats, m.device))
        if f is None:
            outside += 1
        else:
            fractions.append(f)
    if not fractions:
        return (float("nan"), float("nan"), 0, outside)
    mean = sum(fractions) / len(fractions)
    geo = math.exp(sum(math.log(f) for f in fractions) / len(fractions))
    return (mean, geo, len(fractions), outside)


def speedup_vs_cusparse(table, matrices):
    logs = []
    for m in matrices:
        ms = m.times.get(rule_pick(table, m.stats, m.device))
        if ms and m.cusparse_ms and m.cusparse_ms > 0 and math.isfinite(m.cusparse_ms):
            logs.append(math.log(m.cusparse_ms / ms))
    return math.exp(sum(logs) / len(logs)) if logs else float("nan")


def report(title, table, train, heldout):
    print(f"{title}:")
    for name, subset in (("training", train), ("held out", heldout), ("all", train + heldout)):
        mean, geo, n, outside = score(table, subset)
        extra = f", {outside} picks outside the grid (not scored)" if outside else ""
        print(f"  {name:<9} {100 * mean:5.1f}% of optimum (mean), {100 * geo:5.1f}% (geomean) over {n}{extra}")
    print(f"  speedup over the best cuSPARSE CSR (geomean, all): {speedup_vs_cusparse(table, train + heldout):.2f}x")


# --- fitting ----------------------------------------------------------------------------------


def coop_steps_from_bounds(bounds):
    """bounds[i] = average row length from which coop 2^(i+1) takes over from 2^i."""
    steps = [{"avg_row_below": b, "coop": 2**i} for i, b in enumerate(bounds)]
    steps.append({"avg_row_below": None, "coop": 2 ** len(bounds)})
    return steps


def repeat_steps_from_waves(waves):
    if waves is None:  # never more than one batch per block
        return [{"rows_per_resident_group_from": 0, "repeat": 1}]
    return [{"rows_per_resident_group_from": 0, "repeat": 1}] + [
        {"rows_per_resident_group_from": waves * r, "repeat": r} for r in (2, 4, 8, 16)
    ]


def fit(start, train, grid_blocks, objective):
    """Coordinate descent over the coop bounds, the block size and the minimum waves for repeat."""
    def value(t):
        mean, geo, n, _ = score(t, train)
        v = mean if objective == "mean" else geo
        return v if n else -1.0

    bounds = [s["avg_row_below"] for s in start["coop_steps"][:-1]]
    if len(bounds) != 5 or any(b is None for b in bounds):
        bounds = [1.0, 4.0, 16.0, 64.0, 256.0]
    best = dict(start)
    best["coop_steps"] = coop_steps_from_bounds(bounds)
    best["repeat_steps"] = repeat_steps_from_waves(8)
    best_value = value(best)
    improved = True
    while improved:
        improved = False
        for i in range(len(bounds)):
            for scale in (0.25, 0.5, 0.7, 1.4, 2.0, 4.0):
                trial_bounds = list(bounds)
                trial_bounds[i] = bounds[i] * scale
                if any(trial_bounds[j] >= trial_bounds[j + 1] for j in range(len(trial_bounds) - 1)):
                    continue
                t = dict(best, coop_steps=coop_steps_from_bounds(trial_bounds))
                if value(t) > best_value + 1e-9:
                    best, best_value, bounds, improved = t, value(t), trial_bounds, True
        for block in grid_blocks:
            t = dict(best, block_size=block)
            if value(t) > best_value + 1e-9:
                best, best_value, improved = t, value(t), True
        for waves in (None, 1, 2, 4, 8, 16, 32, 64):
            t = dict(best, repeat_steps=repeat_steps_from_waves(waves))
            if value(t) > best_value + 1e-9:
                best, best_value, improved = t, value(t), True
    return best


def cpp_table(t):
    coop = ", ".join(
        "{" + ("std::numeric_limits<double>::infinity()" if s["avg_row_below"] is None else f"{s['avg_row_below']:g}")
        + f", {s['coop']}" + "}"
        for s in t["coop_steps"]
    )
    repeat = ", ".join("{" + f"{s['rows_per_resident_group_from']:g}, {s['repeat']}" + "}" for s in t["repeat_steps"])
    return f"{{{coop}}},\n{t['block_size']},\n{{{repeat}}},\n{t['long_row_min_iterations']:g},\n{t['long_row_share']:g},\n{t.get('halve_coop_rows_per_group', 16):g},\n{t.get('halve_coop_avg_below', 24):g},"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+", help="spx tune --json outputs")
    ap.add_argument("--precision", choices=["f32", "f64"], help="only this precision (default: both)")
    ap.add_argument("--table", help="evaluate this rule table (JSON, as spx tune records it) instead of the recorded one")
    ap.add_argument("--fit", action="store_true", help="search for a better table on the training matrices")
    ap.add_argument("--objective", choices=["mean", "geomean"], default="mean", help="what --fit maximises")
    ap.add_argument("--out", help="write the fitted table here (JSON)")
    ap.add_argument("--train-names", default="", help="comma-separated matrix names to train on")
    ap.add_argument("--heldout-names", default="", help="comma-separated matrix names to hold out")
    ap.add_argument("--per-matrix", action="store_true", help="print each matrix's pick and fraction")
    args = ap.parse_args()

    matrices = load(args.json, args.precision)
    if not matrices:
        sys.exit("no tuned matrices in the input")
    recorded = matrices[0].recorded_table
    table = recorded
    if args.table:
        with open(args.table) as f:
            table = json.load(f)
    if table is None:
        sys.exit("the input has no rule_table; pass --table")

    # The script must compute the same picks as the C++ rule that ran.
    mismatched = [m.key for m in matrices if m.recorded_table == recorded
                  and rule_pick(recorded, m.stats, m.device) != m.recorded_rule]
    if mismatched:
        print(f"warning: this script's rule disagrees with the recorded C++ picks on {len(mismatched)} "
              f"matrices (first: {mismatched[0]}); fix rule_pick()", file=sys.stderr)

    train_names = {n for n in args.train_names.split(",") if n}
    heldout_names = {n for n in args.heldout_names.split(",") if n}
    train, heldout = split(matrices, train_names, heldout_names)
    print(f"{len(matrices)} matrix-precision pairs: {len(train)} training, {len(heldout)} held out")
    print("held out: " + ", ".join(sorted({m.name for m in heldout})))
    report("rule table " + ("from " + args.table if args.table else "recorded by spx tune"), table, train, heldout)

    if args.fit:
        blocks = sorted({k[0] for m in matrices for k in m.times})
        fitted = fit(table, train, blocks, args.objective)
        report("fitted table", fitted, train, heldout)
        print("\nfor src/tune/csr_rule.cpp (default_csr_rule_table):\n" + cpp_table(fitted))
        if args.out:
            with open(args.out, "w") as f:
                json.dump(fitted, f, indent=2)
        table = fitted

    if args.per_matrix:
        print(f"\n{'matrix':<40} {'set':<8} {'avg row':>8} {'rows':>9} {'pick (block,coop,repeat)':>26} "
              f"{'best':>18} {'fraction':>8}")
        for m in sorted(matrices, key=lambda m: m.key):
            pick = rule_pick(table, m.stats, m.device)
            best = min(m.times, key=m.times.get)
            f = m.fraction(pick)
            print(f"{m.key:<40} {'train' if m in train else 'held':<8} {m.stats.get('avg_row', 0):8.2f} "
                  f"{m.stats.get('rows', 0):9d} {str(pick):>26} {str(best):>18} "
                  f"{'-' if f is None else f'{100 * f:7.1f}%':>8}")


if __name__ == "__main__":
    main()
