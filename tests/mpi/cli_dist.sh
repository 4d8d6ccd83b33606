#!/usr/bin/env bash
# `spx cg --dist` and `spx bench --dist` under mpirun with 1, 2 and 4 ranks: the CG residual
# histories are the same bits for every rank count (the JSON prints doubles exactly), and every
# SpMV check says bitwise. Usage: cli_dist.sh SPX MPIEXEC WORKDIR
set -euo pipefail
spx=$1 mpiexec=$2 work=$3
mkdir -p "$work"
run() { OMP_NUM_THREADS=1 "$mpiexec" --allow-run-as-root --oversubscribe -n "$@"; }
for n in 1 2 4; do
  run "$n" "$spx" cg fem2d:n=24,p=2 --dist --precond jacobi --precision f32,f64 --tol 1e-5 --history \
    --json "$work/cg$n.json" >/dev/null
  run "$n" "$spx" cg stencil27:n=12 --dist --history --json "$work/st$n.json" >/dev/null
  run "$n" "$spx" bench powerlaw:n=3000 --dist --min-time 0 --json "$work/bench$n.json" >/dev/null
done
# RCM's row blocks of a shuffled mesh (no METIS needed): rank 0 renumbers, products still bitwise.
for n in 2 4; do
  run "$n" "$spx" bench "stencil2d:n=30,shuffle=4" --dist --partition rcm --min-time 0 --json "$work/rcm$n.json" >/dev/null
  run "$n" "$spx" cg "stencil2d:n=30,shuffle=4" --dist --partition rcm --precond jacobi --json "$work/rcmcg$n.json" >/dev/null
done
# --partition auto: the small mesh keeps its rows (its exchange's latency dominates); a 360k-row
# one's CG (up to 10^4 products) renumbers it (rank 0 chooses, every rank follows).
run 2 "$spx" bench "stencil2d:n=30,shuffle=4" --dist --partition auto --min-time 0 --json "$work/auto2.json" >/dev/null 2>&1
run 2 "$spx" cg "stencil2d:n=600,shuffle=4" --dist --partition auto --maxit 10000 --tol 1e-2 --json "$work/autocg2.json" >/dev/null 2>&1
# A warning is printed once for the job, not once per rank.
run 2 "$spx" cg stencil2d:n=8 --dist --no-graph >/dev/null 2>"$work/warn.err"
warnings=$(grep -c "spx: warning: --no-graph" "$work/warn.err" || true)
if [[ $warnings -ne 1 ]]; then echo "expected one warning line from 2 ranks, got:"; cat "$work/warn.err"; exit 1; fi
# METIS parts (when spx has METIS): rank 0 renumbers, every product still checks bitwise.
metis=0
"$spx" dist stencil2d:n=8 --ranks 2 --partition metis >/dev/null 2>&1 && metis=1
if ((metis)); then
  for n in 2 4; do
    run "$n" "$spx" bench powerlaw:n=3000 --dist --partition metis --min-time 0 --json "$work/metis$n.json" >/dev/null
    run "$n" "$spx" cg fem2d:n=24,p=2 --dist --partition metis --precond jacobi --json "$work/metiscg$n.json" >/dev/null
  done
fi
python3 - "$work" "$metis" <<'PY'
import json, sys
w = sys.argv[1]
def load(name): return json.load(open(f"{w}/{name}"))
for stem in ("cg", "st"):
    want = [{k: r[k] for k in ("status", "iterations", "residual", "history")} for r in load(f"{stem}1.json")["runs"]]
    for n in (2, 4):
        got = [{k: r[k] for k in ("status", "iterations", "residual", "history")} for r in load(f"{stem}{n}.json")["runs"]]
        assert got == want, f"{stem}: {n} ranks differ from 1: {got} vs {want}"
        assert load(f"{stem}{n}.json")["ranks"] == n
for n in (1, 2, 4):
    for r in load(f"bench{n}.json")["runs"]:
        assert r["check"] == "bitwise the single-process product", (n, r["check"])
for n in (2, 4):
    (r,) = load(f"rcm{n}.json")["runs"]
    assert r["check"] == "bitwise the single-process product" and r["partition"] == "rcm", r
    (c,) = load(f"rcmcg{n}.json")["runs"]
    assert c["status"] == "converged" and c["true_relative_residual"] < 1e-7, c
(r,) = load("auto2.json")["runs"]
assert r["check"] == "bitwise the single-process product" and r["partition"] == "rows", r
(c,) = load("autocg2.json")["runs"]
assert c["status"] == "converged" and c["partition"] in ("rcm", "metis"), c
if sys.argv[2] == "1":
    for n in (2, 4):
        (r,) = load(f"metis{n}.json")["runs"]
        assert r["check"] == "bitwise the single-process product" and r["partition"] == "metis", r
        (c,) = load(f"metiscg{n}.json")["runs"]
        assert c["status"] == "converged" and c["true_relative_residual"] < 1e-7, c
print("cg histories identical for 1, 2, 4 ranks; SpMV bitwise, RCM blocks too" + (", METIS parts too" if sys.argv[2] == "1" else ""))
PY
