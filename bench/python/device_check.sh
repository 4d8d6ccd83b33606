#!/usr/bin/env bash
# One GPU session closing issue 23 (the Python package), within one time limit: build the extension
# and the GPU gtests in build-gpu (CMake, no pip), then by priority the pytest suite (the CuPy and
# spx.cg GPU tests), the overhead benchmark (before/after the C++ fast path in the same run), the
# front door's and the Context's gtests, bench_cg.py, compute-sanitizer memcheck on the reuse and
# tuning-cache gtests, and the spx-against-cupyx comparison with what time is left. Every step has
# its own timeout under a deadline ($SPX_DEADLINE_S seconds from the start, default 530); the logs
# are tarred into $OUT/logs.tar.gz after each step, so a run cut short keeps what it did.
#
#   OUT=out SPX_SHARED_MATRICES=$PWD/.shared/matrices bench/python/device_check.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=${OUT:-out}
mkdir -p "$out"
logs=/tmp/spx-device-logs
rm -rf "$logs" && mkdir -p "$logs"
start=$(date +%s)
deadline=$((start + ${SPX_DEADLINE_S:-530}))
export SPX_SHARED_MATRICES=${SPX_SHARED_MATRICES:-$PWD/.shared/matrices}
py=$(command -v python3)

log() { echo "== +$(($(date +%s) - start))s $*" | tee -a "$logs/steps.log"; }
pack() { tar czf "$out/logs.tar.gz" -C "$logs" . 2>/dev/null; }
# left CAP: seconds for a step, at most CAP, never past the deadline (0: no time left).
left() {
  local l=$((deadline - $(date +%s)))
  ((l > $1)) && l=$1
  ((l < 0)) && l=0
  echo "$l"
}
# step NAME CAP COMMAND...: runs COMMAND with its output in $logs/NAME.log under a timeout.
step() {
  local name=$1 cap=$2
  shift 2
  local t
  t=$(left "$cap")
  if ((t < 5)); then
    log "$name: skipped (no time left)"
    return
  fi
  log "$name (timeout ${t}s)"
  local t0
  t0=$(date +%s)
  timeout "$t" "$@" > "$logs/$name.log" 2>&1
  local rc=$?
  log "$name rc=$rc seconds=$(($(date +%s) - t0))"
  tail -4 "$logs/$name.log" | sed 's/^/    /' | tee -a "$logs/steps.log"
  pack
}

{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  nvcc --version | tail -2
  "$py" -c 'import sys, numpy, scipy, cupy; print("python", sys.version.split()[0], "numpy", numpy.__version__, "scipy", scipy.__version__, "cupy", cupy.__version__)'
  "$py" -c 'import nanobind; print("nanobind", nanobind.__version__)'
  compute-sanitizer --version | head -2
  nproc
} > "$logs/machine.txt" 2>&1
# The commit: from .commit where the tree was copied without its .git (git would find an enclosing
# checkout's HEAD instead), else from git.
cp .commit "$logs/commit.txt" 2>/dev/null || git log -1 --format='%H %s' > "$logs/commit.txt" 2>&1 || true

step configure 120 cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPX_CUDA=ON -DSPX_PYTHON=ON \
  -DSPX_TOOLS=OFF -DPython_EXECUTABLE="$py"
step build 330 cmake --build build-gpu -j16 --target _spx spx_tests_gpu
export PYTHONPATH=$PWD/build-gpu/python
step pytest 150 "$py" -m pytest tests/python -q -rs -p no:cacheprovider
step overhead 60 "$py" bench/python/bench_python.py --out "$logs/python_overhead.json" --overhead-only
step gtest_front_door 150 build-gpu/tests/spx_tests_gpu --gtest_filter='FrontDoor*:GpuContext*'
step bench_cg 110 "$py" bench/python/bench_cg.py "$logs/bench_cg.json"
step memcheck 150 compute-sanitizer --tool memcheck --error-exitcode 99 build-gpu/tests/spx_tests_gpu \
  --gtest_filter='FrontDoor*Reuse*:FrontDoor*Cache*'
budget=$(($(left 120) - 25))
if ((budget > 15)); then
  step compare $((budget + 20)) "$py" bench/python/bench_python.py --out "$logs/python_compare.json" \
    --shared "$SPX_SHARED_MATRICES" --budget-s "$budget"
fi
log "done"
pack
