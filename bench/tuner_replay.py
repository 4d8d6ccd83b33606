#!/usr/bin/env python3
"""Replays csr_param's run-time tuner on recorded exhaustive grids (`spx tune --json`).

Each grid was recorded twice (two runs of the same matrices); the tuner decides on one run's times
and is scored on the other's (the chosen configuration's time against that run's best), so a
decision that won on noise is not counted as a win. Printed: the rule alone, the ladders alone, the
shipped tuner (its openers, configurations tried right after the start, then the ladders), and
openers fitted leaving each matrix out in turn (--per-matrix: the shipped tuner per matrix;
--loo-policies N: the knob order and up to N openers fitted leaving each matrix out, the procedure
that chose the shipped ones). A single run passed twice scores each decision on its own run.

usage: bench/tuner_replay.py RUN_A.json.gz RUN_B.json.gz [--calls 8] [--per-matrix] [--loo-policies N]
"""
import argparse
import gzip
import itertools
import json
import math

KNOBS = ("block_size", "coop", "repeat")  # a configuration's tuple order
# src/plan/tuner.cpp, Ladder::CsrParam: each knob's values and the direction tried first, in the
# order the tuner climbs them.
LADDERS = {"block_size": ([64, 128, 256, 512, 1024], -1), "coop": ([1, 2, 4, 8, 16, 32], -1),
           "repeat": ([2 ** i for i in range(11)], +1)}
ORDER = ("block_size", "coop", "repeat")
# tuning_openers(Ladder::CsrParam): (block size, coop factor, repeat), tried right after the start.
OPENERS = ((128, 0.5, 1), (256, 2.0, 1))
# --loo-policies: the openers it may choose from (repeat 1; the coop a factor of the rule's).
OPENER_CHOICES = [(b, f, 1) for b in (128, 256, 512) for f in (0.25, 0.5, 1.0, 2.0, 4.0)]
MIN_GAIN, MIN_GAIN_MS = 0.02, 0.4e-3


def load(path):
    with gzip.open(path) as f:
        return json.load(f)


def grid(m):
    return {tuple(c[k] for k in KNOBS): c["ms"] for c in m["configs"]}


def kept(t, best_t):
    return t < best_t * (1 - MIN_GAIN) and t < best_t - MIN_GAIN_MS


def snap(values, want):
    return min(values, key=lambda v: abs(math.log(v / want)))


def resolve(start, opener):
    """An opener (block, coop factor, repeat) against the start, the coop snapped to its ladder."""
    block, factor, repeat = opener
    return (block, snap(LADDERS["coop"][0], start[1] * factor), repeat)


def step(values, cur, d):
    """Tuner::step: the next rung in direction d (from off the ladder, the nearest rung that way)."""
    if cur in values:
        j = values.index(cur) + d
        return values[j] if 0 <= j < len(values) else None
    way = [v for v in values if (v > cur if d > 0 else v < cur)]
    return (way[0] if d > 0 else way[-1]) if way else None


def tune(times, start, openers, calls, order=None):
    order = order or [(k, LADDERS[k][1]) for k in ORDER]
    best, best_t, n = start, times.get(start, math.inf), 1
    seen = [start]
    for o in openers:
        c = resolve(start, o)
        if c in seen or n >= calls:
            continue
        seen.append(c)
        n += 1
        t = times.get(c, math.inf)
        if kept(t, best_t):
            best, best_t = c, t
    for k, first in order:
        i, values = KNOBS.index(k), LADDERS[k][0]
        for d in (first, -first):
            moved = False
            while n < calls:
                v = step(values, best[i], d)
                if v is None:
                    break
                c = best[:i] + (v,) + best[i + 1:]
                n += 1
                t = times.get(c, math.inf)
                if not kept(t, best_t):
                    break
                best, best_t, moved = c, t, True
            if moved or n >= calls:
                break
    return best


def score(times, c):
    return min(times.values()) / times.get(c, math.inf)


def geomean(xs):
    return math.exp(sum(math.log(max(x, 1e-9)) for x in xs) / len(xs))


def fit_openers(problems, key, size):
    """Greedy set cover: the openers that most raise the geomean of the best of start + openers."""
    cands = {(c[0], c[1] / p["rule"][1], c[2]) for p in problems for c in p[key]}
    have = {id(p): score(p[key], p["rule"]) for p in problems}
    chosen = []
    for _ in range(size):
        best = max(cands, key=lambda o: sum(math.log(max(have[id(p)], score(p[key], resolve(p["rule"], o))))
                                            for p in problems))
        chosen.append(best)
        for p in problems:
            have[id(p)] = max(have[id(p)], score(p[key], resolve(p["rule"], best)))
    return chosen


