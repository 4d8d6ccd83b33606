#!/bin/bash
# Builds the driver from the library's GEMM sources (no CMake: the tree may hold others' WIP).
# Host .cpp with g++ (fmt's consteval format checks break under nvcc), .cu with nvcc, in parallel.
set -e
B=${BUILD:-/tmp/gemmdrv}
mkdir -p $B
CU=/usr/local/cuda
export NV="nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src  -Xptxas -v"
export CXX="g++ -std=c++20 -O2 -I include -I src -I $CU/include"
export B
SRCS="src/cuda/common/context.cpp src/cuda/common/check.cpp src/cuda/common/scale.cpp src/cuda/common/launch.cpp
src/cuda/common/device.cu src/cuda/common/buffer.cpp src/cuda/gemm/gemm.cpp src/cuda/gemm/gemm_v1.cu
src/cuda/gemm/gemm_v2.cu src/cuda/gemm/gemm_v3.cu bench/results/h100/gemm/driver/variants.cu
bench/results/h100/gemm/driver/driver.cu"
for s in $SRCS; do echo $s; done | xargs -P 16 -I{} bash -c '
  f={}; o=$B/$(basename $f).o; l=$B/$(basename $f).log
  case $f in *.cu) $NV -c $f -o $o >$l 2>&1 ;; *) $CXX -c $f -o $o >$l 2>&1 ;; esac || { cat $l; exit 1; }'
nvcc -arch=sm_90 $B/*.o -L$CU/lib64 -lcublas -lcusparse -lfmt -o $B/driver
echo built $B/driver
