#!/usr/bin/env bash
# `spx cg --dist --backend cuda` and `spx bench --dist --backend cuda` under mpirun with 1, 2 and 4
# ranks on whatever GPUs exist (ranks share them when fewer), the kernel pinned to csr_vector (its
# row sums depend on the row alone): the host-vector driver's CG histories (--halo mpi, or ranks
# sharing a GPU) the same bits for every rank count and transport; the team's (a GPU per rank)
# the same bits as `spx cg --gpus N`; SpMV within rounding of the CPU; NCCL refused with one line
# when ranks share a GPU.
# Without a GPU: the one-line refusal is checked, then the test reports itself skipped. MODE
# refusal (the CPU suite's): only that check, skipped where a GPU is present.
# Usage: cli_dist_gpu.sh SPX MPIEXEC WORKDIR [full|refusal]
set -euo pipefail
spx=$1 mpiexec=$2 work=$3 mode=${4:-full}
mkdir -p "$work"
run() { OMP_NUM_THREADS=1 "$mpiexec" --allow-run-as-root --oversubscribe -n "$@"; }
if ! run 1 "$spx" bench stencil2d:n=8 --dist --backend cuda --min-time 0 >/dev/null 2>"$work/probe.err"; then
  # No GPU: 2 ranks refuse with exactly one line, and the job ends with status 1.
  status=0
  run 2 "$spx" cg stencil2d:n=8 --dist --backend cuda >/dev/null 2>"$work/refuse.err" || status=$?
  lines=$(grep -c "GPU ranks need a GPU" "$work/refuse.err" || true)
  if [[ $status -ne 1 || $lines -ne 1 ]]; then
    echo "expected status 1 and one refusal line, got $status and:"; cat "$work/refuse.err"; exit 1
  fi
  if [[ $mode == refusal ]]; then echo "refused with one line: $(cat "$work/refuse.err")"; exit 0; fi
  echo "skipped: no GPU ($(head -1 "$work/probe.err"))"
  exit 0
fi
if [[ $mode == refusal ]]; then echo "skipped: a GPU is present (MpiGpuCliDist runs the GPU checks)"; exit 0; fi
gpus=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU" || true)
cg_args=(fem2d:n=24,p=2 --operator csr_vector --precond jacobi --precision f32,f64 --tol 1e-5 --history)
for n in 1 2 4; do
  for halo in auto mpi; do
    run "$n" "$spx" cg "${cg_args[@]}" --dist --backend cuda --halo "$halo" --json "$work/cg$n$halo.json" >/dev/null
  done
  if ((n <= gpus)); then "$spx" cg "${cg_args[@]}" --gpus "$n" --json "$work/single$n.json" >/dev/null; fi
  run "$n" "$spx" bench powerlaw:n=3000 --dist --backend cuda --min-time 0 --precision f32,f64 \
    --json "$work/bench$n.json" >/dev/null
done
# NCCL forced on ranks sharing a GPU (4 ranks on fewer GPUs): one line, status 1.
status=0
run 4 "$spx" bench stencil2d:n=16 --dist --backend cuda --halo nccl --min-time 0 >/dev/null 2>"$work/nccl.err" \
  || status=$?
python3 - "$work" "$status" <<'PY'
import json, sys
w, nccl_status = sys.argv[1], int(sys.argv[2])
def load(name): return json.load(open(f"{w}/{name}"))
keys = ("status", "iterations", "residual", "history")
want = [{k: r[k] for k in keys} for r in load("cg1mpi.json")["runs"]]
assert all(r["status"] == "converged" for r in want), want
transports, teams = {}, []
for n in (1, 2, 4):
    for halo in ("auto", "mpi"):
        j = load(f"cg{n}{halo}.json")
        assert all(r["backend"] == "cuda" and "csr_vector" in r["rank0"] for r in j["runs"]), j["runs"][0]
        transports[(n, halo)] = j["runs"][0]["halo_transport"]
        if j["runs"][0]["driver"] == "team":  # a GPU per rank: the bits of one process driving n GPUs
            single = [r for r in load(f"single{n}.json")["runs"] if r["solver"] == "dist-one"]
            pick = ("status", "iterations", "relative_residual", "history")
            assert [{k: r[k] for k in pick} for r in j["runs"]] == [{k: r[k] for k in pick} for r in single], \
                f"{n} ranks as a team: not the iterates of spx cg --gpus {n}"
            teams.append(n)
            continue
        got = [{k: r[k] for k in keys} for r in j["runs"]]
        assert got == want, f"{n} ranks, halo {halo}: histories differ from 1 rank"
    for r in load(f"bench{n}.json")["runs"]:
        assert r["check"] == "within rounding of the CPU product", (n, r["check"])
err = open(f"{w}/nccl.err").read()
if transports[(4, "auto")] == "mpi":  # ranks share a GPU: NCCL must have been refused
    assert nccl_status == 1 and err.count("NCCL needs a GPU per rank") == 1, (nccl_status, err)
else:
    assert nccl_status == 0, err
print("GPU ranks: host-vector cg histories identical for 1, 2, 4 ranks and both transports "
      f"(auto chose {transports}); team runs bitwise spx cg --gpus for {teams} ranks; "
      "SpMV within rounding of the CPU")
PY
