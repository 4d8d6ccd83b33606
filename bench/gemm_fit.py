#!/usr/bin/env python3
"""Fit the DGEMM plan rule's tile table (GemmRuleTable in src/plan/rule_tables.cpp) to measured variants.

Input: spx_gemm_grid --variants JSON files (every tile at several splits per shape, timed back to back).
The model is gemm_predicted_us (src/plan/gemm_rule.cpp), ported below; keep the two in step.
Per tile it fits tensor_fraction, alone_fraction, store_overlap and store_efficiency (and the shared L2
bandwidth) by coordinate search, minimising the rule's regret — the measured time of the variant the
model ranks first, over the fastest measured variant, in geometric mean over the shapes — plus a small
weight on the model's log error over all variants (so that predictions stay times, not just ranks).

    bench/gemm_fit.py grid-a.json grid-b.json [--tiles 128x128,128x64,64x64,...] [--validate val.json ...]

Prints the fitted entries (C++ initialisers), the regret and error per shape, and the totals. With
--validate, both the committed and the fitted table are scored on shapes nothing was fitted on
(regret within the measured variants, the picks' speed over cuBLAS, the best variant's), and every
file's Auto time is compared with the same tile and split timed as a variant (the two timings of one
kernel should agree; summary() below).
"""
import argparse
import gzip
import json
import math

SMS, HBM = 132, 0.9 * 2 * 2619000e3 * 5120 / 8 / 1e9 * 1e3  # bytes per µs, streaming_gbs on the H100
TENSOR_TFLOPS, LAUNCH_US = 66.3, 3.0
# The committed GemmRuleTable (src/plan/rule_tables.cpp), the fit's default start:
# tile -> [bm, bn, blocks_per_sm, tensor_fraction, alone_fraction, store_overlap, store_efficiency].
# tests/python/test_gemm_fit_model.py checks it against tests/data/gemm_model_golden.json.
COMMITTED_TABLE = {
    "128x128": [128, 128, 1, 0.75, 1.0, 0.05, 0.78], "128x64": [128, 64, 2, 0.685, 0.86, 0.45, 0.64],
    "64x64": [64, 64, 3, 0.61, 0.73, 0.38, 0.68], "64x32": [64, 32, 2, 0.65, 0.75, 0.1, 0.83],
    "32x64": [32, 64, 2, 0.65, 0.75, 0.05, 0.69], "32x32": [32, 32, 3, 0.55, 0.8, 0.3, 0.65]}
COMMITTED_L2_GBS = 5960.0
# Tiles measured in the configuration study and not kept (their starting guesses; the study:
# bench/results/h100/gemm/NOTES.md "What cuBLAS runs", its file under "Not kept" in README.md).
DROPPED_TILES = {"128x64w4": [128, 64, 2, 0.78, 0.6, 0.89, 0.70], "64x128": [64, 128, 2, 0.78, 0.6, 0.89, 0.70]}
SLAB_K = {"128x128": 16, "128x64": 16, "64x64": 16, "128x64w4": 16, "64x128": 16, "64x32": 32, "32x64": 32,
          "32x32": 32}