def loo_policies(problems, names, calls, max_openers):
    """Every knob order and first directions with every set of up to max_openers openers: for each
    matrix left out, the policy with the best geomean on the others (both runs deciding in turn),
    scored on the left-out matrix. Ties go to fewer openers, then to the order enumerated here."""
    orders = [tuple(zip(perm, dirs)) for perm in itertools.permutations(KNOBS)
              for dirs in itertools.product((-1, +1), repeat=len(KNOBS))]
    sets = [s for n in range(max_openers + 1) for s in itertools.combinations(OPENER_CHOICES, n)]
    logs = {}  # (policy, deciding run) -> log score per problem
    for order in orders:
        for ops in sets:
            for dec, ev in (("A", "B"), ("B", "A")):
                logs[(order, ops), dec] = [math.log(max(score(p[ev], tune(p[dec], p["rule"], ops, calls, order)), 1e-9))
                                           for p in problems]
    policies = [(o, s) for o in orders for s in sets]
    out, picks = {"A": [], "B": []}, []
    for name in names:
        train = [i for i, p in enumerate(problems) if p["name"] != name]
        test = [i for i, p in enumerate(problems) if p["name"] == name]
        pick = max(policies, key=lambda q: (round(sum(logs[q, d][i] for d in "AB" for i in train), 9),
                                            -len(q[1])))
        picks.append(pick)
        for d in "AB":
            out[d] += [math.exp(logs[pick, d][i]) for i in test]
    top = max(set(picks), key=picks.count)
    print(f"policies fitted leaving each matrix out ({len(policies)} candidates): decided on A, scored on B "
          f"{geomean(out['A']):.3f} ({min(out['A']):.2f}); decided on B, scored on A {geomean(out['B']):.3f} "
          f"({min(out['B']):.2f}); chosen in {picks.count(top)} of {len(picks)} folds: order {top[0]}, openers {top[1]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_a")
    ap.add_argument("run_b")
    ap.add_argument("--calls", type=int, default=8)
    ap.add_argument("--openers", type=int, default=2)
    ap.add_argument("--per-matrix", action="store_true")
    ap.add_argument("--loo-policies", type=int, metavar="N", help="also fit the knob order and up to N "
                    "openers leaving each matrix out (a minute or two for N = 2)")
    a = ap.parse_args()
    problems = []
    for x, y in zip(load(a.run_a)["matrices"], load(a.run_b)["matrices"]):
        assert (x["name"], x["precision"]) == (y["name"], y["precision"])
        r = x["rule"]["params"]
        problems.append({"name": x["name"], "prec": x["precision"], "A": grid(x), "B": grid(y),
                         "rule": tuple(r[k] for k in KNOBS)})
    names = sorted({p["name"] for p in problems})
    print(f"{len(problems)} problems, {a.calls} calls; fractions of the other run's grid optimum (geomean, worst)")
    for dec, ev in (("A", "B"), ("B", "A")):
        rule = [score(p[ev], p["rule"]) for p in problems]
        ladders = [score(p[ev], tune(p[dec], p["rule"], [], a.calls)) for p in problems]
        shipped = [score(p[ev], tune(p[dec], p["rule"], OPENERS, a.calls)) for p in problems]
        loo, fits = [], []
        for name in names:
            train = [p for p in problems if p["name"] != name]
            openers = fit_openers(train, dec, a.openers)
            fits.append(tuple(openers))
            loo += [score(p[ev], tune(p[dec], p["rule"], openers, a.calls)) for p in problems if p["name"] == name]
        print(f"decided on {dec}, scored on {ev}: rule {geomean(rule):.3f} ({min(rule):.2f}), ladders "
              f"{geomean(ladders):.3f} ({min(ladders):.2f}), shipped openers + ladders {geomean(shipped):.3f} "
              f"({min(shipped):.2f}), openers (left-out fit) + ladders {geomean(loo):.3f} "
              f"({min(loo):.2f}); openers fitted: {sorted(set(fits), key=fits.count, reverse=True)[0]} "
              f"in {max(fits.count(f) for f in fits)} of {len(fits)} folds")
        if a.per_matrix:
            for p, x in zip(problems, shipped):
                print(f"  {p['name']:<28} {p['prec']}  {x:.3f}")
    if a.loo_policies is not None:
        loo_policies(problems, names, a.calls, a.loo_policies)


if __name__ == "__main__":
    main()
