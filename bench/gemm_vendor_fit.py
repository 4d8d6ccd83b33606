#!/usr/bin/env python3
"""Fit the DGEMM plan rule's model of cuBLAS (GemmRuleTable::vendor_tiles and vendor_margin in
src/plan/rule_tables.cpp), so that `Auto` runs cuBLAS's DGEMM where the models say spx's own kernel
would be slower.

cuBLAS is modelled as the best of a few tile shapes (the ones its H100 kernels use most: 128 x 64 x 16,
64 x 64 x 16 and 32 x 32 x 32, with split-k; bench/results/h100/gemm/NOTES.md "What cuBLAS runs") under
the same model as spx's tiles (gemm_predicted_us, ported in gemm_fit.py), each with its own fitted
fractions. Auto picks cuBLAS where the vendor model's time is below spx's predicted time times
(1 + vendor_margin).

Input: spx_gemm_grid JSON files (fit set), each shape's cuBLAS time and spx Auto time with the rule's
pick (tile, split). Shapes measured in several files are averaged (geometric mean of the medians).
The fit (coordinate search) maximises the speed over cuBLAS that Auto would reach with those picks,
counting a shape handed to cuBLAS as 1.0, plus a small weight on the vendor model's log error (so its
predictions stay times). --validate scores the fitted model on files nothing was fitted on.

    bench/gemm_vendor_fit.py grid-a.json.gz grid-b.json.gz --validate val-a.json.gz val-b.json.gz
    bench/gemm_vendor_fit.py --unaligned odd-grid.json.gz --validate odd-validation.json.gz
    bench/gemm_vendor_fit.py --small grid.json.gz odd-grid.json.gz --validate validation.json.gz odd-val.json.gz

--unaligned fits GemmRuleTable::vendor_unaligned_tensor and vendor_unaligned_store (cuBLAS's tiles'
tensor fraction and store efficiency on operands with an odd leading dimension, where it runs its
unaligned kernels) on spx_gemm_grid runs of odd-extent shapes, the tiles held at the committed model.
--small chooses unaligned_small_us and unaligned_small_margin (spx's small tiles on unaligned operands).
"""
import argparse
import math

import gemm_fit

# The committed vendor model (src/plan/rule_tables.cpp): tile -> [bm, bn, bk, blocks_per_sm, tensor
# fraction, alone fraction, store overlap, store efficiency]; the fit's default start.
COMMITTED_VENDOR = {
    "128x64": [128, 64, 16, 2, 0.81, 0.5, 0.44, 0.87], "64x64": [64, 64, 16, 3, 0.9, 0.86, 0.95, 0.29],
    "32x32": [32, 32, 32, 4, 0.6, 0.2, 0.49, 0.76]}
# Starting guesses of tiles not in the committed model (cuBLAS also runs 32 x 64 x 32; fitting it
# changed no pick on the grid).
OTHER_VENDOR = {"32x64": [32, 64, 32, 3, 0.65, 0.8, 0.3, 0.9]}
COMMITTED_MARGIN = 0.0
# GemmRuleTable::vendor_unaligned_tensor, vendor_unaligned_store: cuBLAS on odd leading dimensions.
COMMITTED_UNALIGNED = (0.8, 0.88)
# GemmRuleTable::unaligned_small_us, unaligned_small_margin: spx's small tiles on odd leading dimensions.
COMMITTED_SMALL = (45.0, 0.5)


def runs_spx(spx_pred, vendor_pred, aligned, margin=COMMITTED_MARGIN, small=COMMITTED_SMALL):
    """gemm_plan's pick: cuBLAS runs where the vendor model's time is below spx's x (1 + margin), the
    margin raised by small[1] for unaligned operands where spx's time is under small[0] us."""
    if not aligned and spx_pred < small[0]:
        margin += small[1]
    return not vendor_pred < spx_pred * (1.0 + margin)


def vendor_us(table, m, n, k, l2_gbs=gemm_fit.COMMITTED_L2_GBS, unaligned=None):
    """The vendor model's time: the best of its tiles over the rule's split steps (gemm_rule's walk).
    unaligned: None for aligned operands, else (tensor, store) multipliers (gemm_vendor_us)."""
    best = math.inf
    for name, e in table.items():
        bk = e[2]
        entry = [e[0], e[1]] + e[3:]
        if unaligned is not None:
            entry[3] *= unaligned[0]
            entry[6] *= unaligned[1]
        for s in gemm_fit.split_candidates(bk, m, n, k):
            best = min(best, gemm_fit.predicted_us(name, entry, s, m, n, k, l2_gbs, slab_k=bk))
    return best