def cdiv(a, b):
    return -(-a // b)


def predicted_us(tile, e, split, m, n, k, l2_gbs, reads_c=False, slab_k=None):
    """gemm_predicted_us for table entry e = [bm, bn, blocks_per_sm, tensor, alone, overlap, store eff]
    of the named tile (slab_k: the entry's own slab depth, GemmTileEntry::bk; else the tile's), in
    microseconds."""
    bm, bn, bps, tf, af, so, se = e
    slab_k = SLAB_K[tile] if slab_k is None else slab_k
    slabs = cdiv(k, slab_k)
    per = cdiv(slabs, max(1, min(split, slabs)))
    s = cdiv(slabs, per)
    slabs_per_split = cdiv(slabs, s)
    blocks = cdiv(m, bm) * cdiv(n, bn) * s
    tensor_per_sm = TENSOR_TFLOPS * 1e6 * tf / SMS
    l2_per_sm = l2_gbs * 1e3 / SMS * (2.0 * bm * bn) / (8.0 * (bm + bn))
    sm_rate = min(tensor_per_sm, l2_per_sm)
    rate = lambda b: sm_rate * min(1.0, b * af)
    block_flops = 2.0 * bm * bn * slabs_per_split * slab_k
    per_sm = cdiv(blocks, SMS)
    full = per_sm // bps
    rest = per_sm - full * bps
    compute = full * bps * block_flops / rate(bps)
    if rest > 0:
        compute += rest * block_flops / rate(rest)
    mn_bytes = 8.0 * m * n
    out_bytes = mn_bytes * s + (mn_bytes if s == 1 and reads_c else 0.0)
    store_us = out_bytes / (HBM * se)
    stores = (1.0 - so) * store_us
    ab_bytes = 8.0 * (m + n) * k
    main = max(compute + stores, ab_bytes / HBM + store_us) + LAUNCH_US
    if s == 1:
        return main
    return main + LAUNCH_US + mn_bytes * (s + (2.0 if reads_c else 1.0)) / HBM


# The rule's candidate list (GemmRuleTable: split_steps, min_split_slabs, max_workspace_bytes).
SPLIT_STEPS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 132, 198, 264, 396, 528, 792]
MIN_SPLIT_SLABS, MAX_WORKSPACE_BYTES = 8, 256 << 20


def rule(m, n, k, table=None, l2_gbs=None, reads_c=False):
    """gemm_rule: the (tile, split, model us) of least predicted time over the table's tiles and the
    split steps, as src/plan/gemm_rule.cpp walks them (ties keep the first)."""
    table = COMMITTED_TABLE if table is None else table
    l2_gbs = COMMITTED_L2_GBS if l2_gbs is None else l2_gbs
    best = None
    for tile, e in table.items():
        for s in split_candidates(SLAB_K[tile], m, n, k):
            us = predicted_us(tile, e, s, m, n, k, l2_gbs, reads_c)
            if best is None or us < best[2]:
                best = (tile, s, us)
    return best


