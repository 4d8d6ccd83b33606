#!/bin/bash
# One device run: build, SASS census, correctness + timing, memcheck. Logs to $OUT.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export PATH=/usr/local/cuda/bin:$PATH
B=/tmp/gemmdrv
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv | tee $OUT/smi_during.txt
time BUILD=$B bench/results/h100/gemm/driver/round2/build.sh > $OUT/build.txt 2>&1 || { tail -50 $OUT/build.txt; exit 1; }
cat $B/*.log | grep -E "Compiling entry|registers|spill" > $OUT/ptxas.txt
{ for o in gemm_v3.cu; do
    echo "== $o"; cuobjdump -sass $B/$o.o > $B/$o.sass
    grep -oE "(DMMA|DFMA|FFMA|LDS|LDGSTS|LDL|STL|LDG|BAR)[.A-Z0-9x]*" $B/$o.sass | sort | uniq -c
  done; } > $OUT/sass.txt 2>&1
cat $OUT/sass.txt
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader -lms 2000 >> $OUT/smi_during.txt &
SMI_PID=$!
timeout 150 $B/driver 2>&1 | tee $OUT/driver.txt
echo "driver rc=$?"
kill $SMI_PID 2>/dev/null
timeout 60 compute-sanitizer --tool memcheck $B/driver --memcheck > $OUT/memcheck.txt 2>&1; echo "memcheck rc=$?" >> $OUT/memcheck.txt
tail -8 $OUT/memcheck.txt
