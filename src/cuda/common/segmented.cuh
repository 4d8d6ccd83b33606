// Segmented scans on top of the warp/block scans: a (value, head flag) pair and the operator that
// restarts the sum at every flagged element. With it, warp_inclusive_scan(ValueFlag{v, head},
// SegmentedSum{}) gives each lane the sum of its segment from the segment's head up to itself —
// the building block of COO SpMV and of segmented-sum SpMV (Liu & Vinter).
//
// The operator (a, fa) ⊕ (b, fb) = (fb ? b : a + b, fa | fb) is associative, so every scan order
// (the shuffle tree included) gives a segmented scan; the floating-point association is fixed by
// the lane positions and flags alone, so equal inputs give equal bits on every run.
#pragma once

#include "cuda/common/warp.cuh"

namespace spx::cuda {

// The pair type and its shuffle overloads live in a nested namespace: argument-dependent lookup
// still finds the overloads from warp_inclusive_scan, while unqualified __shfl_*_sync calls on
// plain values elsewhere in spx::cuda keep seeing only CUDA's own intrinsics.
namespace segmented {

template <class T>
struct ValueFlag {
  T value;
  int flag;  // 1 on the first element of a segment
};

struct SegmentedSum {
  template <class T>
  __device__ __forceinline__ ValueFlag<T> operator()(ValueFlag<T> a, ValueFlag<T> b) const {
    return {b.flag ? b.value : a.value + b.value, a.flag | b.flag};
  }
  // (0, no head): the identity of the operator on either side.
  template <class V>
  __device__ __forceinline__ static V identity() {
    return V{};
  }
};

// Lets the warp scans move a ValueFlag through register shuffles: warp_inclusive_scan calls
// __shfl_up_sync unqualified on its value type, and argument-dependent lookup finds these.
template <class T>
__device__ __forceinline__ ValueFlag<T> __shfl_up_sync(unsigned mask, ValueFlag<T> v, unsigned delta,
                                                       int width) {
  return {::__shfl_up_sync(mask, v.value, delta, width), ::__shfl_up_sync(mask, v.flag, delta, width)};
}
template <class T>
__device__ __forceinline__ ValueFlag<T> __shfl_xor_sync(unsigned mask, ValueFlag<T> v, int lane_mask,
                                                        int width) {
  return {::__shfl_xor_sync(mask, v.value, lane_mask, width),
          ::__shfl_xor_sync(mask, v.flag, lane_mask, width)};
}

}  // namespace segmented

using segmented::SegmentedSum;
using segmented::ValueFlag;

// Lane i of each Width-group gets the sum of v over its segment up to lane i; `head` marks the first
// lane of each segment (lane 0 of a group always starts one).
template <int Width = 32, class T>
__device__ __forceinline__ T warp_segmented_inclusive_sum(T v, bool head) {
  return warp_inclusive_scan<Width>(ValueFlag<T>{v, head ? 1 : 0}, SegmentedSum{}).value;
}

}  // namespace spx::cuda
