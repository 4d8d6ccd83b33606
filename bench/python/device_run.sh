#!/usr/bin/env bash
# One GPU session for the Python package (issue 23): time `pip install .` on this copy of the tree
# (no build folder: a fresh build), run the pytest suite with the cupy tests, the Context stream
# gtests (built standalone against the wheel's libspx.a), and the benchmark. Everything lands in
# $OUT (default ./out). Offline machines: pip runs without build isolation, with the system's
# scikit-build-core, nanobind, numpy, scipy, cupy and pytest through a --system-site-packages venv.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=${OUT:-out}
mkdir -p "$out"
repo=$PWD
log() { echo "== $(date -u +%T) $*" | tee -a "$out/steps.log"; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/gpu.txt" 2>&1
log "venv"
python3 -m venv --system-site-packages /tmp/spx-venv
py=/tmp/spx-venv/bin/python
# The image's packages may live outside the system site (user site, another prefix): the venv sees
# every folder the system's python3 sees.
python3 -c 'import sys; print("\n".join(p for p in sys.path if p.endswith(("-packages", "site-packages"))))' \
  > "$($py -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/_system_paths.pth"
$py -c 'import scikit_build_core, nanobind, numpy, scipy, cupy, pytest; print("imports ok", nanobind.__version__, scikit_build_core.__version__, cupy.__version__)' >> "$out/steps.log" 2>&1
python3 -c 'import sys; print(sys.path)' >> "$out/steps.log" 2>&1
log "pip install . (timing)"
t0=$(date +%s.%N)
timeout "${SPX_PIP_TIMEOUT:-190}" $py -m pip install --no-build-isolation --no-deps -v . -C build-dir=/tmp/spx-skb > "$out/pip_install.log" 2>&1
rc=$?
t1=$(date +%s.%N)
echo "pip install rc=$rc seconds=$(python3 -c "print(round($t1 - $t0, 1))") cores=$(nproc)" | tee -a "$out/steps.log"
$py -m pip show -f spx >> "$out/pip_install.log" 2>&1
du -sh /tmp/spx-venv/lib/python3*/site-packages/spx >> "$out/steps.log" 2>&1
libspx=/tmp/spx-skb/src/libspx.a
if [[ $rc != 0 ]]; then
  # Fallback: the same CMake project with the extension staged in the build folder.
  log "pip failed: cmake build of _spx instead"
  cmake -S . -B /tmp/spx-b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPX_PYTHON=ON -DSPX_TESTS=OFF -DSPX_TOOLS=OFF \
    -DPython_EXECUTABLE="$(command -v python3)" > "$out/cmake_fallback.log" 2>&1 &&
    cmake --build /tmp/spx-b -j 16 --target _spx >> "$out/cmake_fallback.log" 2>&1 || exit 1
  py=python3
  export PYTHONPATH=/tmp/spx-b/python
  libspx=/tmp/spx-b/src/libspx.a
  t2=$(date +%s.%N)
  echo "cmake fallback seconds=$(python3 -c "print(round($t2 - $t1, 1))")" | tee -a "$out/steps.log"
fi

log "pytest"
( cd /tmp && SPX_SHARED_MATRICES=${SPX_SHARED_MATRICES:-} timeout "${SPX_PYTEST_TIMEOUT:-75}" $py -m pytest "$repo/tests/python" -q -rs \
    -p no:cacheprovider ) > "$out/pytest.log" 2>&1
echo "pytest rc=$?" | tee -a "$out/steps.log"
tail -3 "$out/pytest.log" | tee -a "$out/steps.log"

log "bench"
( cd /tmp && timeout "${SPX_BENCH_TIMEOUT:-60}" $py "$repo/bench/python/bench_python.py" --out "$out/python_bench.json" \
    --shared "${SPX_SHARED_MATRICES:-$repo/../shared/matrices}" --budget-s "${SPX_BENCH_BUDGET:-35}" ) > "$out/bench.log" 2>&1
echo "bench rc=$?" | tee -a "$out/steps.log"
log "context gtest (standalone)"
g++ -std=c++20 -O1 -I include -I src -I tests -I /usr/local/cuda/include tests/gpu/context_test.cpp \
  -o /tmp/ctx_test "$libspx" -lgtest -lgtest_main -L/usr/local/cuda/lib64 -lcudart -lcusparse \
  -lcublas -lfmt -lz -fopenmp -lpthread > "$out/ctx_test.log" 2>&1 && timeout 20 /tmp/ctx_test >> "$out/ctx_test.log" 2>&1
echo "ctx gtest rc=$?" | tee -a "$out/steps.log"
tail -3 "$out/ctx_test.log" | tee -a "$out/steps.log"

log "done"