def merge(paths):
    """{shape: {m, n, k, tile, split_k, cublas_us, spx_us}}: geometric means over the files; spx_us is
    spx's own version 3 at the rule's pick (gemm_fit.own_us). Transposed shapes are scored like NN ones
    (the model has no term for the operations)."""
    by = {}
    for s in gemm_fit.load(paths):
        d = by.setdefault(s["shape"], {"m": s["m"], "n": s["n"], "k": s["k"], "tile": s["tile"],
                                       "split_k": s["split_k"], "cub": [], "spx": []})
        d["cub"].append(s["cublas_us"])
        d["spx"].append(gemm_fit.own_us(s))
    for d in by.values():
        d["cublas_us"] = gemm_fit.geomean(d.pop("cub"))
        d["spx_us"] = gemm_fit.geomean(d.pop("spx"))
    return by


def score(table, margin, shapes, lam=0.02):
    """(objective, Auto's speed over cuBLAS in geomean, worst shape, shapes handed to cuBLAS, vendor
    model's log-error rms, rows)."""
    logs, err, rows = [], [], []
    for name, d in shapes.items():
        spx_pred = gemm_fit.rule(d["m"], d["n"], d["k"])[2]
        ven_pred = vendor_us(table, d["m"], d["n"], d["k"])
        vendor = not runs_spx(spx_pred, ven_pred, True, margin)
        speed = 1.0 if vendor else d["cublas_us"] / d["spx_us"]
        logs.append(math.log(speed))
        err.append(math.log(ven_pred / d["cublas_us"]) ** 2)
        rows.append((name, spx_pred, ven_pred, d["spx_us"], d["cublas_us"], vendor, speed))
    mean = sum(logs) / len(logs)
    rms = math.sqrt(sum(err) / len(err))
    return (-mean + lam * rms, math.exp(mean), math.exp(min(logs)), sum(r[5] for r in rows), rms, rows)


def operands_aligned(s):
    """spx_gemm_grid's layout: lda, ldb, ldc are the stored rows (cudaMalloc'd pointers are aligned)."""
    lda = s["k"] if s.get("op_a", "N") == "T" else s["m"]
    ldb = s["n"] if s.get("op_b", "N") == "T" else s["k"]
    return lda % 2 == 0 and ldb % 2 == 0 and s["m"] % 2 == 0


def score_unaligned(mult, shapes, lam=0.02, small=(0.0, 0.0)):
    """(objective, speed, worst, rms) of Auto's pick on unaligned shapes with the vendor multipliers:
    spx's time is its rule's pick (measured as own_us), cuBLAS's the vendor model with `mult`."""
    logs, err = [], []
    for s in shapes:
        spx_pred = gemm_fit.rule(s["m"], s["n"], s["k"])[2]
        aligned = operands_aligned(s)
        ven = vendor_us(COMMITTED_VENDOR, s["m"], s["n"], s["k"], unaligned=None if aligned else mult)
        speed = s["cublas_us"] / gemm_fit.own_us(s) if runs_spx(spx_pred, ven, aligned, small=small) else 1.0
        logs.append(math.log(speed))
        err.append(math.log(ven / s["cublas_us"]) ** 2)
    mean, rms = sum(logs) / len(logs), math.sqrt(sum(err) / len(err))
    return -mean + lam * rms, math.exp(mean), math.exp(min(logs)), rms


def fit_unaligned(files, validate):
    """--unaligned: the two vendor multipliers fitted on odd-extent runs (coordinate search from 1, 1)."""
    shapes, mult = gemm_fit.load(files), [1.0, 1.0]
    best = score_unaligned(mult, shapes)[0]
    for step in (0.2, 0.1, 0.05, 0.02, 0.01):
        improved = True
        while improved:
            improved = False
            for i in (0, 1):
                for d in (-step, step):
                    trial = list(mult)
                    trial[i] = round(min(1.5, max(0.1, trial[i] + d)), 3)
                    sc = score_unaligned(trial, shapes)[0]
                    if sc < best - 1e-9:
                        best, mult, improved = sc, trial, True
    for label, data in [("fit", shapes)] + ([("validation", gemm_fit.load(validate))] if validate else []):
        for tlabel, m in (("none", (1.0, 1.0)), ("committed", COMMITTED_UNALIGNED), ("fitted", tuple(mult))):
            _, speed, worst, rms = score_unaligned(m, data)
            print(f"{label}, {tlabel} {m}: {len(data)} shapes, Auto {speed:.3f}x cuBLAS (worst {worst:.3f}), "
                  f"vendor model log-error rms {rms:.3f}")
    print(f"vendor_unaligned_tensor = {mult[0]}, vendor_unaligned_store = {mult[1]}")