def split_candidates(slab_k, m, n, k):
    """The splits gemm_rule times for a tile of slab depth slab_k: each step of SPLIT_STEPS as the
    launch runs it (whole slabs), stopping where a split keeps too few slabs or its partials pass the
    workspace cap."""
    slabs = cdiv(k, slab_k)
    for split in SPLIT_STEPS:
        if split > 1 and (slabs // split < MIN_SPLIT_SLABS or 8.0 * m * n * split > MAX_WORKSPACE_BYTES):
            return
        yield cdiv(slabs, cdiv(slabs, max(1, min(split, slabs))))


def load(paths):
    shapes = []
    for p in paths:
        with (gzip.open(p, "rt") if p.endswith(".gz") else open(p)) as f:
            shapes += json.load(f)["shapes"]
    return shapes


def evaluate(table, l2, shapes, lam=0.05):
    regret, err, n_err, rows = 0.0, 0.0, 0, []
    for s in shapes:
        vs = [v for v in s["variants"] if v["tile"] in table]
        if not vs:
            continue
        preds = [predicted_us(v["tile"], table[v["tile"]], v["split_k"], s["m"], s["n"], s["k"], l2) for v in vs]
        pick = min(range(len(vs)), key=lambda i: preds[i])
        best = min(v["us"] for v in vs)
        r = math.log(vs[pick]["us"] / best)
        regret += r
        for v, p in zip(vs, preds):
            err += math.log(p / v["us"]) ** 2
            n_err += 1
        rows.append((s["shape"], vs[pick]["tile"], vs[pick]["split_k"], preds[pick], vs[pick]["us"], best,
                     s["cublas_us"]))
    return regret / len(rows) + lam * err / n_err, regret / len(rows), math.sqrt(err / n_err), rows


def own_us(shape):
    """spx's own version-3 time at the rule's pick: own_us where the run timed it beside Auto (which may
    run cuBLAS), else spx_us (files from before Auto had cuBLAS as a candidate)."""
    return shape.get("own_us", shape["spx_us"])


def geomean(values):
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def summary(table, l2, shapes):
    """The table's picks scored on measured variants: {"regret", "picks_vs_cublas", "oracle_vs_cublas",
    "auto_vs_cublas", "auto_over_variant", "shapes"}. auto_over_variant is the geomean of Auto's time
    over the same (tile, split) timed as a variant: 1 when the harness times one kernel alike both ways."""
    _, regret, _, rows = evaluate(table, l2, shapes, lam=0.0)
    by_shape = {s["shape"]: s for s in shapes}
    same = []
    for s in shapes:
        v = [x["us"] for x in s.get("variants", []) if x["tile"] == s["tile"] and x["split_k"] == s["split_k"]]
        if v:
            same.append(own_us(s) / v[0])
    return {
        "shapes": len(rows),
        "regret": math.exp(regret),
        "picks_vs_cublas": geomean(r[6] / r[4] for r in rows),
        "oracle_vs_cublas": geomean(r[6] / r[5] for r in rows),
        "auto_vs_cublas": geomean(by_shape[r[0]]["cublas_us"] / own_us(by_shape[r[0]]) for r in rows),
        "auto_over_variant": geomean(same),
    }


def print_summary(label, sm):
    print(f"{label}: {sm['shapes']} shapes, regret {sm['regret']:.4f}; speed over cuBLAS: picks (variant times) "
          f"{sm['picks_vs_cublas']:.3f}, best variant {sm['oracle_vs_cublas']:.3f}, Auto as timed "
          f"{sm['auto_vs_cublas']:.3f}; Auto / same variant {sm['auto_over_variant']:.3f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--tiles", default="128x128,128x64,64x64,64x32,32x64,32x32")
    ap.add_argument("--start", help="JSON {tile: [bm, bn, blocks_per_sm, tf, af, so, se]} to start from")
    ap.add_argument("--l2", type=float, default=COMMITTED_L2_GBS)
    ap.add_argument("--validate", nargs="+", default=[], help="variants JSON nothing is fitted on, scored only")
    args = ap.parse_args()
    shapes = load(args.files)
    start = {**COMMITTED_TABLE, **DROPPED_TILES}
    if args.start:
        start.update(json.load(open(args.start)))
    table = {t: list(start[t]) for t in args.tiles.split(",")}
    l2 = args.l2
    best, *_ = evaluate(table, l2, shapes)
    steps = [0.2, 0.1, 0.05, 0.02, 0.01]
    for step in steps:
        improved = True
        while improved:
            improved = False
            for t, e in table.items():
                for i in (3, 4, 5, 6):
                    for d in (-step, step):
                        old = e[i]
                        e[i] = min(1.0, max(0.05, round(old + d, 3)))
                        if i == 5:
                            e[i] = min(0.95, max(0.0, e[i]))
                        score, *_ = evaluate(table, l2, shapes)
                        if score < best - 1e-9:
                            best, improved = score, True
                        else:
                            e[i] = old
            for d in (-200 * step * 5, 200 * step * 5):
                score, *_ = evaluate(table, l2 + d, shapes)
                if score < best - 1e-9:
                    best, l2, improved = score, l2 + d, True
    score, regret, rms, rows = evaluate(table, l2, shapes)
    for r in rows:
        print(f"{r[0]:22s} pick {r[1]:8s}/{r[2]:4d} model {r[3]:9.1f} us, measured {r[4]:9.1f}, best {r[5]:9.1f} "
              f"({r[4] / r[5]:.3f}), cuBLAS {r[6]:9.1f}")
    print(f"regret geomean {math.exp(regret):.4f}, model log-error rms {rms:.3f}, l2_gbs {l2:.0f}")
    names = {"128x128": "T128x128", "128x64": "T128x64", "64x64": "T64x64", "128x64w4": "T128x64w4",
             "64x128": "T64x128", "64x32": "T64x32", "32x64": "T32x64", "32x32": "T32x32"}
    for t, e in table.items():
        print(f"  {{GemmTile::{names[t]}, {e[0]}, {e[1]}, {e[2]}, {e[3]:.3g}, {e[4]:.3g}, {e[5]:.3g}, {e[6]:.3g}}},")
    committed = {t: COMMITTED_TABLE[t] for t in table if t in COMMITTED_TABLE}
    for label, files in [("fit", args.files), ("validation", args.validate)]:
        if not files:
            continue
        data = shapes if label == "fit" else load(files)
        print_summary(f"{label}, committed table", summary(committed, COMMITTED_L2_GBS, data))
        print_summary(f"{label}, fitted table", summary(table, l2, data))


if __name__ == "__main__":
    main()
