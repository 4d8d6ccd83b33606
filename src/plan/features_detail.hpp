// The pieces of spx::features that the host pass (src/plan/features.cpp) and the device pass
// (src/cuda/plan/features.cu) share, so that both give the same numbers: the per-row and per-nonzero
// rules (__host__ __device__ under nvcc) and the host functions that finish the device's counts
// (defined in features.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/mix64.hpp"
#include "cuda/common/host_device.hpp"
#include "spx/features.hpp"

#if !defined(__CUDA_ARCH__)
#include <algorithm>
#include <bit>
#endif

namespace spx::detail::feature_rules {

// log2 of the x values in one 32-byte sector: 8 floats (p = kF32), 4 doubles (p = kF64).
SPX_HOST_DEVICE constexpr int sector_shift(int p) { return p == MatrixFeatures::kF32 ? 3 : 2; }

// Bit of a window's linear-counting bitmap that an x sector sets.
SPX_HOST_DEVICE constexpr unsigned window_bitmap_bit(uint64_t sector) {
  return static_cast<unsigned>(mix64(sector) & (MatrixFeatures::kWindowBitmapBits - 1));
}

// Bucket of a row of `len` nonzeros: 0 for an empty row, else bit_width(len) = b for len in
// [2^(b-1), 2^b), clamped to the last bucket.
SPX_HOST_DEVICE inline int length_bucket(uint64_t len) {
  if (len == 0) return 0;
#if defined(__CUDA_ARCH__)
  const int width = 64 - __clzll(static_cast<long long>(len));
  return width < MatrixFeatures::kBuckets - 1 ? width : MatrixFeatures::kBuckets - 1;
#else
  return std::min(static_cast<int>(std::bit_width(len)), MatrixFeatures::kBuckets - 1);
#endif
}

SPX_HOST_DEVICE inline int popcount64(uint64_t w) {
#if defined(__CUDA_ARCH__)
  return __popcll(w);
#else
  return std::popcount(w);
#endif
}

// Column bitset words (bit b of word j = column 64j + b, or 32j + b for 32-bit words widened to 64):
// the f32 sectors are its bytes (8 columns), the f64 sectors its nibbles (4 columns); a sector is
// touched when any of its bits is set. Folding each byte (nibble) onto its lowest bit counts them.
SPX_HOST_DEVICE inline int nonzero_bytes(uint64_t w) {
  w |= w >> 4;
  w |= w >> 2;
  w |= w >> 1;
  return popcount64(w & 0x0101010101010101ULL);
}
SPX_HOST_DEVICE inline int nonzero_nibbles(uint64_t w) {
  w |= w >> 2;
  w |= w >> 1;
  return popcount64(w & 0x1111111111111111ULL);
}

// --- Host functions (features.cpp), used by both passes ---

// Linear counting's estimate for z bits set out of 4096, z = 0..4096: round(-4096 ln(1 - z/4096));
// entry 4096 (a full bitmap, no estimate) is INT64_MAX, so min(window nnz, entry) is the window's nnz.
// A window's estimate is min(window nnz, table[z]) on both sides.
const std::vector<int64_t>& linear_counting_table();

// Bell & Garland's width needs the row-length histogram only up to top = 3*nnz/rows + 1 (no width
// above 3*nnz/rows qualifies; longer rows share the top bin); -1 when rows < 4096 (width 0).
int64_t hyb_top_bin(int64_t rows, int64_t nnz);

struct HybSplit {
  int64_t width = 0;    // spx::hyb_ell_width's rule
  int64_t ell_nnz = 0;  // sum over rows of min(length, width)
};
// From hist[k] = rows of length k (k < top) and hist[top] = rows of length >= top (top = the last
// index, hyb_top_bin); an empty histogram (rows < 4096) gives {0, 0}.
HybSplit hyb_split(int64_t rows, std::span<const int64_t> hist);

}  // namespace spx::detail::feature_rules
