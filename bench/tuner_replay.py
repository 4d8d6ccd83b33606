#!/usr/bin/env python3
"""Replays csr_param's run-time tuner on recorded exhaustive grids (`spx tune --json`).

Each grid was recorded twice (two runs of the same matrices); the tuner decides on one run's times
and is scored on the other's (the chosen configuration's time against that run's best), so a
decision that won on noise is not counted as a win. The openers (configurations tried right after
the start) are fitted leaving each matrix out in turn.

usage: bench/tuner_replay.py RUN_A.json.gz RUN_B.json.gz [--calls 8]
"""
import argparse
import gzip
import json
import math

KNOBS = ("block_size", "coop", "repeat")
# src/plan/tuner.cpp, Ladder::CsrParam: values and the direction tried first.
LADDERS = {"block_size": ([64, 128, 256, 512, 1024], -1), "coop": ([1, 2, 4, 8, 16, 32], -1),
           "repeat": ([2 ** i for i in range(11)], +1)}
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


def tune(times, start, openers, calls):
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
    for i, k in enumerate(KNOBS):
        values, first = LADDERS[k]
        for d in (first, -first):
            moved = False
            while n < calls and best[i] in values:
                j = values.index(best[i]) + d
                if not 0 <= j < len(values):
                    break
                c = best[:i] + (values[j],) + best[i + 1:]
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_a")
    ap.add_argument("run_b")
    ap.add_argument("--calls", type=int, default=8)
    ap.add_argument("--openers", type=int, default=2)
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
        loo, fits = [], []
        for name in names:
            train = [p for p in problems if p["name"] != name]
            openers = fit_openers(train, dec, a.openers)
            fits.append(tuple(openers))
            loo += [score(p[ev], tune(p[dec], p["rule"], openers, a.calls)) for p in problems if p["name"] == name]
        print(f"decided on {dec}, scored on {ev}: rule {geomean(rule):.3f} ({min(rule):.2f}), ladders "
              f"{geomean(ladders):.3f} ({min(ladders):.2f}), openers (left-out fit) + ladders {geomean(loo):.3f} "
              f"({min(loo):.2f}); openers fitted: {sorted(set(fits), key=fits.count, reverse=True)[0]} "
              f"in {max(fits.count(f) for f in fits)} of {len(fits)} folds")


if __name__ == "__main__":
    main()