def fit_small(files, validate):
    """--small: unaligned_small_us and unaligned_small_margin, the least pair (threshold first) that
    leaves no fit shape below 0.85x cuBLAS, the pick otherwise as committed (files: the grid and the
    odd grid; several runs may be given)."""
    shapes = gemm_fit.load(files)
    chosen = None
    for us in (0.0, 20.0, 30.0, 45.0, 60.0, 100.0):
        for margin in (0.1, 0.2, 0.3, 0.5, 1.0):
            _, speed, worst, _ = score_unaligned(COMMITTED_UNALIGNED, shapes, small=(us, margin))
            print(f"  small_us {us:5.0f}, margin {margin:.1f}: fit {speed:.4f}x, worst {worst:.3f}")
            if chosen is None and worst >= 0.85:
                chosen = (us, margin)
    if chosen is None:
        print("no pair leaves every fit shape at 0.85x or above")
        return
    for label, data in [("fit", shapes)] + ([("validation", gemm_fit.load(validate))] if validate else []):
        for tlabel, sm in (("none", (0.0, 0.0)), ("chosen", chosen)):
            _, speed, worst, _ = score_unaligned(COMMITTED_UNALIGNED, data, small=sm)
            print(f"{label}, {tlabel} {sm}: {len(data)} shapes, Auto {speed:.4f}x cuBLAS (worst {worst:.3f})")
    print(f"unaligned_small_us = {chosen[0]}, unaligned_small_margin = {chosen[1]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--validate", nargs="+", default=[])
    ap.add_argument("--tiles", default=",".join(COMMITTED_VENDOR), help="the vendor tiles to fit")
    ap.add_argument("--unaligned", action="store_true",
                    help="fit the unaligned multipliers on odd-extent files instead (the tiles stay)")
    ap.add_argument("--small", action="store_true",
                    help="choose unaligned_small_us and unaligned_small_margin on grid + odd-grid files")
    args = ap.parse_args()
    if args.unaligned:
        return fit_unaligned(args.files, args.validate)
    if args.small:
        return fit_small(args.files, args.validate)
    shapes = merge(args.files)
    start = {**COMMITTED_VENDOR, **OTHER_VENDOR}
    table = {t: list(start[t]) for t in args.tiles.split(",")}
    margin = COMMITTED_MARGIN
    best = score(table, margin, shapes)[0]
    for step in (0.2, 0.1, 0.05, 0.02, 0.01):
        improved = True
        while improved:
            improved = False
            for e in table.values():
                for i in (4, 5, 6, 7):
                    for d in (-step, step):
                        old = e[i]
                        e[i] = min(0.95 if i == 6 else 1.0, max(0.0 if i == 6 else 0.05, round(old + d, 3)))
                        s = score(table, margin, shapes)[0]
                        if s < best - 1e-9:
                            best, improved = s, True
                        else:
                            e[i] = old
            for d in (-step / 2, step / 2):
                s = score(table, round(margin + d, 3), shapes)[0]
                if s < best - 1e-9:
                    best, margin, improved = s, round(margin + d, 3), True
    for label, data in [("fit", shapes)] + ([("validation", merge(args.validate))] if args.validate else []):
        for tlabel, t, mg in (("committed", COMMITTED_VENDOR, COMMITTED_MARGIN), ("fitted", table, margin)):
            _, speed, worst, handed, rms, rows = score(t, mg, data)
            print(f"{label}, {tlabel} model: {len(rows)} shapes, Auto {speed:.3f}x cuBLAS (worst {worst:.3f}), "
                  f"{handed} handed to cuBLAS, vendor model log-error rms {rms:.3f}")
        for r in score(table, margin, data)[5]:
            print(f"  {r[0]:22s} spx model {r[1]:9.1f} vendor model {r[2]:9.1f} | measured spx {r[3]:9.1f} "
                  f"cuBLAS {r[4]:9.1f} -> {'cuBLAS' if r[5] else 'spx   '} {r[6]:.3f}")
    print(f"vendor_margin = {margin}")
    for t, e in table.items():
        print(f"  {{GemmTile::Auto, {e[0]}, {e[1]}, {e[3]}, {e[4]:.3g}, {e[5]:.3g}, {e[6]:.3g}, {e[7]:.3g}, {e[2]}}},")


if __name__ == "__main__":
    main()
